import type { Principal } from '../accounts/authenticator.ts';
import { conflict, notFound } from '../common/errors.ts';
import type { Queryable, Sql, Statement } from '../db/sql.ts';
import { queueGivenBackMail } from '../mail/outbox.ts';
import type { Canceller } from './ticket.entity.ts';
import { GENERAL_ADMISSION } from './ticket-sales.entity.ts';
import {
  CANCEL,
  FREE_SEATS,
  type GivenBack,
  type HeldTicket,
  HOLD_ORDER_TICKETS,
  HOLD_TICKET,
  type HoldParams,
  LOCK_EVENTS,
  SETTLE_ORDERS,
} from './tickets.cancellation.queries.ts';

/** Share-locks the events (by id) whose seats are given back or taken again, in one order. */
export async function lockEvents(tx: Queryable, eventIds: string[]): Promise<void> {
  if (eventIds.length > 0) await tx.query(LOCK_EVENTS, [eventIds]);
}

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
