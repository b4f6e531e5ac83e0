import { rfc3339, statement } from '../db/sql.ts';
import type { Canceller } from './ticket.entity.ts';
import { SALES_SCOPE, SLOT_SCOPE } from './tickets.views.queries.ts';

// The tickets' SQL of a cancellation: tickets held (locked) before they are given back or called off, their
// seats freed, and the orders they leave settled.

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
export type HoldParams = [id: string, staff: boolean, accountId: string | null];

// Owner or staff ($2) only, as reads are. The lock makes a concurrent check-in of the ticket wait for this
// transaction (and then find it cancelled), and a concurrent cancellation find it cancelled.
export const HOLD_TICKET = statement<HeldTicket, [ticketId: string, staff: boolean, accountId: string]>(
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
export const LOCK_EVENTS = statement<never, [eventIds: string[]]>(
  'cancel_lock_events',
  'select from special_event where id = any($1::uuid[]) order by id for share',
);

export const CANCEL = statement<never, [ticketIds: string[], by: Canceller | null, reason: string | null]>(
  'cancel_tickets',
  `update ticket set cancelled_at = now(), cancelled_by = $2, cancellation_reason = $3
   where id = any($1::uuid[]) and cancelled_at is null`,
);

// Counters exist only while a capacity applies (src/tickets/tickets.queries.ts; a slot always has one): where there is none, the
// count starts from the tickets not cancelled, so there is nothing to give back.
export const FREE_SEATS = statement<never, [scope: string, date: string, count: number]>(
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
export const SETTLE_ORDERS = statement<
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

// An event's tickets not used nor cancelled, on the dates $2 (null: every date) from today ($3) on: a past
// date's ticket not used was a visit missed, not one the museum called off (nor is it refunded).
export const HOLD_EVENT_TICKETS = statement<
  HeldTicket,
  [eventId: string, dates: string[] | null, today: string]
>(
  'call_off_hold_event_tickets',
  `select ${HELD_COLUMNS} from ticket t
   where t.event_id = $1::uuid and ($2::date[] is null or t.ticket_date = any($2::date[]))
     and t.ticket_date >= $3::date and t.cancelled_at is null and t.checked_in_at is null
   order by t.id for update of t`,
);

// A date's tickets not used nor cancelled (general admission and events alike) that its hours no longer
// admit: every one when it is closed ($2 null), else the timed tickets whose entry slot falls outside them.
export const HOLD_DAY_TICKETS = statement<
  HeldTicket,
  [date: string, timeOpen: string | null, timeClose: string | null]
>(
  'call_off_hold_day_tickets',
  `select ${HELD_COLUMNS} from ticket t
   where t.ticket_date = $1::date and t.cancelled_at is null and t.checked_in_at is null
     and ($2::time is null or t.entry_time < $2::time or t.entry_end > $3::time)
   order by t.id for update of t`,
);

// The tickets not used nor cancelled, from today ($4) on, of the dates that follow their weekday's hours (no
// hours of their own) among the weekdays $1 given new hours ($2 to $3; null: closed), which those hours no
// longer admit, as a day's own hours judge them above.
export const HOLD_WEEKDAY_TICKETS = statement<
  HeldTicket,
  [weekdays: number[], opens: (string | null)[], closes: (string | null)[], today: string]
>(
  'call_off_hold_weekday_tickets',
  `select ${HELD_COLUMNS} from ticket t
   join unnest($1::int[], $2::time[], $3::time[]) as changed(weekday, time_open, time_close)
     on changed.weekday = extract(isodow from t.ticket_date)
   where t.ticket_date >= $4::date and t.cancelled_at is null and t.checked_in_at is null
     and not exists (select from day_hours o where o.date = t.ticket_date)
     and (changed.time_open is null or t.entry_time < changed.time_open or t.entry_end > changed.time_close)
   order by t.id for update of t`,
);

// Taken by a change of hours before it looks for the tickets the new hours no longer admit. A sale checks the
// hours without locking them (a lock on the hours' rows would make every sale of a day queue on one row), so a
// sale still running when the hours change could otherwise commit a ticket the change never saw. This mode
// waits for every sale in flight to commit (then held and called off above), holds new ones back until the
// change commits (then they see the new hours), and queues two changes of hours one after the other.
export const PAUSE_SALES = statement<never>(
  'call_off_pause_sales',
  'lock table ticket in share row exclusive mode',
);
