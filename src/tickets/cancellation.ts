import type { Principal } from '../accounts/authenticator.ts';
import { conflict, notFound } from '../common/errors.ts';
import { type Queryable, rfc3339, type Sql, type Statement, statement } from '../db/sql.ts';
import { queueGivenBackMail } from '../mail/outbox.ts';
import type { Canceller } from './ticket.entity.ts';
import { GENERAL_ADMISSION } from './ticket-sales.entity.ts';
import { SALES_SCOPE, SLOT_SCOPE } from './ticket-view.ts';

/** A ticket as cancelling it finds it, its row locked until the transaction ends. */
export interface HeldTicket {
  ticketId: string;
  ticketDate: string;
  /** The ticket_sales scope its seat was counted in. */
  scope: string;
  /** A timed ticket's slot counter (ticket_sales scope) besides; null for an untimed ticket. */
  slot: string | null;
  checkedInAt: string | null;
  /** Given back already (its event's deletion gives it back too): nothing left to cancel. */
  cancelled: boolean;
  /** Its order is not paid yet (MUSEUM_PAYMENTS=stripe): only the whole order can be given up. */
  awaitingPayment: boolean;
  orderId: string | null;
}

export const HELD_COLUMNS = `t.id as "ticketId", to_char(t.ticket_date, 'YYYY-MM-DD') as "ticketDate",
  ${SALES_SCOPE} as scope, ${SLOT_SCOPE} as slot, ${rfc3339('t.checked_in_at')} as "checkedInAt",
  t.cancelled_at is not null as cancelled, t.awaiting_payment as "awaitingPayment", t.order_id as "orderId"`;

/** What holding tickets binds: the ticket's or order's id, whether staff holds them, and whose they must be. */
type HoldParams = [id: string, staff: boolean, accountId: string | null];

// Owner or staff ($2) only, as reads are. The lock makes a concurrent check-in of the ticket wait for this
// transaction (and then find it cancelled), and a concurrent cancellation find it cancelled.
const HOLD_TICKET = statement<HeldTicket, [ticketId: string, staff: boolean, accountId: string]>(
  'cancel_hold_ticket',
  `select ${HELD_COLUMNS}
   from ticket t
   where t.id = $1::uuid and ($2::boolean or t.account_id = $3::uuid)
   for update of t`,
);

// Rows are locked in one order (their ids) by every cancellation of the order, and by its expiry.
export const HOLD_ORDER_TICKETS = statement<HeldTicket, HoldParams>(
  'cancel_hold_order_tickets',
  `select ${HELD_COLUMNS}
   from ticket_order o join ticket t on t.order_id = o.id
   where o.id = $1::uuid and ($2::boolean or o.account_id = $3::uuid)
   order by t.id
   for update of t`,
);

// As a purchase does: a concurrent change of the event's capacity (which recounts its sales) waits for this
// cancellation to commit, or this for it, so the recount and the seat given back never cross.
const LOCK_EVENTS = statement<never, [eventIds: string[]]>(
  'cancel_lock_events',
  'select from special_event where id = any($1::uuid[]) order by id for share',
);

/** Share-locks the events (by id) whose seats are given back or taken again, in one order. */
export async function lockEvents(tx: Queryable, eventIds: string[]): Promise<void> {
  if (eventIds.length > 0) await tx.query(LOCK_EVENTS, [eventIds]);
}

const CANCEL = statement<never, [ticketIds: string[], by: Canceller | null, reason: string | null]>(
  'cancel_tickets',
  `update ticket set cancelled_at = now(), cancelled_by = $2, cancellation_reason = $3
   where id = any($1::uuid[]) and cancelled_at is null`,
);

// Counters exist only while a capacity applies (src/tickets/sale.queries.ts; a slot always has one): where there is none, the
// count starts from the tickets not cancelled, so there is nothing to give back.
const FREE_SEATS = statement<never, [scope: string, date: string, count: number]>(
  'cancel_free_seats',
  'update ticket_sales set sold = greatest(sold - $3::int, 0) where scope = $1 and date = $2::date',
);

/** What giving tickets back did beyond them: to be told once the transaction has committed. */
export interface GivenBack {
  /** Refunds queued in the outbox. */
  refunds: number;
  /** The new status of each order that has no ticket left. */
  statuses: string[];
  /**
   * Checkout Sessions of orders that were waiting for payment, to be expired at Stripe: an order with no
   * ticket left, or one the museum called some tickets of off (its session is replaced: `repriced`).
   */
  openSessions: string[];
  /** Pending orders that keep tickets but lost some: each is offered a new session for its new total. */
  repriced: number;
}

