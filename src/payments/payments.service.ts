import { randomUUID } from 'node:crypto';
import type { Queryable, Sql } from '../db/sql.ts';
import { queueOrderMail } from '../mail/outbox.ts';
import { bySalesCounter, lockEvents, NOTHING_GIVEN_BACK } from '../tickets/cancellation.ts';
import { GENERAL_ADMISSION } from '../tickets/ticket-sales.entity.ts';
import type { GivenBack } from '../tickets/tickets.cancellation.queries.ts';
import { expireHeld } from './holds.ts';
import {
  CONFIRM_ORDER,
  EXPIRED_SEATS,
  type HeldOrder,
  HOLD_ORDER,
  type Paid,
  PURGE_STRIPE_EVENTS,
  RECORD_EVENT,
  REFUND_LATE_PAYMENT,
  REFUND_SUPERSEDED_PAYMENT,
  TAKE_SEATS,
} from './payments.queries.ts';
import type { CheckoutSession, PaymentEvent } from './stripe-gateway.ts';

export const EVENT_OUTCOMES = [
  'confirmed',
  'confirmed_late',
  'refunded',
  'expired',
  'awaiting_payment',
  'no_change',
  'replayed',
  'unknown_session',
  'ignored',
] as const;

export type EventOutcome = (typeof EVENT_OUTCOMES)[number];

/** A late payment found its seats sold meanwhile: the transaction that tried to take them rolls back. */
class SeatsGone extends Error {}

/**
 * Takes the seats of an expired order's tickets again, in the one order of counters; SeatsGone when one is
 * full, its event was cancelled, or its day has passed.
 */
async function retakeSeats(tx: Queryable, orderId: string, rules: LatePaymentRules): Promise<void> {
  const seats = await tx.query(EXPIRED_SEATS, [orderId]);
  // No seat at all: the museum called every ticket off; the payment goes back.
  if (seats.length === 0 || seats.some((seat) => seat.gone || seat.date < rules.today)) throw new SeatsGone();
  const events = [...new Set(seats.map((seat) => seat.scope).filter((scope) => scope !== GENERAL_ADMISSION))];
  await lockEvents(tx, events);
  const counters = new Map<string, { scope: string; date: string; count: number; capacity: number | null }>();
  const count = (scope: string, date: string, capacity: number | null) => {
    const key = `${scope} ${date}`;
    const counter = counters.get(key) ?? { scope, date, count: 0, capacity };
    counter.count += 1;
    counters.set(key, counter);
  };
  for (const seat of seats) {
    count(seat.scope, seat.date, seat.scope === GENERAL_ADMISSION ? rules.dailyCapacity : seat.eventCapacity);
    if (seat.slot) count(seat.slot, seat.date, seat.slotCapacity);
  }
  for (const counter of [...counters.values()].sort(bySalesCounter)) {
    // No capacity: nothing counted, nothing to take.
    if (counter.capacity === null) continue;
    const [taken] = await tx.query(TAKE_SEATS, [
      counter.scope,
      counter.date,
      counter.count,
      counter.capacity,
    ]);
    if (!taken) throw new SeatsGone();
  }
}

/** What a late payment's seats are checked against. */
export interface LatePaymentRules {
  today: string;
  dailyCapacity: number | null;
}

/** A payment through a replaced session went back; the order is as it was (EventResult.superseded). */
const SUPERSEDED_REFUNDED = 'refunded_superseded';

/**
 * A Checkout Session was paid. A pending order is confirmed; an expired one takes its seats again if they are
 * free, else it is refunded in full (as is an order its buyer cancelled while paying). An order paid already
 * changes nothing.
 */
