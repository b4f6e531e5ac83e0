import { createHmac, randomBytes } from 'node:crypto';
import type { ListPage, Page } from '../common/pagination.ts';
import { offsetOf } from '../common/pagination.ts';
import type { Queryable, Sql } from '../db/sql.ts';
import type { PrivacyRequestKind, Requester } from './privacy.entity.ts';
import {
  NEW_KEY,
  type PrivacyCounts,
  type PrivacyRequestView,
  RECORD_REQUEST,
  REQUESTS_PAGE,
  STORED_KEY,
} from './privacy.queries.ts';

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
