import { type Queryable, rfc3339, statement } from '../db/sql.ts';
import type { MailKind, MailStatus } from './mail.entity.ts';

// The mail outbox (the `mail` table). Rows are written by the transactions that sell, confirm, give back or
// refund (each with what it tells of), and taken by the mail worker (src/mail/mailer.ts), once per instance
// that holds its row: `for update skip locked`, then a lease on `next_attempt_at`.

const NEW_MAIL = `insert into mail (id, kind, order_id, ticket_ids, recipient, amount, resent, status,
                                    next_attempt_at, created_at)`;

/**
 * A CTE of the sale statements (src/tickets/sale.queries.ts): the tickets mail of a ticket sold on its own
 * ($6, its order, is null: an order's mail is queued once the order is confirmed), from the CTE `bought`.
 * $4 is the buyer's address. The mail has the ticket's id, which finds it: no index of its own to update in
 * the sale (copies asked for later have ids of their own, and an index).
 */
export const mailLoneTicket = (bought: string) => `mailed as (
     ${NEW_MAIL}
     select ${bought}.id, 'tickets', null, array[${bought}.id], $4, null, false, 'pending', now(), now()
     from ${bought} where $6::uuid is null)`;

// The tickets mail of order $1, naming its tickets that still hold a place; $2: a copy asked for.
const QUEUE_ORDER_MAIL = statement(
  'mail_queue_order',
  `${NEW_MAIL}
   select gen_random_uuid(), 'tickets', o.id,
          array(select t.id from ticket t where t.order_id = o.id and t.cancelled_at is null order by t.order_position),
          o.email, null, $2::boolean, 'pending', now(), now()
   from ticket_order o where o.id = $1::uuid`,
);

/** Queues the tickets mail of an order that is confirmed now (or a copy of it), in the caller's transaction. */
export async function queueOrderMail(tx: Queryable, orderId: string, copy = false): Promise<void> {
  await tx.query(QUEUE_ORDER_MAIL, [orderId, copy]);
}

const QUEUE_LONE_TICKET_COPY = statement(
  'mail_queue_lone_ticket_copy',
  `${NEW_MAIL}
   select gen_random_uuid(), 'tickets', null, array[t.id], t.email, null, true, 'pending', now(), now()
   from ticket t where t.id = $1::uuid`,
);

/** Queues a copy of the tickets mail of a ticket sold on its own, in the caller's transaction. */
export async function queueLoneTicketCopy(tx: Queryable, ticketId: string): Promise<void> {
  await tx.query(QUEUE_LONE_TICKET_COPY, [ticketId]);
}

// Tickets given back ($1) in one change: a mail per order (or per ticket sold on its own) of kind $2.
const QUEUE_GIVEN_BACK_MAIL = statement(
  'mail_queue_given_back',
  `${NEW_MAIL}
   select gen_random_uuid(), $2, t.order_id, array_agg(t.id order by t.order_position, t.id), min(t.email), null,
          false, 'pending', now(), now()
   from ticket t where t.id = any($1::uuid[])
   group by t.order_id, case when t.order_id is null then t.id end`,
);

/** Queues the mail telling that `ticketIds` were given back (cancelled, or a hold that ran out). */
export async function queueGivenBackMail(
  tx: Queryable,
  ticketIds: string[],
  kind: Extract<MailKind, 'cancellation' | 'expired'>,
): Promise<void> {
  await tx.query(QUEUE_GIVEN_BACK_MAIL, [ticketIds, kind]);
}

/**
 * A CTE of recording a refund (src/payments/refunds.ts): the refund mail of the CTE `refunded` (its order
 * and amount), naming the order's tickets given back.
 */
export const mailRefund = (refunded: string) => `mailed as (
     ${NEW_MAIL}
     select gen_random_uuid(), 'refund', o.id,
            array(select t.id from ticket t where t.order_id = o.id and t.cancelled_at is not null
                  order by t.order_position),
            o.email, r.amount, false, 'pending', now(), now()
     from ${refunded} r join ticket_order o on o.id = r.order_id)`;