async function applyPayment(
  sql: Sql,
  event: PaymentEvent,
  session: CheckoutSession,
  orderId: string,
  rules: LatePaymentRules,
): Promise<EventOutcome | typeof SUPERSEDED_REFUNDED> {
  const paid: Paid = [orderId, session.amountTotal, session.paymentIntent, session.id];
  try {
    return await sql.transaction(async (tx) => {
      const order = await holdOrder(tx, event, session, orderId);
      if (typeof order === 'string') return order;
      if (order.superseded) {
        await tx.query(REFUND_SUPERSEDED_PAYMENT, [...paid, randomUUID()]);
        return SUPERSEDED_REFUNDED;
      }
      if (order.paymentIntent !== null) return 'no_change';
      if (order.status === 'pending') {
        await tx.query(CONFIRM_ORDER, paid);
        await queueOrderMail(tx, order.id);
        return 'confirmed';
      }
      if (order.status !== 'expired') throw new SeatsGone();
      await retakeSeats(tx, order.id, rules);
      await tx.query(CONFIRM_ORDER, paid);
      await queueOrderMail(tx, order.id);
      return 'confirmed_late';
    });
  } catch (error) {
    if (!(error instanceof SeatsGone)) throw error;
  }
  // No seat for it: what was paid goes back, in full, once.
  return sql.transaction(async (tx) => {
    const order = await holdOrder(tx, event, session, orderId);
    if (typeof order === 'string') return order;
    if (order.paymentIntent !== null) return 'no_change';
    await tx.query(REFUND_LATE_PAYMENT, [...paid, randomUUID()]);
    return 'refunded';
  });
}

/** Records the event (once) and locks the order its session pays; or says why there is nothing to do. */
async function holdOrder(
  tx: Queryable,
  event: PaymentEvent,
  session: CheckoutSession,
  orderId: string,
): Promise<(HeldOrder & { superseded: boolean }) | 'replayed' | 'unknown_session'> {
  const [recorded] = await tx.query(RECORD_EVENT, [event.id, event.type]);
  if (!recorded) return 'replayed';
  const [order] = await tx.query(HOLD_ORDER, [orderId, session.id]);
  return order ?? 'unknown_session';
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What an event did, and what is left to do once it committed (an order's Checkout Session to expire). */
export interface EventResult {
  outcome: EventOutcome;
  givenBack: GivenBack;
  /** A payment through a session its order replaced was refunded: the order itself did not change. */
  superseded?: boolean;
}

/**
 * Applies a verified Stripe event, once (a replay changes nothing), in whatever order events come: a paid
 * session confirms its order (or refunds a payment that came too late), an expired or failed one expires a
 * pending order and gives its seats back. Events of other types, and sessions of no order here, change nothing.
 */
export async function applyStripeEvent(
  sql: Sql,
  event: PaymentEvent,
  rules: LatePaymentRules,
): Promise<EventResult> {
  const session = event.session;
  const orderId = session?.clientReferenceId;
  const result = (outcome: EventOutcome, givenBack = NOTHING_GIVEN_BACK) => ({ outcome, givenBack });
  const paid = (outcome: EventOutcome | typeof SUPERSEDED_REFUNDED): EventResult =>
    outcome === SUPERSEDED_REFUNDED
      ? { outcome: 'refunded', givenBack: NOTHING_GIVEN_BACK, superseded: true }
      : result(outcome);
  if (!session || !orderId || !UUID.test(orderId)) {
    const [recorded] = await sql.query(RECORD_EVENT, [event.id, event.type]);
    return result(!recorded ? 'replayed' : session ? 'unknown_session' : 'ignored');
  }
  switch (event.type) {
    case 'checkout.session.completed':
      if (session.paymentStatus === 'unpaid') {
        const [recorded] = await sql.query(RECORD_EVENT, [event.id, event.type]);
        return result(recorded ? 'awaiting_payment' : 'replayed');
      }
      return paid(await applyPayment(sql, event, session, orderId, rules));
    case 'checkout.session.async_payment_succeeded':
      return paid(await applyPayment(sql, event, session, orderId, rules));
    case 'checkout.session.expired':
    case 'checkout.session.async_payment_failed':
      return sql.transaction(async (tx) => {
        const order = await holdOrder(tx, event, session, orderId);
        if (typeof order === 'string') return result(order);
        if (order.status !== 'pending' || order.superseded) return result('no_change');
        return result('expired', await expireHeld(tx, order.id));
      });
    default: {
      const [recorded] = await sql.query(RECORD_EVENT, [event.id, event.type]);
      return result(recorded ? 'ignored' : 'replayed');
    }
  }
}

export async function purgeOldStripeEvents(sql: Queryable): Promise<void> {
  await sql.query(PURGE_STRIPE_EVENTS, []);
}
