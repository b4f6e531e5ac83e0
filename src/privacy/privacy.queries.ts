import type { Role } from '../accounts/account.entity.ts';
import { rfc3339, statement } from '../db/sql.ts';
import type { MailKind, MailStatus } from '../mail/mail.entity.ts';
import { MAIL_QUEUE_LOCK } from '../mail/mail.queries.ts';
import type { OrderStatus } from '../tickets/order.entity.ts';
import { TICKET_VIEW_COLUMNS, type TicketView } from '../tickets/tickets.views.queries.ts';
import type { PrivacyRequestKind, Requester } from './privacy.entity.ts';

// The privacy's SQL: the requests recorded and read (and the key their subjects are hashed with), an
// address's or account's data erased, the retention sweep, and a subject's data gathered for an export.

// The record of every export and erasure (docs/privacy.md): who asked, when, what was counted, and a keyed
// hash of the subject instead of the address.

/** What an export or erasure counted (for an erasure: what it removed the personal data from). */
export interface PrivacyCounts {
  orders: number;
  tickets: number;
  mails: number;
  idempotencyRecords: number;
  accounts: number;
}

export interface PrivacyRequestView {
  requestId: string;
  kind: PrivacyRequestKind;
  requestedBy: Requester;
  /** The account that asked; null for retention. */
  accountId: string | null;
  /** RFC 3339, UTC. */
  requestedAt: string;
  /** A retention run's museum day. */
  retentionDate: string | null;
  counts: PrivacyCounts;
}

export const STORED_KEY = statement<{ key: string }>(
  'privacy_key',
  'select key from privacy_key where id = 1',
);
export const NEW_KEY = statement<never, [key: string]>(
  'privacy_key_new',
  'insert into privacy_key (id, key) values (1, $1) on conflict (id) do nothing',
);

// ------------------------------------------------------------------------------------------------ records

export const REQUEST_COLUMNS = `r.id as "requestId", r.kind, r.requested_by as "requestedBy", r.account_id as "accountId",
  ${rfc3339('r.created_at')} as "requestedAt", to_char(r.retention_date, 'YYYY-MM-DD') as "retentionDate",
  json_build_object('orders', r.orders, 'tickets', r.tickets, 'mails', r.mails,
    'idempotencyRecords', r.idempotency_records, 'accounts', r.accounts) as counts`;

export const RECORD_REQUEST = statement<
  PrivacyRequestView,
  [
    kind: PrivacyRequestKind,
    requestedBy: Requester,
    accountId: string | null,
    subjectHash: string | null,
    orders: number,
    tickets: number,
    mails: number,
    idempotencyRecords: number,
    accounts: number,
  ]
>(
  'privacy_record_request',
  `insert into privacy_request as r (id, kind, requested_by, account_id, subject_hash, orders, tickets, mails,
     idempotency_records, accounts, created_at)
   values (gen_random_uuid(), $1, $2, $3::uuid, $4, $5::int, $6::int, $7::int, $8::int, $9::int, now())
   returning ${REQUEST_COLUMNS}`,
);

export const REQUESTS_PAGE = statement<
  PrivacyRequestView & { total: number },
  [subjectHash: string | null, limit: number, offset: number]
>(
  'privacy_requests_page',
  `select ${REQUEST_COLUMNS}, count(*) over ()::int as total
   from privacy_request r where $1::text is null or r.subject_hash = $1
   order by r.created_at desc, r.id desc limit $2::int offset $3::bigint`,
);

export const REQUESTS_ABOUT = statement<PrivacyRequestView, [subjectHash: string]>(
  'privacy_requests_about',
  `select ${REQUEST_COLUMNS} from privacy_request r where r.subject_hash = $1 order by r.created_at, r.id`,
);

// Erasure, on request and after the retention period (docs/privacy.md): the personal data goes in one
// transaction, the rows and the sales report stay, and the request is recorded (privacy.requests.ts).

// What an erasure does to a mail of the subject: the address goes, and a mail not sent yet never will be.
const FORGET_RECIPIENT = `recipient = null,
  last_error = case when status = 'pending' then 'the address was erased' else last_error end,
  next_attempt_at = case when status = 'pending' then null else next_attempt_at end,
  status = case when status = 'pending' then 'failed' else status end`;

const erasureCounts = `(select count(*) from orders)::int as orders, (select count(*) from tickets)::int as tickets,
  (select count(*) from mails)::int as mails, (select count(*) from keys)::int as "idempotencyRecords",
  coalesce((select array_agg(id) from mails), '{}') as "mailIds"`;