// The orders of tickets just given back: what was paid for them goes back (a row of the refund outbox, made by
// the payments worker), and an order with no ticket left is refunded when it was paid, else becomes $3 when it
// was pending (cancelled, expired) and cancelled when it was confirmed. With $4 (the museum called tickets off),
// a pending order that keeps tickets has its Checkout Session replaced: the old one joins the sessions it no
// longer takes, and the payments worker offers it a new one for what is left. Answers the Checkout Sessions
// to expire at Stripe.
const SETTLE_ORDERS = statement<
  GivenBack,
  [ticketIds: string[], reason: string, pendingStatus: 'cancelled' | 'expired', reprice: boolean]
>(
  'cancel_settle_orders',
  `with given as (
     select t.order_id, sum(t.price)::int as amount from ticket t
     where t.id = any($1::uuid[]) and t.order_id is not null group by t.order_id),
   refunds as (
     insert into refund (id, order_id, amount, payment_intent, reason, status, attempts, next_attempt_at, created_at)
     select gen_random_uuid(), o.id, g.amount, o.payment_intent, $2, 'pending', 0, now(), now()
     from given g join ticket_order o on o.id = g.order_id
     where o.payment_intent is not null and g.amount > 0
     returning 1),
   settled as (
     update ticket_order o set status = case when o.payment_intent is not null then 'refunded'
                                             when o.status = 'pending' then $3 else 'cancelled' end
     from given g
     where o.id = g.order_id and o.status in ('pending', 'confirmed')
       and not exists (select from ticket t where t.order_id = o.id and t.cancelled_at is null)
     returning o.status, o.checkout_session_id, o.paid_amount),
   repriced as (
     update ticket_order o set superseded_sessions = o.superseded_sessions || old.checkout_session_id,
       checkout_session_id = null, checkout_url = null
     from (select p.id, p.checkout_session_id from given g join ticket_order p on p.id = g.order_id
           where $4::boolean and p.status = 'pending' and p.checkout_session_id is not null
             and exists (select from ticket t where t.order_id = p.id and t.cancelled_at is null)) old
     where o.id = old.id
     returning old.checkout_session_id)
   select (select count(*)::int from refunds) as refunds,
          coalesce((select json_agg(status) from settled), '[]') as statuses,
          coalesce((select json_agg(checkout_session_id) from (
             select checkout_session_id from settled where checkout_session_id is not null and paid_amount is null
             union all select checkout_session_id from repriced) sessions), '[]') as "openSessions",
          (select count(*)::int from repriced) as repriced`,
);

export const NOTHING_GIVEN_BACK: GivenBack = { refunds: 0, statuses: [], openSessions: [], repriced: 0 };

/**
 * Counter rows are locked in (date, scope) order by everything that holds several: orders, their
 * cancellation, and a timed ticket (its day's counter, `general`, before its slot's, `general 10:30`).
 */
export const bySalesCounter = (a: { scope: string; date: string }, b: { scope: string; date: string }) =>
  a.date < b.date ? -1 : a.date > b.date ? 1 : a.scope < b.scope ? -1 : a.scope > b.scope ? 1 : 0;

/**
 * Gives back the tickets held that are not cancelled yet, all or none: none may be checked in, and a visitor
 * may cancel only before the ticket's day (staff at any time); a ticket waiting for payment goes only with
 * its whole order.
 */
async function cancelHeld(
  tx: Queryable,
  held: HeldTicket[],
  canceller: Principal,
  today: string,
  wholeOrder: boolean,
): Promise<GivenBack> {
  const open = held.filter((ticket) => !ticket.cancelled);
  for (const ticket of open) {
    if (ticket.awaitingPayment && !wholeOrder)
      throw conflict(
        `Ticket ${ticket.ticketId} waits for its order's payment: cancel the order ${ticket.orderId} instead`,
      );
    if (ticket.checkedInAt !== null)
      throw conflict(
        `Ticket ${ticket.ticketId} was checked in at ${ticket.checkedInAt}; a used ticket cannot be cancelled`,
      );
    if (canceller.role !== 'staff' && ticket.ticketDate <= today)
      throw conflict(
        `Ticket ${ticket.ticketId} is for ${ticket.ticketDate}: its holder can cancel it only before that day (today is ${today})`,
      );
  }
  // Staff give tickets back on the museum's behalf; the reason stays unsaid.
  const by = canceller.role === 'staff' ? 'museum' : 'visitor';
  return giveBack(tx, open, { by, pendingStatus: 'cancelled', mail: 'cancellation' });
}

