import { createHmac, randomBytes } from 'node:crypto';
import type { Role } from '../accounts/account.entity.ts';
import type { Principal } from '../accounts/authenticator.ts';
import { addDays } from '../common/dates.ts';
import { conflict } from '../common/errors.ts';
import type { ListPage, Page } from '../common/pagination.ts';
import { offsetOf } from '../common/pagination.ts';
import { type Queryable, rfc3339, type Sql, statement } from '../db/sql.ts';
import type { MailKind, MailStatus } from '../mail/mail.entity.ts';
import type { OrderStatus } from '../orders/order.entity.ts';
import { TICKET_VIEW_COLUMNS, type TicketView, toTicketView } from '../tickets/ticket-view.ts';
import type { PrivacyRequestKind, Requester } from './privacy.entity.ts';

// Personal data of buyers and account holders (docs/privacy.md): exported, erased on request or after the
// retention period, each request recorded with a keyed hash of its subject instead of the address.
// Addresses are matched case-insensitively: `Todd@Example.com` and `todd@example.com` are one buyer. No index
// serves that (one would cost every sale): an export or erasure reads the tables through, which is what a
// rare staff request may cost.

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

const STORED_KEY = statement('privacy_key', 'select key from privacy_key where id = 1');
const NEW_KEY = statement(
  'privacy_key_new',
  'insert into privacy_key (id, key) values (1, $1) on conflict (id) do nothing',
);

const keys = new WeakMap<Sql, Promise<string>>();

/** The key of subject hashes: MUSEUM_PRIVACY_KEY, else one made once per database and kept in it. */
function privacyKey(sql: Sql, configured: string | null): Promise<string> {
  if (configured) return Promise.resolve(configured);
  let key = keys.get(sql);
  if (!key) {
    key = (async () => {
      await sql.query(NEW_KEY, [randomBytes(32).toString('base64url')]);
      const [row] = await sql.query<{ key: string }>(STORED_KEY, []);
      return row!.key;
    })();
    key.catch(() => keys.delete(sql));
    keys.set(sql, key);
  }
  return key;
}

/** HMAC-SHA256 of an address (or account name), trimmed and lowercased: the same buyer, the same hash. */
export async function subjectHash(sql: Sql, configuredKey: string | null, subject: string): Promise<string> {
  const key = await privacyKey(sql, configuredKey);
  return createHmac('sha256', key).update(subject.trim().toLowerCase()).digest('hex');
}

// ------------------------------------------------------------------------------------------------ records

const REQUEST_COLUMNS = `r.id as "requestId", r.kind, r.requested_by as "requestedBy", r.account_id as "accountId",
  ${rfc3339('r.created_at')} as "requestedAt", to_char(r.retention_date, 'YYYY-MM-DD') as "retentionDate",
  json_build_object('orders', r.orders, 'tickets', r.tickets, 'mails', r.mails,
    'idempotencyRecords', r.idempotency_records, 'accounts', r.accounts) as counts`;

const RECORD_REQUEST = statement(
  'privacy_record_request',
  `insert into privacy_request as r (id, kind, requested_by, account_id, subject_hash, orders, tickets, mails,
     idempotency_records, accounts, created_at)
   values (gen_random_uuid(), $1, $2, $3::uuid, $4, $5::int, $6::int, $7::int, $8::int, $9::int, now())
   returning ${REQUEST_COLUMNS}`,
);

async function recordRequest(
  tx: Queryable,
  kind: PrivacyRequestKind,
  by: { requestedBy: Requester; accountId: string | null },
  hash: string | null,
  counts: PrivacyCounts,
): Promise<PrivacyRequestView> {
  const [row] = await tx.query<PrivacyRequestView>(RECORD_REQUEST, [
    kind,
    by.requestedBy,
    by.accountId,
    hash,
    counts.orders,
    counts.tickets,
    counts.mails,
    counts.idempotencyRecords,
    counts.accounts,
  ]);
  return row!;
}