export type Erased = Omit<PrivacyCounts, 'accounts'> & { mailIds: string[] };

// An address: from tickets (valid ones stay valid, owing no more mail), orders, the outbox, and the
// idempotency records whose stored answer names it (a replay would then run the request again).
export const ERASE_EMAIL = statement<Erased, [email: string]>(
  'privacy_erase_email',
  `with tickets as (
     update ticket set email = null, mail_owed = false where lower(email) = lower($1) returning id),
   orders as (update ticket_order set email = null where lower(email) = lower($1) returning id),
   mails as (update mail set ${FORGET_RECIPIENT} where lower(recipient) = lower($1) returning id),
   keys as (
     delete from idempotency_record where strpos(lower(response::text), lower($1)) > 0 returning 1)
   select ${erasureCounts}`,
);

// An account's: its tickets' and orders' addresses and their mails, and its idempotency records.
export const ERASE_ACCOUNT_DATA = statement<Erased, [accountId: string]>(
  'privacy_erase_account_data',
  `with tickets as (
     update ticket set email = null, mail_owed = false where account_id = $1::uuid and email is not null
     returning id),
   orders as (
     update ticket_order set email = null where account_id = $1::uuid and email is not null returning id),
   mails as (
     update mail m set ${FORGET_RECIPIENT}
     where m.recipient is not null
       and (m.order_id in (select o.id from ticket_order o where o.account_id = $1::uuid)
            or m.ticket_ids && array(select t.id from ticket t where t.account_id = $1::uuid))
     returning m.id),
   keys as (delete from idempotency_record where account_id = $1::uuid returning 1)
   select ${erasureCounts}`,
);

// Retention: tickets whose visit is before $1, orders whose last visit is, and their mails.
export const ERASE_BEFORE = statement<Erased, [before: string]>(
  'privacy_erase_before',
  `with tickets as (
     update ticket set email = null, mail_owed = false where ticket_date < $1::date and email is not null
     returning id),
   orders as (
     update ticket_order o set email = null
     where o.email is not null and (select max(t.ticket_date) from ticket t where t.order_id = o.id) < $1::date
     returning id),
   mails as (
     update mail m set ${FORGET_RECIPIENT}
     where m.recipient is not null
       and (m.order_id in (select id from orders)
            or (m.order_id is null and m.ticket_ids[1] in (select id from tickets)))
     returning m.id),
   keys as (select 1 where false)
   select ${erasureCounts}`,
);

// No owed mail is queued from a ticket while its address is erased (src/mail/outbox.ts; MAIL_QUEUE_LOCK).
export const HOLD_MAIL_QUEUE = statement(
  'privacy_hold_mail_queue',
  `select pg_advisory_xact_lock(${MAIL_QUEUE_LOCK})`,
);

export const STAFF_LEFT = statement<{ count: number }, [accountId: string]>(
  'privacy_staff_left',
  `select count(*)::int as count from account where role = 'staff' and id <> $1::uuid`,
);
export const DELETE_ACCOUNT = statement<never, [accountId: string]>(
  'privacy_delete_account',
  'delete from account where id = $1::uuid',
);

// One retention run a museum day, whichever instance gets there first: the unique day orders them.
export const CLAIM_RETENTION_DAY = statement<{ id: string }, [retentionDate: string]>(
  'privacy_claim_retention_day',
  `insert into privacy_request (id, kind, requested_by, retention_date, created_at)
   values (gen_random_uuid(), 'retention', 'retention', $1::date, now())
   on conflict (retention_date) do nothing returning id`,
);
// The first run over years of visits may take longer than any request may (REQUEST_TIMEOUT_MS); a run cut
// short would be tried again, and cut again, every day.
export const WITHOUT_STATEMENT_TIMEOUT = statement(
  'privacy_without_statement_timeout',
  'set local statement_timeout = 0',
);
export const RECORD_RETENTION = statement<
  PrivacyRequestView,
  [requestId: string, orders: number, tickets: number, mails: number]
>(
  'privacy_record_retention',
  `update privacy_request r set orders = $2::int, tickets = $3::int, mails = $4::int where r.id = $1::uuid
   returning ${REQUEST_COLUMNS}`,
);