/** How tickets are given back. */
export interface GivingBack {
  /** Who gave them back: their buyer, the museum (staff, or an event or a day called off), or nobody (a hold ran out). */
  by: Canceller | null;
  /** Why the museum called them off, as staff said it. */
  reason?: string | null;
  /** What a pending order left without tickets becomes; a confirmed one becomes cancelled (refunded when paid). */
  pendingStatus: 'cancelled' | 'expired';
  /** The mail that tells the buyer, or null when the buyer was told at once (an order not offered for payment). */
  mail: 'cancellation' | 'expired' | null;
}

/**
 * Gives the tickets back (they hold their rows' locks): each seat goes back to its counter, what was paid
 * for them goes to the refund outbox, an order left without tickets is settled (GivingBack.pendingStatus),
 * and the buyer is told, one mail per order or ticket sold on its own. When the museum called them off, a
 * pending order that keeps tickets is repriced: its Checkout Session is replaced (SETTLE_ORDERS).
 */
export async function giveBack(tx: Queryable, open: HeldTicket[], how: GivingBack): Promise<GivenBack> {
  if (open.length === 0) return NOTHING_GIVEN_BACK;
  const events = [
    ...new Set(open.map((ticket) => ticket.scope).filter((scope) => scope !== GENERAL_ADMISSION)),
  ];
  await lockEvents(tx, events);
  const ticketIds = open.map((ticket) => ticket.ticketId);
  await tx.query(CANCEL, [ticketIds, how.by, how.reason ?? null]);
  if (how.mail) await queueGivenBackMail(tx, ticketIds, how.mail);
  const seats = new Map<string, { scope: string; date: string; count: number }>();
  for (const { scope: ticketScope, slot, ticketDate: date } of open) {
    for (const scope of slot ? [ticketScope, slot] : [ticketScope]) {
      const key = `${scope} ${date}`;
      const seat = seats.get(key) ?? { scope, date, count: 0 };
      seat.count += 1;
      seats.set(key, seat);
    }
  }
  for (const seat of [...seats.values()].sort(bySalesCounter))
    await tx.query(FREE_SEATS, [seat.scope, seat.date, seat.count]);
  if (!open.some((ticket) => ticket.orderId !== null)) return NOTHING_GIVEN_BACK;
  const [settled] = await tx.query(SETTLE_ORDERS, [
    ticketIds,
    'cancelled',
    how.pendingStatus,
    how.by === 'museum',
  ]);
  return settled!;
}

/** Holds what `hold` finds of `id` (the canceller's own, or any for staff) and cancels it, all or none. */
function cancelHeldBy(
  sql: Sql,
  canceller: Principal,
  hold: Statement<HeldTicket, HoldParams>,
  id: string,
  missing: string,
  today: string,
): Promise<GivenBack> {
  return sql.transaction(async (tx) => {
    const held = await tx.query(hold, [id, canceller.role === 'staff', canceller.id]);
    if (held.length === 0) throw notFound(missing);
    return cancelHeld(tx, held, canceller, today, hold === HOLD_ORDER_TICKETS);
  });
}

/**
 * Cancels a ticket: its owner before its day, staff at any time, never once it was checked in. Its seat can
 * be sold again, and what was paid for it is refunded. Cancelling a cancelled ticket is done already.
 * Anyone else: not found.
 */
export const cancelTicket = (sql: Sql, canceller: Principal, ticketId: string, today: string) =>
  cancelHeldBy(sql, canceller, HOLD_TICKET, ticketId, 'There is no ticket with that ticketId', today);

/** Cancels every ticket of an order under the rules of cancelTicket, all or none. Owner or staff only. */
export const cancelOrderTickets = (sql: Sql, canceller: Principal, orderId: string, today: string) =>
  cancelHeldBy(sql, canceller, HOLD_ORDER_TICKETS, orderId, 'There is no order with that orderId', today);