const REQUESTS_PAGE = statement(
  'privacy_requests_page',
  `select ${REQUEST_COLUMNS}, count(*) over ()::int as total
   from privacy_request r where $1::text is null or r.subject_hash = $1
   order by r.created_at desc, r.id desc limit $2::int offset $3::int`,
);

const REQUESTS_ABOUT = statement(
  'privacy_requests_about',
  `select ${REQUEST_COLUMNS} from privacy_request r where r.subject_hash = $1 order by r.created_at, r.id`,
);

/** The record of requests, newest first; with `email`, those about that address only (by its hash). */
export async function listPrivacyRequests(
  sql: Sql,
  configuredKey: string | null,
  email: string | null,
  page: Page,
): Promise<ListPage<PrivacyRequestView>> {
  const hash = email === null ? null : await subjectHash(sql, configuredKey, email);
  const rows = await sql.query<PrivacyRequestView & { total: number }>(REQUESTS_PAGE, [
    hash,
    page.limit,
    offsetOf(page),
  ]);
  return { items: rows.map(({ total: _total, ...row }) => row), total: rows[0]?.total ?? 0 };
}

// ------------------------------------------------------------------------------------------------ exports

/** The statements of an export, for a subject given as `$1`: an address (`byEmail`) or an account id. */
function exportStatements(subject: 'email' | 'account') {
  const ticketOf = subject === 'email' ? 'lower(t.email) = lower($1)' : 't.account_id = $1::uuid';
  const orderOf = subject === 'email' ? 'lower(o.email) = lower($1)' : 'o.account_id = $1::uuid';
  // An account's mails are those of its orders and tickets; an address's, those sent to it.
  const mailOf =
    subject === 'email'
      ? 'lower(m.recipient) = lower($1)'
      : `(m.order_id in (select o.id from ticket_order o where ${orderOf})
          or m.ticket_ids && array(select t.id from ticket t where ${ticketOf}))`;
  return {
    tickets: statement(
      `privacy_export_tickets_by_${subject}`,
      `select ${TICKET_VIEW_COLUMNS}, t.order_id as "orderId", t.email, ${rfc3339('t.created_at')} as "createdAt",
              ${rfc3339('t.cancelled_at')} as "cancelledAt"
       from ticket t left join special_event e on e.id = t.event_id
       where ${ticketOf} order by t.created_at, t.id`,
    ),
    orders: statement(
      `privacy_export_orders_by_${subject}`,
      `select o.id as "orderId", o.email, o.status, ${rfc3339('o.created_at')} as "createdAt",
              (select coalesce(sum(t.price), 0)::int from ticket t where t.order_id = o.id) as "totalMinor",
              array(select t.id from ticket t where t.order_id = o.id order by t.order_position) as "ticketIds"
       from ticket_order o where ${orderOf} order by o.created_at, o.id`,
    ),
    // A mail still owed by a ticket sold on its own (ticket.mail_owed) is shown as the pending mail it is.
    mails: statement(
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

const BY_EMAIL = exportStatements('email');
const BY_ACCOUNT = exportStatements('account');

const ACCOUNT_ROW = statement(
  'privacy_account',
  `select id as "accountId", name, role, ${rfc3339('created_at')} as "createdAt" from account where id = $1::uuid`,
);

async function gather(
  tx: Queryable,
  statements: ReturnType<typeof exportStatements>,
  subject: string,
): Promise<Pick<PersonalData, 'orders' | 'tickets' | 'mails'>> {
  const [orders, tickets, mails] = await Promise.all([
    tx.query<PersonalOrder>(statements.orders, [subject]),
    tx.query<PersonalTicket>(statements.tickets, [subject]),
    tx.query<PersonalMail>(statements.mails, [subject]),
  ]);
  return { orders, tickets: tickets.map((row) => ({ ...toTicketView(row), ...row })), mails };
}

const exportCounts = (data: Pick<PersonalData, 'orders' | 'tickets' | 'mails'>, accounts = 0) => ({
  orders: data.orders.length,
  tickets: data.tickets.length,
  mails: data.mails.length,
  idempotencyRecords: 0,
  accounts,
});

/** Staff's export of everything held about an address, recorded. */
export async function exportBuyerData(
  sql: Sql,
  configuredKey: string | null,
  staff: Principal,
  email: string,
): Promise<PersonalData> {
  const hash = await subjectHash(sql, configuredKey, email);
  return sql.transaction(async (tx) => {
    const data = await gather(tx, BY_EMAIL, email);
    const privacyRequests = await tx.query<PrivacyRequestView>(REQUESTS_ABOUT, [hash]);
    const recorded = await recordRequest(
      tx,
      'export',
      { requestedBy: 'staff', accountId: staff.id },
      hash,
      exportCounts(data),
    );
    return { exportedAt: recorded.requestedAt, email, account: null, ...data, privacyRequests };
  });
}

/** An account holder's export of their account and what it bought, recorded. */
export async function exportMyData(
  sql: Sql,
  configuredKey: string | null,
  me: Principal,
): Promise<PersonalData> {
  const hash = await subjectHash(sql, configuredKey, me.name);
  return sql.transaction(async (tx) => {
    const [account] = await tx.query<NonNullable<PersonalData['account']>>(ACCOUNT_ROW, [me.id]);
    const data = await gather(tx, BY_ACCOUNT, me.id);
    const privacyRequests = await tx.query<PrivacyRequestView>(REQUESTS_ABOUT, [hash]);
    const recorded = await recordRequest(
      tx,
      'export',
      { requestedBy: 'account_holder', accountId: me.id },
      hash,
      exportCounts(data, account ? 1 : 0),
    );
    return {
      exportedAt: recorded.requestedAt,
      email: null,
      account: account ?? null,
      ...data,
      privacyRequests,
    };
  });
}

// ------------------------------------------------------------------------------------------------ erasure

// What an erasure does to a mail of the subject: the address goes, and a mail not sent yet never will be.
const FORGET_RECIPIENT = `recipient = null,
  last_error = case when status = 'pending' then 'the address was erased' else last_error end,
  next_attempt_at = case when status = 'pending' then null else next_attempt_at end,
  status = case when status = 'pending' then 'failed' else status end`;

const erasureCounts = `(select count(*) from orders)::int as orders, (select count(*) from tickets)::int as tickets,
  (select count(*) from mails)::int as mails, (select count(*) from keys)::int as "idempotencyRecords",
  coalesce((select array_agg(id) from mails), '{}') as "mailIds"`;

// An address: from tickets (valid ones stay valid, owing no more mail), orders, the outbox, and the
// idempotency records whose stored answer names it (a replay would then run the request again).
const ERASE_EMAIL = statement(
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
const ERASE_ACCOUNT_DATA = statement(
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
const ERASE_BEFORE = statement(
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

type Erased = Omit<PrivacyCounts, 'accounts'> & { mailIds: string[] };

const countsOf = ({ mailIds: _mailIds, ...erased }: Erased, accounts = 0): PrivacyCounts => ({
  ...erased,
  accounts,
});

/** What an erasure also removes outside the database: the `.eml` copies of the mails it touched. */
export type ForgetMails = (mailIds: string[]) => Promise<void>;

/**
 * One erasure in one transaction: `erase` clears the subject's data (and may refuse), its counts are recorded
 * as `kind`; then the mails' copies outside the database go.
 */
async function eraseAndRecord(
  sql: Sql,
  kind: PrivacyRequestKind,
  by: { requestedBy: Requester; accountId: string | null },
  hash: string,
  forgetMails: ForgetMails,
  erase: (tx: Queryable) => Promise<{ erased: Erased; accounts: number }>,
): Promise<PrivacyRequestView> {
  const { recorded, mailIds } = await sql.transaction(async (tx) => {
    const { erased, accounts } = await erase(tx);
    const recorded = await recordRequest(tx, kind, by, hash, countsOf(erased, accounts));
    return { recorded, mailIds: erased.mailIds };
  });
  await forgetMails(mailIds);
  return recorded;
}

/** Staff's erasure of an address, all or nothing, recorded; a second one answers zeros. */
export async function eraseBuyerData(
  sql: Sql,
  configuredKey: string | null,
  staff: Principal,
  email: string,
  forgetMails: ForgetMails,
): Promise<PrivacyRequestView> {
  const hash = await subjectHash(sql, configuredKey, email);
  return eraseAndRecord(
    sql,
    'erasure',
    { requestedBy: 'staff', accountId: staff.id },
    hash,
    forgetMails,
    async (tx) => {
      const [erased] = await tx.query<Erased>(ERASE_EMAIL, [email]);
      return { erased: erased!, accounts: 0 };
    },
  );
}

const STAFF_LEFT = statement(
  'privacy_staff_left',
  `select count(*)::int as count from account where role = 'staff' and id <> $1::uuid`,
);
const DELETE_ACCOUNT = statement('privacy_delete_account', 'delete from account where id = $1::uuid');

/**
 * An account holder deletes their account and its personal data (the tickets stay, and valid ones admit);
 * the last staff account cannot go. Recorded under a hash of the account's name.
 */
export async function deleteMyAccount(
  sql: Sql,
  configuredKey: string | null,
  me: Principal,
  forgetMails: ForgetMails,
): Promise<PrivacyRequestView> {
  const hash = await subjectHash(sql, configuredKey, me.name);
  const by = { requestedBy: 'account_holder', accountId: me.id } as const;
  return eraseAndRecord(sql, 'account_deletion', by, hash, forgetMails, async (tx) => {
    if (me.role === 'staff') {
      const [left] = await tx.query<{ count: number }>(STAFF_LEFT, [me.id]);
      if (left!.count === 0) throw conflict('The last staff account cannot be deleted');
    }
    const [erased] = await tx.query<Erased>(ERASE_ACCOUNT_DATA, [me.id]);
    await tx.query(DELETE_ACCOUNT, [me.id]);
    return { erased: erased!, accounts: 1 };
  });
}

// One retention run a museum day, whichever instance gets there first: the unique day orders them.
const CLAIM_RETENTION_DAY = statement(
  'privacy_claim_retention_day',
  `insert into privacy_request (id, kind, requested_by, retention_date, created_at)
   values (gen_random_uuid(), 'retention', 'retention', $1::date, now())
   on conflict (retention_date) do nothing returning id`,
);
const RECORD_RETENTION = statement(
  'privacy_record_retention',
  `update privacy_request r set orders = $2::int, tickets = $3::int, mails = $4::int where r.id = $1::uuid
   returning ${REQUEST_COLUMNS}`,
);

/**
 * Erases the personal data of visits more than `retentionDays` before `today` (the museum's), once a day
 * across instances; null when today's run was made already.
 */
export async function runRetention(
  sql: Sql,
  today: string,
  retentionDays: number,
  forgetMails: ForgetMails,
): Promise<PrivacyRequestView | null> {
  const done = await sql.transaction(async (tx) => {
    const [claimed] = await tx.query<{ id: string }>(CLAIM_RETENTION_DAY, [today]);
    if (!claimed) return null;
    const [erased] = await tx.query<Erased>(ERASE_BEFORE, [addDays(today, -retentionDays)]);
    const [recorded] = await tx.query<PrivacyRequestView>(RECORD_RETENTION, [
      claimed.id,
      erased!.orders,
      erased!.tickets,
      erased!.mails,
    ]);
    return { recorded: recorded!, mailIds: erased!.mailIds };
  });
  if (!done) return null;
  await forgetMails(done.mailIds);
  return done.recorded;
}
