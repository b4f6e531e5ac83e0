import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError, invalidField } from '../common/errors.ts';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
/** How long a stored answer is replayed. */
export const IDEMPOTENCY_TTL_HOURS = 24;

/** A client's key: 1 to 255 visible ASCII characters, as the header allows. */
export function checkIdempotencyKey(key: string | null): string | null {
  if (key === null) return null;
  if (!/^[\x21-\x7e]{1,255}$/.test(key)) {
    throw invalidField(IDEMPOTENCY_HEADER, 'must be 1 to 255 visible ASCII characters');
  }
  return key;
}

/** A digest of the request that stays the same however its fields are ordered. */
export function requestHash(request: Record<string, unknown>): string {
  const canonical = JSON.stringify(
    Object.keys(request)
      .sort()
      .map((key) => [key, request[key] ?? null]),
  );
  return createHash('sha256').update(canonical).digest('hex');
}

/**
 * Claims (account, key) inside the caller's transaction, or returns the answer stored for it.
 * The claim is an insert into the primary key: a concurrent request with the same key waits on it until
 * the first commits (and then replays its answer) or rolls back (and then claims the key itself), so one
 * key buys at most one ticket on any number of instances.
 */
export async function claimOrReplay<T>(
  tx: EntityManager,
  accountId: string,
  key: string,
  hash: string,
): Promise<{ replay: T } | null> {
  const claimed = await tx.execute(
    `insert into idempotency_record (account_id, key, request_hash, response, created_at)
     values (?, ?, ?, null, now()) on conflict (account_id, key) do nothing returning key`,
    [accountId, key, hash],
  );
  if (claimed.length > 0) return null;

  const [existing] = await tx.execute<{ request_hash: string; response: T | null; expired: boolean }[]>(
    `select request_hash, response, created_at < now() - make_interval(hours => ?) as expired
     from idempotency_record where account_id = ? and key = ? for update`,
    [IDEMPOTENCY_TTL_HOURS, accountId, key],
  );
  if (!existing || existing.expired || existing.response === null) {
    await tx.execute(
      `update idempotency_record set request_hash = ?, response = null, created_at = now()
       where account_id = ? and key = ?`,
      [hash, accountId, key],
    );
    return null;
  }
  if (existing.request_hash !== hash) {
    throw new DomainError(
      'unprocessable',
      `The ${IDEMPOTENCY_HEADER} was already used for a different request; use a new key for a new purchase`,
    );
  }
  return { replay: existing.response };
}

export async function storeAnswer(
  tx: EntityManager,
  accountId: string,
  key: string,
  answer: unknown,
): Promise<void> {
  await tx.execute('update idempotency_record set response = ? where account_id = ? and key = ?', [
    JSON.stringify(answer),
    accountId,
    key,
  ]);
}

/** Forgets answers older than the replay window; returns how many. */
export async function purgeExpiredKeys(em: EntityManager): Promise<number> {
  const rows = await em.execute(
    'delete from idempotency_record where created_at < now() - make_interval(hours => ?) returning key',
    [IDEMPOTENCY_TTL_HOURS],
  );
  return rows.length;
}
