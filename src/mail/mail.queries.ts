import { rfc3339, statement } from '../db/sql.ts';
import type { MailKind, MailStatus } from './mail.entity.ts';

// The mail's SQL: the outbox (mails queued with the writes that owe them, taken by the worker, their outcome
// recorded), a mail's delivery as its order or ticket shows it, and what a resend holds and reads.

// The mail outbox (the `mail` table). Rows are written by the transactions that confirm, give back or refund
// (each with what it tells of), and taken by the mail worker (src/mail/mailer.ts), once per instance that holds
// its row: `for update skip locked`, then a lease on `next_attempt_at`. A ticket sold on its own owes its mail
// as a flag (`ticket.mail_owed`, set by the sale's own insert), which the worker turns into the mail's row,
// with the ticket's id, as it goes: so a sale writes one row.

export const NEW_MAIL = `insert into mail (id, kind, order_id, ticket_ids, recipient, amount, resent, status,
                                    next_attempt_at, created_at)`;

// The tickets mail of order $1, naming its tickets that still hold a place; $2: a copy asked for.
export const QUEUE_ORDER_MAIL = statement<never, [orderId: string, copy: boolean]>(
  'mail_queue_order',
  `${NEW_MAIL}
   select gen_random_uuid(), 'tickets', o.id,
          array(select t.id from ticket t where t.order_id = o.id and t.cancelled_at is null order by t.order_position),
          o.email, null, $2::boolean, 'pending', now(), now()
   from ticket_order o where o.id = $1::uuid and o.email is not null`,
);

export const QUEUE_LONE_TICKET_COPY = statement<never, [ticketId: string]>(
  'mail_queue_lone_ticket_copy',
  `${NEW_MAIL}
   select gen_random_uuid(), 'tickets', null, array[t.id], t.email, null, true, 'pending', now(), now()
   from ticket t where t.id = $1::uuid and t.email is not null`,
);

// Tickets given back ($1) in one change: a mail per order (or per ticket sold on its own) of kind $2. Nothing
// is queued for an address that was erased (here and above).
export const QUEUE_GIVEN_BACK_MAIL = statement<
  never,
  [ticketIds: string[], kind: Extract<MailKind, 'cancellation' | 'expired'>]
>(
  'mail_queue_given_back',
  `${NEW_MAIL}
   select gen_random_uuid(), $2, t.order_id, array_agg(t.id order by t.order_position, t.id), min(t.email), null,
          false, 'pending', now(), now()
   from ticket t where t.id = any($1::uuid[]) and t.email is not null
   group by t.order_id, case when t.order_id is null then t.id end`,
);

/**
 * Held exclusively by an erasure (src/privacy/privacy.service.ts), shared by each queueing of owed mails: an
 * erasure's statements then see every mail queued from a ticket before it, and none is queued from a ticket
 * while an erasure runs (its address would be copied past the erasure).
 */
export const MAIL_QUEUE_LOCK = 0x6d61696c;

