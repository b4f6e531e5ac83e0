import type { Queryable } from '../db/sql.ts';
import type { MailKind } from './mail.entity.ts';
import {
  type EmailDelivery,
  MAIL_BACKLOG,
  type MailOutcome,
  NEXT_MAIL,
  ORDER_DELIVERY,
  QUEUE_GIVEN_BACK_MAIL,
  QUEUE_LONE_TICKET_COPY,
  QUEUE_ORDER_MAIL,
  QUEUE_OWED_MAIL,
  RECORD_MAIL,
  TAKE_DUE_MAIL,
  TICKET_DELIVERY,
} from './mail.queries.ts';

/** Queues the tickets mail of an order that is confirmed now (or a copy of it), in the caller's transaction. */
export async function queueOrderMail(tx: Queryable, orderId: string, copy = false): Promise<void> {
  await tx.query(QUEUE_ORDER_MAIL, [orderId, copy]);
}

/** Queues a copy of the tickets mail of a ticket sold on its own, in the caller's transaction. */
export async function queueLoneTicketCopy(tx: Queryable, ticketId: string): Promise<void> {
  await tx.query(QUEUE_LONE_TICKET_COPY, [ticketId]);
}

/** Queues the mail telling that `ticketIds` were given back (cancelled, or a hold that ran out). */
export async function queueGivenBackMail(
  tx: Queryable,
  ticketIds: string[],
  kind: Extract<MailKind, 'cancellation' | 'expired'>,
): Promise<void> {
  await tx.query(QUEUE_GIVEN_BACK_MAIL, [ticketIds, kind]);
}

/** Queues the owed mails of at most `limit` tickets sold on their own. */
export const queueOwedMail = (sql: Queryable, limit: number) => sql.query(QUEUE_OWED_MAIL, [limit]);

export const takeDueMail = (sql: Queryable, batch: number, leaseSeconds: number) =>
  sql.query(TAKE_DUE_MAIL, [batch, leaseSeconds]);

export const recordMail = (sql: Queryable, id: string, outcome: MailOutcome) =>
  sql.query(RECORD_MAIL, [
    id,
    outcome.status,
    outcome.status === 'sent' ? null : outcome.error.slice(0, 500),
    outcome.status === 'pending' ? outcome.retryInSeconds : 0,
  ]);

export async function nextMailInSeconds(sql: Queryable): Promise<number | null> {
  const [next] = await sql.query(NEXT_MAIL, []);
  return next?.seconds ?? null;
}

/** Mails not sent yet (owed, due or waiting for their next attempt): the outbox backlog metric. */
export async function mailBacklog(sql: Queryable): Promise<number> {
  const [row] = await sql.query(MAIL_BACKLOG, []);
  return Number(row?.count ?? 0);
}

export async function orderDelivery(sql: Queryable, orderId: string): Promise<EmailDelivery | null> {
  const [row] = await sql.query(ORDER_DELIVERY, [orderId]);
  return row ?? null;
}

export async function ticketDelivery(sql: Queryable, ticketId: string): Promise<EmailDelivery | null> {
  const [row] = await sql.query(TICKET_DELIVERY, [ticketId]);
  return row ?? null;
}
