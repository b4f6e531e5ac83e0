import { DomainError, invalidField } from '../common/errors.ts';
import { workerLoop } from '../common/worker-loop.ts';
import type { StripeSettings } from '../config.ts';
import type { Sql } from '../db/sql.ts';
import type { Logger } from '../logger.ts';
import { NOTHING_GIVEN_BACK } from '../tickets/cancellation.ts';
import type { GivenBack } from '../tickets/tickets.cancellation.queries.ts';
import { abandonOrder, checkoutLines, expireDueOrders, repricedOrders, storeCheckout } from './holds.ts';
import { ORDER_TO_OFFER } from './payments.queries.ts';
import { applyStripeEvent, type EventOutcome, type LatePaymentRules } from './payments.service.ts';
import { nextRefundInSeconds, recordRefund, takeDueRefunds } from './refunds.ts';
import { type PaymentGateway, PaymentRefused } from './stripe-gateway.ts';

/** What the payments count, when metrics are on. */
export interface PaymentCounts {
  stripeEvent(type: string, outcome: EventOutcome | 'bad_signature'): void;
  orderStatus(status: string): void;
  refund(outcome: 'succeeded' | 'failed' | 'retry'): void;
}

/** Stripe's shortest Checkout Session, and a minute to spare for the call itself. */
const SHORTEST_SESSION_MS = 31 * 60_000;
/** Refunds one worker sends at a time. */
const REFUND_BATCH = 10;
/**
 * A refund taken is left to its worker this long (a call and the SDK's 2 retries take less: 3 × 8 s and
 * backoff); then anyone's, after a crash. Were two to send it at once, its idempotency key makes it once.
 */
const REFUND_LEASE_SECONDS = 30;
/** Seconds before the next attempt of a refund Stripe did not answer: then every hour. */
const REFUND_RETRY_SECONDS = [10, 60, 300, 1800, 3600];
/** Other instances' holds and refunds are found this often even without being told. */
const SAFETY_POLL_MS = 30_000;

export interface Payments {
  /**
   * Offers a pending order for payment: its Checkout Session, made once and stored on the order. When Stripe
   * cannot take it, the order gives its seats back at once and the buyer is told to try again (503).
   */
  offer(orderId: string): Promise<void>;
  /** A webhook request from Stripe: verified, then applied once. Bad or stale signature: BAD_USER_INPUT. */
  receive(payload: string, signature: string | null): Promise<EventOutcome>;
  /** Tickets were given back (the transaction committed): expire abandoned sessions, send refunds. */
  givenBack(result: GivenBack): void;
  /** Counts into the app's metrics from now on. */
  observe(counts: PaymentCounts): void;
  /** Looks for holds to expire and refunds to send now (another instance, or a test, changed them). */
  wake(): void;
  close(): Promise<void>;
}

/**
 * Payments through Stripe Checkout for one instance: making and storing sessions, applying Stripe's events,
 * and a worker that expires holds that ran out and sends the refund outbox to Stripe. Every instance runs
 * one; row locks (skip locked) and leases let them share the work, each piece done once.
 */
