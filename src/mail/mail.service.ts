import type { Principal } from '../accounts/authenticator.ts';
import { conflict, notFound, tooManyRequests } from '../common/errors.ts';
import type { Queryable, Sql } from '../db/sql.ts';
import {
  type EmailDelivery,
  HOLD_ORDER_FOR_RESEND,
  HOLD_TICKET_FOR_RESEND,
  MAIL_TICKETS,
} from './mail.queries.ts';
import { orderDelivery, queueLoneTicketCopy, queueOrderMail, ticketDelivery } from './outbox.ts';

/** Copies of an order's tickets mail that may be asked for within an hour. */
export const RESENDS_PER_HOUR = 5;

const ERASED = "The buyer's address was erased: nothing more is mailed";

const tooManyCopies = (freeInSeconds: number | null) =>
  tooManyRequests(
    `At most ${RESENDS_PER_HOUR} copies of a mail of tickets an hour; try again in ${freeInSeconds} seconds`,
    Math.max(1, freeInSeconds ?? 3600),
  );

async function resendOrderMail(tx: Queryable, viewer: Principal, orderId: string): Promise<EmailDelivery> {
  const [order] = await tx.query(HOLD_ORDER_FOR_RESEND, [orderId, viewer.role === 'staff', viewer.id]);
  if (!order) throw notFound('There is no order with that orderId');
  if (order.status !== 'confirmed')
    throw conflict(`The order is ${order.status}: only a confirmed order's tickets are sent`);
  if (order.erased) throw conflict(ERASED);
  if (order.resent >= RESENDS_PER_HOUR) throw tooManyCopies(order.freeInSeconds);
  await queueOrderMail(tx, orderId, true);
  return (await orderDelivery(tx, orderId))!;
}

/**
 * Queues a fresh copy of a confirmed order's tickets mail, for its owner or staff (anyone else: not found),
 * at most RESENDS_PER_HOUR an hour per order. Answers how the copy stands (pending).
 */
export function resendTickets(sql: Sql, viewer: Principal, orderId: string): Promise<EmailDelivery> {
  return sql.transaction((tx) => resendOrderMail(tx, viewer, orderId));
}

/**
 * The same for a ticket: a copy of its order's mail, or of its own for a ticket sold on its own (at most
 * RESENDS_PER_HOUR an hour); a cancelled ticket is not sent (conflict).
 */
export function resendTicket(sql: Sql, viewer: Principal, ticketId: string): Promise<EmailDelivery> {
  return sql.transaction(async (tx) => {
    const [ticket] = await tx.query(HOLD_TICKET_FOR_RESEND, [ticketId, viewer.role === 'staff', viewer.id]);
    if (!ticket) throw notFound('There is no ticket with that ticketId');
    if (ticket.orderId) return resendOrderMail(tx, viewer, ticket.orderId);
    if (ticket.cancelled) throw conflict('The ticket is cancelled: only a valid ticket is sent');
    if (ticket.erased) throw conflict(ERASED);
    if (ticket.resent >= RESENDS_PER_HOUR) throw tooManyCopies(ticket.freeInSeconds);
    await queueLoneTicketCopy(tx, ticketId);
    return (await ticketDelivery(tx, ticketId))!;
  });
}

export const mailTickets = (sql: Queryable, ticketIds: string[]) => sql.query(MAIL_TICKETS, [ticketIds]);
