import { randomUUID } from 'node:crypto';
import { type Queryable, type Sql, statement } from '../db/sql.ts';
import { slotSetting } from '../hours/entry-slots.rules.ts';
import { queueOrderMail } from '../mail/outbox.ts';
import { bySalesCounter, lockEvents, NOTHING_GIVEN_BACK } from '../tickets/cancellation.ts';
import { GENERAL_ADMISSION } from '../tickets/ticket-sales.entity.ts';
import type { GivenBack } from '../tickets/tickets.cancellation.queries.ts';
import { SALES_SCOPE, SLOT_SCOPE } from '../tickets/tickets.views.queries.ts';
import { expireHeld } from './holds.ts';
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

/** The order as a payment finds it, its row locked until the transaction ends. */
interface HeldOrder {
  id: string;
  status: string;
  paymentIntent: string | null;
}

// Stripe's event id takes effect once: its row commits with what the event did.
const RECORD_EVENT = statement<{ id: string }, [eventId: string, type: string]>(
  'payment_record_event',
  `insert into stripe_event (id, type, received_at) values ($1, $2, now())
   on conflict (id) do nothing returning id`,
);

// The order a Checkout Session pays: by the order id Stripe carries back (client_reference_id), and the
// session, unless the order has not stored its session yet (the service stopped right after making it). A
// session the order replaced (the museum called some of its tickets off) is `superseded`: it pays nothing.
const HOLD_ORDER = statement<HeldOrder & { superseded: boolean }, [orderId: string, sessionId: string]>(
  'payment_hold_order',
  `select id, status, payment_intent as "paymentIntent", $2 = any(superseded_sessions) as superseded
   from ticket_order
   where id = $1::uuid and (checkout_session_id = $2 or checkout_session_id is null or $2 = any(superseded_sessions))
   for update`,
);

/** What a payment binds: the order, the amount paid, its PaymentIntent and its Checkout Session. */
type Paid = [orderId: string, amount: number, paymentIntent: string | null, sessionId: string];

// Its tickets are sold: those its hold's end gave back too (a late payment), not those the museum called off.
const CONFIRM_ORDER = statement<never, Paid>(
  'payment_confirm_order',
  `with paid as (
     update ticket_order set status = 'confirmed', paid_amount = $2::int, payment_intent = $3,
       checkout_session_id = coalesce(checkout_session_id, $4)
     where id = $1::uuid returning id)
   update ticket set awaiting_payment = false, cancelled_at = null
   where order_id = (select id from paid) and cancelled_by is null`,
);

// A payment through a session the order replaced goes back in full, once (a replay of it, or another event
// of the same payment, finds its refund); the order stays as it is.
const REFUND_SUPERSEDED_PAYMENT = statement<never, [...Paid, refundId: string]>(
  'payment_refund_superseded',
  `insert into refund (id, order_id, amount, payment_intent, reason, status, attempts, next_attempt_at, created_at)
   select $5::uuid, o.id, $2::int, $3::text, 'late_payment', 'pending', 0, now(), now()
   from ticket_order o
   where o.id = $1::uuid and $4::text = any(o.superseded_sessions) and $2::int > 0 and $3::text is not null
     and not exists (select from refund where payment_intent = $3::text)`,
);

const REFUND_LATE_PAYMENT = statement<never, [...Paid, refundId: string]>(
  'payment_refund_late',
  `with refunded as (
     update ticket_order set status = 'refunded', paid_amount = $2::int, payment_intent = $3,
       checkout_session_id = coalesce(checkout_session_id, $4)
     where id = $1::uuid returning id)
   insert into refund (id, order_id, amount, payment_intent, reason, status, attempts, next_attempt_at, created_at)
   select $5::uuid, id, $2::int, $3, 'late_payment', 'pending', 0, now(), now() from refunded where $2::int > 0`,
);

interface ExpiredSeat {
  date: string;
  scope: string;
  slot: string | null;
  eventCapacity: number | null;
  gone: boolean;
  slotCapacity: number | null;
}

// An expired order's tickets, their seats to be taken again (not those the museum called off): each with the
// capacity of its counter(s).
const EXPIRED_SEATS = statement<ExpiredSeat, [orderId: string]>(
  'payment_expired_seats',
  `select to_char(t.ticket_date, 'YYYY-MM-DD') as date, ${SALES_SCOPE} as scope, ${SLOT_SCOPE} as slot,
          e.capacity as "eventCapacity",
          (e.id is not null and (e.deleted_at is not null or not exists (
             select from special_event_date d where d.event_id = e.id and d.date = t.ticket_date and d.listed))) as gone,
          ${slotSetting('capacity')} as "slotCapacity"
   from ticket t
   left join special_event e on e.id = t.event_id
   left join day_entry_slots d on d.date = t.ticket_date
   cross join entry_slots m
   where t.order_id = $1::uuid and t.cancelled_by is null
   order by t.id`,
);

// Takes $3 seats of counter ($1, $2) under capacity $4. A missing counter starts from the tickets of its
// scope sold and not cancelled, as a purchase's does (src/tickets/tickets.queries.ts).
const TAKE_SEATS = statement<
  { sold: number },
  [scope: string, date: string, count: number, capacity: number]
>(
  'payment_take_seats',
  `insert into ticket_sales as s (scope, date, sold)
   select $1, $2::date, counted.sold + $3::int from (
     select case when exists (select from ticket_sales where scope = $1 and date = $2::date) then 0
       else (select count(*)::int from ticket t
             where t.ticket_date = $2::date and t.cancelled_at is null
               and $1 in (${SALES_SCOPE}, ${SLOT_SCOPE})) end as sold) counted
   where counted.sold + $3::int <= $4::int
   on conflict (scope, date) do update set sold = s.sold + $3::int where s.sold + $3::int <= $4::int
   returning sold`,
);

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

// Stripe retries an event for 3 days: an id older than 30 days will not come again.
const PURGE_STRIPE_EVENTS = statement(
  'stripe_event_purge',
  "delete from stripe_event where received_at < now() - interval '30 days'",
);

export async function purgeOldStripeEvents(sql: Queryable): Promise<void> {
  await sql.query(PURGE_STRIPE_EVENTS, []);
}
