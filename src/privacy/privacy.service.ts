import type { Principal } from '../accounts/authenticator.ts';
import { addDays } from '../common/dates.ts';
import { conflict } from '../common/errors.ts';
import { type Queryable, type Sql, statement } from '../db/sql.ts';
import { MAIL_QUEUE_LOCK } from '../mail/outbox.ts';
import type { PrivacyRequestKind, Requester } from './privacy.entity.ts';
import {
  type PrivacyCounts,
  type PrivacyRequestView,
  REQUEST_COLUMNS,
  recordRequest,
  subjectHash,
} from './privacy.requests.ts';

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

type Erased = Omit<PrivacyCounts, 'accounts'> & { mailIds: string[] };

// An address: from tickets (valid ones stay valid, owing no more mail), orders, the outbox, and the
// idempotency records whose stored answer names it (a replay would then run the request again).
const ERASE_EMAIL = statement<Erased, [email: string]>(
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
const ERASE_ACCOUNT_DATA = statement<Erased, [accountId: string]>(
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
const ERASE_BEFORE = statement<Erased, [before: string]>(
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

const countsOf = ({ mailIds: _mailIds, ...erased }: Erased, accounts = 0): PrivacyCounts => ({
  ...erased,
  accounts,
});

/** What an erasure also removes outside the database: the `.eml` copies of the mails it touched. */
export type ForgetMails = (mailIds: string[]) => Promise<void>;

// No owed mail is queued from a ticket while its address is erased (src/mail/outbox.ts, MAIL_QUEUE_LOCK).
const HOLD_MAIL_QUEUE = statement(
  'privacy_hold_mail_queue',
  `select pg_advisory_xact_lock(${MAIL_QUEUE_LOCK})`,
);

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
    await tx.query(HOLD_MAIL_QUEUE, []);
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
      const [erased] = await tx.query(ERASE_EMAIL, [email]);
      return { erased: erased!, accounts: 0 };
    },
  );
}

const STAFF_LEFT = statement<{ count: number }, [accountId: string]>(
  'privacy_staff_left',
  `select count(*)::int as count from account where role = 'staff' and id <> $1::uuid`,
);
const DELETE_ACCOUNT = statement<never, [accountId: string]>(
  'privacy_delete_account',
  'delete from account where id = $1::uuid',
);

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
      const [left] = await tx.query(STAFF_LEFT, [me.id]);
      if (left!.count === 0) throw conflict('The last staff account cannot be deleted');
    }
    const [erased] = await tx.query(ERASE_ACCOUNT_DATA, [me.id]);
    await tx.query(DELETE_ACCOUNT, [me.id]);
    return { erased: erased!, accounts: 1 };
  });
}

// One retention run a museum day, whichever instance gets there first: the unique day orders them.
const CLAIM_RETENTION_DAY = statement<{ id: string }, [retentionDate: string]>(
  'privacy_claim_retention_day',
  `insert into privacy_request (id, kind, requested_by, retention_date, created_at)
   values (gen_random_uuid(), 'retention', 'retention', $1::date, now())
   on conflict (retention_date) do nothing returning id`,
);
// The first run over years of visits may take longer than any request may (REQUEST_TIMEOUT_MS); a run cut
// short would be tried again, and cut again, every day.
const WITHOUT_STATEMENT_TIMEOUT = statement(
  'privacy_without_statement_timeout',
  'set local statement_timeout = 0',
);
const RECORD_RETENTION = statement<
  PrivacyRequestView,
  [requestId: string, orders: number, tickets: number, mails: number]
>(
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
    const [claimed] = await tx.query(CLAIM_RETENTION_DAY, [today]);
    if (!claimed) return null;
    await tx.query(WITHOUT_STATEMENT_TIMEOUT, []);
    await tx.query(HOLD_MAIL_QUEUE, []);
    const [erased] = await tx.query(ERASE_BEFORE, [addDays(today, -retentionDays)]);
    const [recorded] = await tx.query(RECORD_RETENTION, [
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