// At most $1 tickets sold on their own whose mail is owed, oldest first, become their mails' rows (the
// ticket's id: a row already there is left as it is). Tickets another worker is turning are skipped, and
// nothing is queued while an erasure holds MAIL_QUEUE_LOCK (tried once, before the scan: the next round
// queues them, with the address as the erasure left it).
export const QUEUE_OWED_MAIL = statement<never, [limit: number]>(
  'mail_worker_queue_owed',
  `with owed as (
     select id from ticket where mail_owed and (select pg_try_advisory_xact_lock_shared(${MAIL_QUEUE_LOCK}))
     order by created_at limit $1::int for update skip locked),
   queued as (
     update ticket t set mail_owed = false from owed where t.id = owed.id returning t.id, t.email, t.created_at)
   ${NEW_MAIL}
   select id, 'tickets', null, array[id], email, null, false, 'pending', created_at, created_at from queued
   on conflict (id) do nothing`,
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

// Mails due: rows another worker holds are skipped; each taken row's next attempt moves a lease ahead.
export const TAKE_DUE_MAIL = statement<DueMail, [batch: number, leaseSeconds: number]>(
  'mail_worker_take_due',
  `update mail m set attempts = m.attempts + 1, last_attempt_at = now(),
     next_attempt_at = now() + make_interval(secs => $2::float8)
   where m.id in (
     select id from mail where status = 'pending' and next_attempt_at <= now()
     order by next_attempt_at limit $1::int for update skip locked)
   returning m.id, m.kind, m.order_id as "orderId", m.ticket_ids as "ticketIds", m.recipient, m.amount,
             m.attempts, ${rfc3339('m.created_at')} as "createdAt"`,
);

export type MailOutcome =
  | { status: 'sent' }
  | { status: 'failed'; error: string }
  | { status: 'pending'; error: string; retryInSeconds: number };

// Only a mail still pending is recorded: one given up meanwhile stays as it is.
export const RECORD_MAIL = statement<
  never,
  [id: string, status: MailOutcome['status'], error: string | null, retryInSeconds: number]
>(
  'mail_worker_record',
  `update mail set status = $2, last_error = $3,
     sent_at = case when $2 = 'sent' then now() end,
     next_attempt_at = case when $2 = 'pending' then now() + make_interval(secs => $4::float8) end
   where id = $1::uuid and status = 'pending'`,
);

export const NEXT_MAIL = statement<{ seconds: number | null }>(
  'mail_worker_next_due',
  `select case when exists (select from ticket where mail_owed) then 0
          else (select extract(epoch from min(next_attempt_at) - now())::float8 from mail where status = 'pending')
          end as seconds`,
);

export const MAIL_BACKLOG = statement<{ count: string }>(
  'mail_backlog',
  `select (select count(*) from mail where status = 'pending') + (select count(*) from ticket where mail_owed)
          as count`,
);

/** How the last tickets mail of an order (or of a ticket sold on its own) fared. */
export interface EmailDelivery {
  status: MailStatus;
  attempts: number;
  /** RFC 3339, UTC; null before the first attempt. */
  lastAttemptAt: string | null;
  lastError: string | null;
}

const MAIL_DELIVERY = 'status, attempts, last_attempt_at, last_error, created_at, id';
const DELIVERY_COLUMNS = `status, attempts, ${rfc3339('last_attempt_at')} as "lastAttemptAt",
  last_error as "lastError"`;

export const ORDER_DELIVERY = statement<EmailDelivery, [orderId: string]>(
  'mail_order_delivery',
  `select ${DELIVERY_COLUMNS} from mail where order_id = $1::uuid and kind = 'tickets'
   order by created_at desc, id limit 1`,
  { mayBeStale: true },
);

// A ticket's: its order's, or for a ticket sold on its own, its own (the ticket's id; pending while owed) or a
// copy of it.
export const TICKET_DELIVERY = statement<EmailDelivery, [ticketId: string]>(
  'mail_ticket_delivery',
  `select ${DELIVERY_COLUMNS} from (
     select ${MAIL_DELIVERY} from mail
     where kind = 'tickets' and order_id = (select order_id from ticket where id = $1::uuid)
     union all
     select 'pending', 0, null, null, created_at, id from ticket where id = $1::uuid and mail_owed
     union all
     select ${MAIL_DELIVERY} from mail where id = $1::uuid and order_id is null
     union all
     select ${MAIL_DELIVERY} from mail where resent and order_id is null and ticket_ids[1] = $1::uuid
   ) mail
   order by created_at desc, id limit 1`,
  { mayBeStale: true },
);

/** What decides whether a copy may be sent: the buyer's data erased, the copies of the last hour. */
interface ResendWindow {
  erased: boolean;
  resent: number;
  freeInSeconds: number | null;
}

interface OrderForResend extends ResendWindow {
  status: string;
}

// Owner or staff ($2) only; the lock orders concurrent requests for copies of one order, so the limit holds.
export const HOLD_ORDER_FOR_RESEND = statement<
  OrderForResend,
  [orderId: string, anyOrder: boolean, accountId: string]
>(
  'mail_hold_order_for_resend',
  `select o.status, o.email is null as erased,
          (select count(*)::int from mail m
           where m.order_id = o.id and m.resent and m.created_at > now() - interval '1 hour') as resent,
          (select ceil(extract(epoch from min(m.created_at) + interval '1 hour' - now()))::int from mail m
           where m.order_id = o.id and m.resent and m.created_at > now() - interval '1 hour') as "freeInSeconds"
   from ticket_order o where o.id = $1::uuid and ($2::boolean or o.account_id = $3::uuid)
   for update of o`,
);

interface TicketForResend extends ResendWindow {
  orderId: string | null;
  cancelled: boolean;
  awaitingPayment: boolean;
}

// A ticket of the viewer's ($2: staff, anyone's), locked as its order is above, with the copies of its own
// mail (a ticket sold on its own) asked for in the last hour.
export const HOLD_TICKET_FOR_RESEND = statement<
  TicketForResend,
  [ticketId: string, anyTicket: boolean, accountId: string]
>(
  'mail_hold_ticket_for_resend',
  `select t.order_id as "orderId", t.cancelled_at is not null as cancelled, t.awaiting_payment as "awaitingPayment",
          t.email is null as erased,
          (select count(*)::int from mail m where m.order_id is null and m.ticket_ids[1] = t.id and m.resent
             and m.created_at > now() - interval '1 hour') as resent,
          (select ceil(extract(epoch from min(m.created_at) + interval '1 hour' - now()))::int from mail m
           where m.order_id is null and m.ticket_ids[1] = t.id and m.resent
             and m.created_at > now() - interval '1 hour') as "freeInSeconds"
   from ticket t where t.id = $1::uuid and ($2::boolean or t.account_id = $3::uuid)
   for update of t`,
);

/** What a mail tells of each ticket: as it is when the mail is sent. */
export interface MailTicket {
  ticketId: string;
  ticketType: 'general' | 'event';
  ticketDate: string;
  /** A timed ticket's entry slot ('HH:MM'), else null. */
  entryTime: string | null;
  entryEnd: string | null;
  /** The museum's hours that day ('HH:MM'); null when closed. */
  timeOpen: string | null;
  timeClose: string | null;
  eventName: string | null;
  category: string;
  price: number;
  confirmationCode: string;
  cancelled: boolean;
  /** Called off by the museum (rather than given back by its buyer), and why, when staff said. */
  calledOff: boolean;
  cancellationReason: string | null;
  /** Its order was paid through Stripe: a ticket given back is refunded. */
  paid: boolean;
  /** It was held for an order that was never paid (it may have been given back meanwhile). */
  awaitingPayment: boolean;
  /** Its order still waits for payment (and holds its other tickets), until `holdEndsAt` (RFC 3339). */
  orderPending: boolean;
  holdEndsAt: string | null;
}

// In the order of $1, each with its day's opening hours (its own, else its weekday's).
export const MAIL_TICKETS = statement<MailTicket, [ticketIds: string[]]>(
  'mail_worker_tickets',
  `select t.id as "ticketId", t.ticket_type as "ticketType", to_char(t.ticket_date, 'YYYY-MM-DD') as "ticketDate",
          to_char(t.entry_time, 'HH24:MI') as "entryTime", to_char(t.entry_end, 'HH24:MI') as "entryEnd",
          to_char(h.time_open, 'HH24:MI') as "timeOpen", to_char(h.time_close, 'HH24:MI') as "timeClose",
          e.name as "eventName", t.category, t.price, t.confirmation_code as "confirmationCode",
          t.cancelled_at is not null as cancelled, t.cancelled_by is not distinct from 'museum' as "calledOff",
          t.cancellation_reason as "cancellationReason", o.payment_intent is not null as paid,
          t.awaiting_payment as "awaitingPayment",
          o.status is not distinct from 'pending' as "orderPending", ${rfc3339('o.expires_at')} as "holdEndsAt"
   from unnest($1::uuid[]) with ordinality as wanted(id, place)
   join ticket t on t.id = wanted.id
   left join special_event e on e.id = t.event_id
   left join ticket_order o on o.id = t.order_id
   left join lateral (
     select o.time_open, o.time_close from day_hours o where o.date = t.ticket_date
     union all
     select w.time_open, w.time_close from weekly_hours w
     where w.weekday = extract(isodow from t.ticket_date)
       and not exists (select from day_hours o where o.date = t.ticket_date)
   ) h on true
   order by wanted.place`,
);

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
     from ${refunded} r join ticket_order o on o.id = r.order_id where o.email is not null)`;