// Exports of what is held about a buyer's address or an account (docs/privacy.md), each recorded
// (privacy.requests.ts). Addresses are matched case-insensitively: `Todd@Example.com` and `todd@example.com` are one buyer. No index
// serves that (one would cost every sale): an export or erasure reads the tables through, which is what a
// rare staff request may cost.

export interface PersonalTicket extends TicketView {
  orderId: string | null;
  email: string | null;
  createdAt: string;
  cancelledAt: string | null;
}

export interface PersonalOrder {
  orderId: string;
  email: string | null;
  status: OrderStatus;
  createdAt: string;
  /** Hundredths of the currency: what its tickets cost. */
  totalMinor: number;
  ticketIds: string[];
}

export interface PersonalMail {
  mailId: string;
  kind: MailKind;
  orderId: string | null;
  ticketIds: string[];
  recipient: string | null;
  status: MailStatus;
  attempts: number;
  createdAt: string;
  lastAttemptAt: string | null;
  sentAt: string | null;
}

/** Everything held about an address (staff's export) or an account (its holder's). */
export interface PersonalData {
  exportedAt: string;
  email: string | null;
  account: { accountId: string; name: string; role: Role; createdAt: string } | null;
  orders: PersonalOrder[];
  tickets: PersonalTicket[];
  mails: PersonalMail[];
  /** The requests recorded before this one about the same address or account: earlier exports and erasures. */
  privacyRequests: PrivacyRequestView[];
}

// ------------------------------------------------------------------------------------------ the subject hash

/** The statements of an export, for a subject given as `$1`: an address (`byEmail`) or an account id. */
export function exportStatements(subject: 'email' | 'account') {
  const ticketOf = subject === 'email' ? 'lower(t.email) = lower($1)' : 't.account_id = $1::uuid';
  const orderOf = subject === 'email' ? 'lower(o.email) = lower($1)' : 'o.account_id = $1::uuid';
  // An account's mails are those of its orders and tickets; an address's, those sent to it.
  const mailOf =
    subject === 'email'
      ? 'lower(m.recipient) = lower($1)'
      : `(m.order_id in (select o.id from ticket_order o where ${orderOf})
          or m.ticket_ids && array(select t.id from ticket t where ${ticketOf}))`;
  return {
    tickets: statement<Omit<PersonalTicket, 'message'>, [subject: string]>(
      `privacy_export_tickets_by_${subject}`,
      `select ${TICKET_VIEW_COLUMNS}, t.order_id as "orderId", t.email, ${rfc3339('t.created_at')} as "createdAt",
              ${rfc3339('t.cancelled_at')} as "cancelledAt"
       from ticket t left join special_event e on e.id = t.event_id
       where ${ticketOf} order by t.created_at, t.id`,
    ),
    orders: statement<PersonalOrder, [subject: string]>(
      `privacy_export_orders_by_${subject}`,
      `select o.id as "orderId", o.email, o.status, ${rfc3339('o.created_at')} as "createdAt",
              (select coalesce(sum(t.price), 0)::int from ticket t where t.order_id = o.id) as "totalMinor",
              array(select t.id from ticket t where t.order_id = o.id order by t.order_position) as "ticketIds"
       from ticket_order o where ${orderOf} order by o.created_at, o.id`,
    ),
    // A mail still owed by a ticket sold on its own (ticket.mail_owed) is shown as the pending mail it is.
    mails: statement<PersonalMail, [subject: string]>(
      `privacy_export_mails_by_${subject}`,
      `select * from (
         select m.id as "mailId", m.kind, m.order_id as "orderId", m.ticket_ids as "ticketIds", m.recipient,
                m.status, m.attempts, ${rfc3339('m.created_at')} as "createdAt",
                ${rfc3339('m.last_attempt_at')} as "lastAttemptAt", ${rfc3339('m.sent_at')} as "sentAt"
         from mail m where ${mailOf}
         union all
         select t.id, 'tickets', null, array[t.id], t.email, 'pending', 0, ${rfc3339('t.created_at')}, null, null
         from ticket t where t.mail_owed and ${ticketOf}
       ) mails order by "createdAt", "mailId"`,
    ),
  };
}

export const BY_EMAIL = exportStatements('email');
export const BY_ACCOUNT = exportStatements('account');

export const ACCOUNT_ROW = statement<NonNullable<PersonalData['account']>, [accountId: string]>(
  'privacy_account',
  `select id as "accountId", name, role, ${rfc3339('created_at')} as "createdAt" from account where id = $1::uuid`,
);
