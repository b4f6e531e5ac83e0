import type { Principal } from '../accounts/authenticator.ts';
import { conflict, notFound } from '../common/errors.ts';
import { retryOnDeadlock } from '../db/database.ts';
import { type Queryable, rfc3339, type Sql, type Statement, statement } from '../db/sql.ts';
import { GENERAL_ADMISSION } from './ticket-sales.entity.ts';
import { SALES_SCOPE, SLOT_SCOPE } from './ticket-view.ts';

/** A ticket as cancelling it finds it, its row locked until the transaction ends. */
interface HeldTicket {
  ticketId: string;
  ticketDate: string;
  /** The ticket_sales scope its seat was counted in. */
  scope: string;
  /** A timed ticket's slot counter (ticket_sales scope) besides; null for an untimed ticket. */
  slot: string | null;
  checkedInAt: string | null;
  /** Given back already, or its event was deleted: nothing left to cancel. */
  cancelled: boolean;
}

const HELD_COLUMNS = `t.id as "ticketId", to_char(t.ticket_date, 'YYYY-MM-DD') as "ticketDate",
  ${SALES_SCOPE} as scope, ${SLOT_SCOPE} as slot, ${rfc3339('t.checked_in_at')} as "checkedInAt",
  (t.cancelled_at is not null or e.deleted_at is not null) as cancelled`;

// Owner or staff ($2) only, as reads are. The lock makes a concurrent check-in of the ticket wait for this
// transaction (and then find it cancelled), and a concurrent cancellation find it cancelled.
const HOLD_TICKET = statement(
  'cancel_hold_ticket',
  `select ${HELD_COLUMNS}
   from ticket t left join special_event e on e.id = t.event_id
   where t.id = $1::uuid and ($2::boolean or t.account_id = $3::uuid)
   for update of t`,
);

// Rows are locked in one order (their ids) by every cancellation of the order.
const HOLD_ORDER_TICKETS = statement(
  'cancel_hold_order_tickets',
  `select ${HELD_COLUMNS}
   from ticket_order o join ticket t on t.order_id = o.id left join special_event e on e.id = t.event_id
   where o.id = $1::uuid and ($2::boolean or o.account_id = $3::uuid)
   order by t.id
   for update of t`,
);

// As a purchase does: a concurrent change of the event's capacity (which recounts its sales) waits for this
// cancellation to commit, or this for it, so the recount and the seat given back never cross.
const LOCK_EVENTS = statement(
  'cancel_lock_events',
  'select from special_event where id = any($1::uuid[]) order by id for share',
);

const CANCEL = statement(
  'cancel_tickets',
  'update ticket set cancelled_at = now() where id = any($1::uuid[]) and cancelled_at is null',
);

// Counters exist only while a capacity applies (src/tickets/tickets.service.ts; a slot always has one): where there is none, the
// count starts from the tickets not cancelled, so there is nothing to give back.
const FREE_SEATS = statement(
  'cancel_free_seats',
  'update ticket_sales set sold = greatest(sold - $3::int, 0) where scope = $1 and date = $2::date',
);

/**
 * Counter rows are locked in (date, scope) order by everything that holds several: orders, their
 * cancellation, and a timed ticket (its day's counter, `general`, before its slot's, `general 10:30`).
 */
export const bySalesCounter = (a: { scope: string; date: string }, b: { scope: string; date: string }) =>
  a.date < b.date ? -1 : a.date > b.date ? 1 : a.scope < b.scope ? -1 : a.scope > b.scope ? 1 : 0;

/**
 * Gives back the tickets held that are not cancelled yet, all or none: none may be checked in, and a visitor
 * may cancel only before the ticket's day (staff at any time). Each seat goes back to its counter.
 */
async function cancelHeld(
  tx: Queryable,
  held: HeldTicket[],
  canceller: Principal,
  today: string,
): Promise<void> {
  const open = held.filter((ticket) => !ticket.cancelled);
  for (const ticket of open) {
    if (ticket.checkedInAt !== null)
      throw conflict(
        `Ticket ${ticket.ticketId} was checked in at ${ticket.checkedInAt}; a used ticket cannot be cancelled`,
      );
    if (canceller.role !== 'staff' && ticket.ticketDate <= today)
      throw conflict(
        `Ticket ${ticket.ticketId} is for ${ticket.ticketDate}: its holder can cancel it only before that day (today is ${today})`,
      );
  }
  if (open.length === 0) return;
  const events = [
    ...new Set(open.map((ticket) => ticket.scope).filter((scope) => scope !== GENERAL_ADMISSION)),
  ];
  if (events.length > 0) await tx.query(LOCK_EVENTS, [events]);
  await tx.query(CANCEL, [open.map((ticket) => ticket.ticketId)]);
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
}

/** Holds what `hold` finds of `id` (the canceller's own, or any for staff) and cancels it, all or none. */
function cancelHeldBy(
  sql: Sql,
  canceller: Principal,
  hold: Statement,
  id: string,
  missing: string,
  today: string,
): Promise<true> {
  return retryOnDeadlock(() =>
    sql.transaction(async (tx) => {
      const held = await tx.query<HeldTicket>(hold, [id, canceller.role === 'staff', canceller.id]);
      if (held.length === 0) throw notFound(missing);
      await cancelHeld(tx, held, canceller, today);
      return true as const;
    }),
  );
}

/**
 * Cancels a ticket: its owner before its day, staff at any time, never once it was checked in. Its seat can
 * be sold again. Cancelling a cancelled ticket is done already (true). Anyone else: not found.
 */
export const cancelTicket = (sql: Sql, canceller: Principal, ticketId: string, today: string) =>
  cancelHeldBy(sql, canceller, HOLD_TICKET, ticketId, 'There is no ticket with that ticketId', today);

/** Cancels every ticket of an order under the rules of cancelTicket, all or none. Owner or staff only. */
export const cancelOrderTickets = (sql: Sql, canceller: Principal, orderId: string, today: string) =>
  cancelHeldBy(sql, canceller, HOLD_ORDER_TICKETS, orderId, 'There is no order with that orderId', today);
