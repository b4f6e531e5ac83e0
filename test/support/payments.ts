// A museum that takes payment through Stripe, against a Stripe look-alike on 127.0.0.1 (stripe-server.ts):
// the service's own `stripe` SDK calls it, and the tests send it Stripe's webhook events, signed as Stripe signs
// them, through the whole request path (POST /payments/stripe).
import { afterAll, beforeAll } from 'vitest';
import { statement } from '../../src/db/sql.ts';
import type { Logger } from '../../src/logger.ts';
import { startMuseum, type TestMuseum } from './museum.ts';
import {
  type StripeEvent,
  type StripeServer,
  signedEventRequest,
  startStripeServer,
} from './stripe-server.ts';

export const STRIPE_SECRET_KEY = 'sk_test_museum';
export const STRIPE_WEBHOOK_SECRET = 'whsec_museum_test_secret';

/** The variables of a museum that takes payment through the look-alike at `stripeUrl`. */
export const stripeEnv = (stripeUrl: string): Record<string, string> => ({
  MUSEUM_PAYMENTS: 'stripe',
  STRIPE_SECRET_KEY,
  STRIPE_WEBHOOK_SECRET,
  STRIPE_SUCCESS_URL: 'https://shop.example/orders/{orderId}/paid',
  STRIPE_CANCEL_URL: 'https://shop.example/orders/{orderId}',
  STRIPE_API_BASE: stripeUrl,
});

export interface PaidMuseum {
  museum: TestMuseum;
  stripe: StripeServer;
}

/**
 * The look-alike and a museum using it, opened before the file's first test and closed after its last; `env`
 * may be a function, read then (it may name a server an earlier `beforeAll` started).
 */
export function usePaidMuseum(
  env: Record<string, string> | (() => Record<string, string>) = {},
  options: { logger?: Logger } = {},
): PaidMuseum {
  const made: Partial<PaidMuseum> = {};
  beforeAll(async () => {
    made.stripe = await startStripeServer({ secretKey: STRIPE_SECRET_KEY });
    const more = typeof env === 'function' ? env() : env;
    made.museum = await startMuseum({ ...stripeEnv(made.stripe.url), ...more }, options);
  });
  afterAll(async () => {
    await made.museum?.close();
    await made.stripe?.close();
  });
  return { museum: forwarding(() => made.museum), stripe: forwarding(() => made.stripe) };
}

/** A stand-in that forwards to what beforeAll makes, so tests use it as the thing itself. */
function forwarding<T extends object>(made: () => T | undefined): T {
  return new Proxy({} as T, {
    get(_target, key) {
      const target = made();
      if (!target) throw new Error(`${String(key)} before beforeAll made it`);
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** POSTs a Stripe event to the museum's webhook as Stripe would (signed now, unless told otherwise). */
export function sendStripeEvent(
  museum: Pick<TestMuseum, 'request'>,
  event: object,
  options: { secret?: string; timestamp?: number } = {},
) {
  const { body, headers } = signedEventRequest(
    event as never,
    options.secret ?? STRIPE_WEBHOOK_SECRET,
    options.timestamp === undefined ? {} : { timestamp: options.timestamp },
  );
  return museum.request('POST', '/payments/stripe', { rawBody: body, headers });
}

/** The session the look-alike made for an order (by its client_reference_id). */
export function sessionOf(stripe: StripeServer, orderId: string) {
  const session = [...stripe.sessions.values()].find((s) => s.client_reference_id === orderId);
  if (!session) throw new Error(`no Checkout Session for order ${orderId}`);
  return session;
}

/** Stripe's event that an order's Checkout Session was paid (or `type`), its session paid at the look-alike. */
export const paidEvent = (
  stripe: StripeServer,
  orderId: string,
  type: StripeEvent['type'] = 'checkout.session.completed',
): StripeEvent => stripe.event(type, stripe.pay(sessionOf(stripe, orderId).id));

const END_HOLD = statement<never, [orderId: string]>(
  'test_end_hold',
  "update ticket_order set expires_at = now() - interval '1 second' where id = $1::uuid",
);

/**
 * Ends an order's hold now, as the clock would ORDER_HOLD_MINUTES after it was placed (the database's clock
 * decides expiry, so the test moves the hold's end rather than the time).
 */
export async function endHold(museum: TestMuseum, orderId: string): Promise<void> {
  await museum.deps.db.sql.query(END_HOLD, [orderId]);
}

interface OrderRow {
  status: string;
  paidAmount: number | null;
  paymentIntent: string | null;
  heldTickets: number;
}

const ORDER_ROW = statement<OrderRow, [orderId: string]>(
  'test_order_row',
  `select status, paid_amount as "paidAmount", payment_intent as "paymentIntent",
          (select count(*)::int from ticket t where t.order_id = o.id and t.cancelled_at is null) as "heldTickets"
   from ticket_order o where id = $1::uuid`,
);

/** An order as the database has it. */
export async function orderRow(museum: Pick<TestMuseum, 'deps'>, orderId: string) {
  const [row] = await museum.deps.db.sql.query(ORDER_ROW, [orderId]);
  return row;
}

interface RefundRow {
  amount: number;
  reason: string;
  status: string;
  attempts: number;
  lastError: string | null;
}

const REFUNDS = statement<RefundRow, [orderId: string]>(
  'test_refunds',
  `select amount, reason, status, attempts, last_error as "lastError" from refund where order_id = $1::uuid
   order by created_at`,
);

export async function refundRows(museum: Pick<TestMuseum, 'deps'>, orderId: string) {
  return museum.deps.db.sql.query(REFUNDS, [orderId]);
}

/** A Stripe event as `fetch` options for a server process's webhook, signed now. */
export const signedEventRequestFor = (event: object) =>
  signedEventRequest(event as never, STRIPE_WEBHOOK_SECRET);
