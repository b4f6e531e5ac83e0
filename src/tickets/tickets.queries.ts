import { statement } from '../db/sql.ts';

// The tickets' SQL beside the sale's (sale.queries.ts, the hot path, kept apart while it is tuned): the
// idempotency records of purchases and orders, and the general sales counters.

export const CLAIM_KEY = statement<{ key: string }, [accountId: string, key: string, hash: string]>(
  'idempotency_claim',
  `insert into idempotency_record (account_id, key, request_hash, response, created_at)
   values ($1::uuid, $2, $3, null, now()) on conflict (account_id, key) do nothing returning key`,
);

export const CLAIMED_KEY = statement<
  { request_hash: string; response: unknown; expired: boolean },
  [accountId: string, key: string, ttlHours: number]
>(
  'idempotency_claimed',
  `select request_hash, response, created_at < now() - make_interval(hours => $3::int) as expired
   from idempotency_record where account_id = $1::uuid and key = $2 for update`,
);

export const RECLAIM_KEY = statement<never, [accountId: string, key: string, hash: string]>(
  'idempotency_reclaim',
  `update idempotency_record set request_hash = $3, response = null, created_at = now()
   where account_id = $1::uuid and key = $2`,
);

export const STORE_ANSWER = statement<never, [accountId: string, key: string, answer: string]>(
  'idempotency_store',
  'update idempotency_record set response = $3::jsonb where account_id = $1::uuid and key = $2',
);

export const PURGE_KEYS = statement<{ key: string }, [ttlHours: number]>(
  'idempotency_purge',
  `delete from idempotency_record where created_at < now() - make_interval(hours => $1::int) returning key`,
);

// Without a daily capacity, general sales are not counted; counts left from an earlier capacity would be
// short the day one is set again. Dropped, they are recounted from the tickets when needed.
export const FORGET_SALES = statement<never, [scope: string]>(
  'ticket_sales_forget',
  'delete from ticket_sales where scope = $1',
);
