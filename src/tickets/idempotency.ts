import { createHash } from 'node:crypto';
import { z } from 'zod';
import { DomainError, invalidField } from '../common/errors.ts';
import type { Queryable } from '../db/sql.ts';
import { CLAIM_KEY, CLAIMED_KEY, PURGE_KEYS, RECLAIM_KEY, STORE_ANSWER } from './tickets.queries.ts';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
/** How long a stored answer is replayed. */
export const IDEMPOTENCY_TTL_HOURS = 24;

/** A client's key: 1 to 255 visible ASCII characters, as the header allows (and the OpenAPI document says). */
export const idempotencyKeySchema = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[\x21-\x7e]+$/);

export function checkIdempotencyKey(key: string | null): string | null {
  if (key === null) return null;
  if (!idempotencyKeySchema.safeParse(key).success) {
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
  tx: Queryable,
  accountId: string,
  key: string,
  hash: string,
): Promise<{ replay: T } | null> {
  const claimed = await tx.query(CLAIM_KEY, [accountId, key, hash]);
  if (claimed.length > 0) return null;

  const [existing] = await tx.query(CLAIMED_KEY, [accountId, key, IDEMPOTENCY_TTL_HOURS]);
  if (!existing || existing.expired || existing.response === null) {
    await tx.query(RECLAIM_KEY, [accountId, key, hash]);
    return null;
  }
  if (existing.request_hash !== hash) {
    throw new DomainError(
      'unprocessable',
      `The ${IDEMPOTENCY_HEADER} was already used for a different request; use a new key for a new purchase`,
    );
  }
  return { replay: existing.response as T };
}

export async function storeAnswer(
  tx: Queryable,
  accountId: string,
  key: string,
  answer: unknown,
): Promise<void> {
  await tx.query(STORE_ANSWER, [accountId, key, JSON.stringify(answer)]);
}

/** Forgets answers older than the replay window; returns how many. */
export async function purgeExpiredKeys(sql: Queryable): Promise<number> {
  return (await sql.query(PURGE_KEYS, [IDEMPOTENCY_TTL_HOURS])).length;
}