export function createPayments(options: {
  sql: Sql;
  gateway: PaymentGateway;
  settings: StripeSettings;
  currency: string;
  logger: Logger;
  rules: () => LatePaymentRules;
  /** Told when a change queued a mail for its buyer (a confirmation, an expired hold, a refund made). */
  mailQueued?: () => void;
}): Payments {
  const { sql, gateway, logger } = options;
  let counts: PaymentCounts | undefined;
  const loop = workerLoop({ round: work, logger, name: 'payments worker', pollMs: SAFETY_POLL_MS });
  const { wake } = loop;

  const expireSessions = (sessions: string[]) =>
    Promise.all(
      sessions.map((session) =>
        gateway.expireCheckout(session).catch((error: unknown) =>
          // It expires on its own at its expires_at; a payment made meanwhile is refunded (or takes its seats).
          logger.warn('expiring a Checkout Session failed', { session, error: String(error) }),
        ),
      ),
    );

  async function sendRefunds(): Promise<void> {
    for (;;) {
      const due = await takeDueRefunds(sql, REFUND_BATCH, REFUND_LEASE_SECONDS);
      await Promise.all(
        due.map(async (refund) => {
          try {
            const made = await gateway.refund(refund.id, refund.paymentIntent, refund.amount);
            await recordRefund(sql, refund.id, { status: 'succeeded', stripeRefundId: made.stripeRefundId });
            options.mailQueued?.();
            counts?.refund('succeeded');
            logger.info('refund made', { refundId: refund.id, stripeRefundId: made.stripeRefundId });
          } catch (error) {
            if (error instanceof PaymentRefused) {
              await recordRefund(sql, refund.id, { status: 'failed', error: error.message });
              counts?.refund('failed');
              logger.error('Stripe refused a refund; it needs a person', {
                refundId: refund.id,
                reason: error.message,
              });
              return;
            }
            const retryInSeconds =
              REFUND_RETRY_SECONDS[Math.min(refund.attempts, REFUND_RETRY_SECONDS.length) - 1] ?? 3600;
            await recordRefund(sql, refund.id, { status: 'pending', error: String(error), retryInSeconds });
            counts?.refund('retry');
            logger.warn('a refund was not made; trying again', { refundId: refund.id, retryInSeconds });
          }
        }),
      );
      if (due.length < REFUND_BATCH) return;
    }
  }

  async function work(): Promise<number | null | undefined> {
    const { expired, nextInSeconds } = await expireDueOrders(sql);
    for (const result of expired) for (const status of result.statuses) counts?.orderStatus(status);
    if (expired.length > 0) options.mailQueued?.();
    await expireSessions(expired.flatMap((result) => result.openSessions));
    if (loop.closed) return undefined;
    await offerRepriced();
    if (loop.closed) return undefined;
    await sendRefunds();
    const nextRefund = await nextRefundInSeconds(sql);
    const next = [nextInSeconds, nextRefund].filter((seconds): seconds is number => seconds !== null);
    return next.length > 0 ? Math.min(...next) * 1000 : null;
  }

  /**
   * Offers a new Checkout Session to each pending order whose session was replaced, for what it holds now.
   * Two instances may both make one: the order stores the first, the other is expired (offer).
   */
  async function offerRepriced(): Promise<void> {
    for (const orderId of await repricedOrders(sql)) {
      await offer(orderId, true).catch((error: unknown) =>
        // offer gave the order's seats back and told its buyer; the worker goes on with the others.
        logger.warn('a repriced order could not be offered for payment', { orderId, error: String(error) }),
      );
    }
  }

  function givenBack(result: GivenBack): void {
    if (result !== NOTHING_GIVEN_BACK) options.mailQueued?.();
    for (const status of result.statuses) counts?.orderStatus(status);
    if (result.openSessions.length > 0) void expireSessions(result.openSessions);
    if (result.refunds > 0 || result.repriced > 0) wake();
  }

  async function offer(orderId: string, repriced = false): Promise<void> {
    const [order] = await sql.query(ORDER_TO_OFFER, [orderId]);
    if (order?.status !== 'pending' || order.checkoutUrl !== null) return;
    const holdEnds = Date.parse(order.expiresAt);
    // A hold shorter than Stripe's shortest session: the session outlives it, and the worker expires both.
    const expiresAt = new Date(Math.max(holdEnds, Date.now() + SHORTEST_SESSION_MS));
    // Null: its tickets were called off between the order's commit and now (the museum closed the date or
    // cancelled the event); that cancellation already ended the order and told its buyer.
    let session: { sessionId: string; url: string } | null;
    try {
      const lines = await checkoutLines(sql, orderId);
      session =
        lines.length === 0
          ? null
          : await gateway.createCheckout({ orderId, lines, currency: options.currency, expiresAt });
    } catch (error) {
      logger.error('Stripe did not make a Checkout Session; the order gave its seats back', {
        orderId,
        error: String(error),
      });
      givenBack(await abandonOrder(sql, orderId));
      throw new DomainError(
        'unavailable',
        'Payment is not available right now; nothing was sold or charged. Try again in a moment.',
      );
    }
    if (session === null)
      throw new DomainError(
        'conflict',
        'The museum called off what this order holds (a date closed, an event cancelled) while it was being placed; nothing was charged.',
      );
    if (!(await storeCheckout(sql, orderId, session))) await expireSessions([session.sessionId]);
    else if (!repriced) counts?.orderStatus('pending');
    if (holdEnds - Date.now() < SAFETY_POLL_MS) loop.later(holdEnds - Date.now());
  }

  async function receive(payload: string, signature: string | null): Promise<EventOutcome> {
    const event = signature === null ? null : gateway.verifyEvent(payload, signature);
    if (!event) {
      counts?.stripeEvent('unverified', 'bad_signature');
      throw invalidField(
        'stripe-signature',
        signature === null
          ? 'is required: the Stripe-Signature header of a webhook request'
          : 'does not verify: not signed with STRIPE_WEBHOOK_SECRET, or older than 5 minutes',
      );
    }
    const { outcome, givenBack: result, superseded } = await applyStripeEvent(sql, event, options.rules());
    counts?.stripeEvent(event.type, outcome);
    if (outcome === 'unknown_session')
      logger.warn('a Stripe event for no order here', { eventId: event.id, type: event.type });
    else logger.info('Stripe event', { eventId: event.id, type: event.type, outcome });
    if (outcome === 'confirmed' || outcome === 'confirmed_late') {
      counts?.orderStatus('confirmed');
      options.mailQueued?.();
    }
    if (outcome === 'refunded') {
      // A payment through a replaced session goes back without changing its order's status.
      if (!superseded) counts?.orderStatus('refunded');
      wake();
    }
    givenBack(result);
    return outcome;
  }

  wake();
  return {
    offer: (orderId) => offer(orderId),
    receive,
    givenBack,
    observe(observer) {
      counts = observer;
    },
    wake,
    close: loop.close,
  };
}