// Mails due: rows another worker holds are skipped; each taken row's next attempt moves a lease ahead.
const TAKE_DUE_MAIL = statement(
  'mail_worker_take_due',
  `update mail m set attempts = m.attempts + 1, last_attempt_at = now(),
     next_attempt_at = now() + make_interval(secs => $2::float8)
   where m.id in (
     select id from mail where status = 'pending' and next_attempt_at <= now()
     order by next_attempt_at limit $1::int for update skip locked)
   returning m.id, m.kind, m.order_id as "orderId", m.ticket_ids as "ticketIds", m.recipient, m.amount,
             m.attempts, ${rfc3339('m.created_at')} as "createdAt"`,
);

export interface DueMail {
  id: string;
  kind: MailKind;
  orderId: string | null;
  ticketIds: string[];
  /** Null once erased: nothing is sent. */
  recipient: string | null;
  amount: number | null;
  attempts: number;
  createdAt: string;
}

export const takeDueMail = (sql: Queryable, batch: number, leaseSeconds: number) =>
  sql.query<DueMail>(TAKE_DUE_MAIL, [batch, leaseSeconds]);

// Only a mail still pending is recorded: one given up meanwhile stays as it is.
const RECORD_MAIL = statement(
  'mail_worker_record',
  `update mail set status = $2, last_error = $3,
     sent_at = case when $2 = 'sent' then now() end,
     next_attempt_at = case when $2 = 'pending' then now() + make_interval(secs => $4::float8) end
   where id = $1::uuid and status = 'pending'`,
);

export type MailOutcome =
  | { status: 'sent' }
  | { status: 'failed'; error: string }
  | { status: 'pending'; error: string; retryInSeconds: number };

export const recordMail = (sql: Queryable, id: string, outcome: MailOutcome) =>
  sql.query(RECORD_MAIL, [
    id,
    outcome.status,
    outcome.status === 'sent' ? null : outcome.error.slice(0, 500),
    outcome.status === 'pending' ? outcome.retryInSeconds : 0,
  ]);

const NEXT_MAIL = statement(
  'mail_worker_next_due',
  `select extract(epoch from min(next_attempt_at) - now())::float8 as seconds from mail where status = 'pending'`,
);

export async function nextMailInSeconds(sql: Queryable): Promise<number | null> {
  const [next] = await sql.query<{ seconds: number | null }>(NEXT_MAIL, []);
  return next?.seconds ?? null;
}

const MAIL_BACKLOG = statement(
  'mail_backlog',
  `select count(*)::int as count from mail where status = 'pending'`,
);

/** Mails not sent yet (due or waiting for their next attempt): the outbox backlog metric. */
export async function mailBacklog(sql: Queryable): Promise<number> {
  const [row] = await sql.query<{ count: number }>(MAIL_BACKLOG, []);
  return row?.count ?? 0;
}

/** How the last tickets mail of an order (or of a ticket sold on its own) fared. */
export interface EmailDelivery {
  status: MailStatus;
  attempts: number;
  /** RFC 3339, UTC; null before the first attempt. */
  lastAttemptAt: string | null;
  lastError: string | null;
}

const DELIVERY_COLUMNS = `status, attempts, ${rfc3339('last_attempt_at')} as "lastAttemptAt",
  last_error as "lastError"`;

const ORDER_DELIVERY = statement(
  'mail_order_delivery',
  `select ${DELIVERY_COLUMNS} from mail where order_id = $1::uuid and kind = 'tickets'
   order by created_at desc, id limit 1`,
  { mayBeStale: true },
);

// A ticket's: its order's, or for a ticket sold on its own, its own (the ticket's id) or a copy of it.
const TICKET_DELIVERY = statement(
  'mail_ticket_delivery',
  `select ${DELIVERY_COLUMNS} from (
     select m.* from ticket t join mail m on m.order_id = t.order_id where t.id = $1::uuid and m.kind = 'tickets'
     union all
     select m.* from mail m where m.id = $1::uuid and m.order_id is null
     union all
     select m.* from mail m where m.resent and m.order_id is null and m.ticket_ids[1] = $1::uuid
   ) mail
   order by created_at desc, id limit 1`,
  { mayBeStale: true },
);

export async function orderDelivery(sql: Queryable, orderId: string): Promise<EmailDelivery | null> {
  const [row] = await sql.query<EmailDelivery>(ORDER_DELIVERY, [orderId]);
  return row ?? null;
}

export async function ticketDelivery(sql: Queryable, ticketId: string): Promise<EmailDelivery | null> {
  const [row] = await sql.query<EmailDelivery>(TICKET_DELIVERY, [ticketId]);
  return row ?? null;
}
