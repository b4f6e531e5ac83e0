import { createHmac, randomBytes } from 'node:crypto';
import type { ListPage, Page } from '../common/pagination.ts';
import { offsetOf } from '../common/pagination.ts';
import { type Queryable, rfc3339, type Sql, statement } from '../db/sql.ts';
import type { PrivacyRequestKind, Requester } from './privacy.entity.ts';

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

const STORED_KEY = statement<{ key: string }>('privacy_key', 'select key from privacy_key where id = 1');
const NEW_KEY = statement<never, [key: string]>(
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
      const [row] = await sql.query(STORED_KEY, []);
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

export const REQUEST_COLUMNS = `r.id as "requestId", r.kind, r.requested_by as "requestedBy", r.account_id as "accountId",
  ${rfc3339('r.created_at')} as "requestedAt", to_char(r.retention_date, 'YYYY-MM-DD') as "retentionDate",
  json_build_object('orders', r.orders, 'tickets', r.tickets, 'mails', r.mails,
    'idempotencyRecords', r.idempotency_records, 'accounts', r.accounts) as counts`;

const RECORD_REQUEST = statement<
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

export async function recordRequest(
  tx: Queryable,
  kind: PrivacyRequestKind,
  by: { requestedBy: Requester; accountId: string | null },
  hash: string | null,
  counts: PrivacyCounts,
): Promise<PrivacyRequestView> {
  const [row] = await tx.query(RECORD_REQUEST, [
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

const REQUESTS_PAGE = statement<
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

/** The record of requests, newest first; with `email`, those about that address only (by its hash). */
export async function listPrivacyRequests(
  sql: Sql,
  configuredKey: string | null,
  email: string | null,
  page: Page,
): Promise<ListPage<PrivacyRequestView>> {
  const hash = email === null ? null : await subjectHash(sql, configuredKey, email);
  const rows = await sql.query(REQUESTS_PAGE, [hash, page.limit, offsetOf(page)]);
  return { items: rows.map(({ total: _total, ...row }) => row), total: rows[0]?.total ?? 0 };
}
