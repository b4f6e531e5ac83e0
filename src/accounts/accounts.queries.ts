import { statement } from '../db/sql.ts';
import type { Role } from './account.entity.ts';

// The accounts' SQL: the accounts themselves and the login throttle's counters.

export interface AccountRow {
  id: string;
  name: string;
  role: Role;
}

export const ACCOUNTS_BY_ID = statement<AccountRow, [ids: string[]]>(
  'accounts_by_id',
  'select id, name, role from account where id = any($1::uuid[])',
);

export const CREDENTIALS_BY_NAME = statement<AccountRow & { passwordHash: string }, [name: string]>(
  'account_credentials',
  'select id, name, role, password_hash as "passwordHash" from account where name = $1',
);

// The hash is replaced only while it is still the one read: a password changed meanwhile stays.
export const UPGRADE_HASH = statement<{ id: string }, [id: string, oldHash: string, newHash: string]>(
  'account_upgrade_hash',
  'update account set password_hash = $3 where id = $1::uuid and password_hash = $2 returning id',
);

export const ANY_ACCOUNT = statement<{ any: boolean }>(
  'account_any',
  'select exists (select 1 from account) as any',
);

export const ACCOUNTS = statement<AccountRow>(
  'account_list',
  'select id, name, role from account order by name asc',
);

export const INSERT_ACCOUNT = statement<
  AccountRow,
  [id: string, name: string, role: Role, passwordHash: string]
>(
  'account_insert',
  `insert into account (id, name, role, password_hash, created_at) values ($1::uuid, $2, $3, $4, now())
   returning id, name, role`,
);

export const SET_STAFF = statement<never, [id: string, passwordHash: string]>(
  'account_set_staff',
  `update account set role = 'staff', password_hash = $2 where id = $1::uuid`,
);

export const SET_PASSWORD = statement<{ id: string }, [name: string, passwordHash: string]>(
  'account_set_password',
  'update account set password_hash = $2 where name = $1 returning id',
);

export const DELETE_ACCOUNT = statement<{ id: string }, [name: string]>(
  'account_delete',
  'delete from account where name = $1 returning id',
);

// The login throttle (src/accounts/throttling.ts): $1 the window and $2 the refusal, in seconds, where a
// statement needs them.

export const PURGE_THROTTLE = statement<never, [windowSeconds: number]>(
  'login_throttle_purge',
  `delete from login_throttle where window_started_at < now() - make_interval(secs => $1::int)
   and (blocked_until is null or blocked_until < now())`,
);

// One row per key, in a fixed order (pair, address, account) so concurrent reservations never deadlock; the
// row lock on each key orders concurrent attempts, so the limit holds exactly.
export const RESERVE_ATTEMPT = statement<
  { key: string; failures: number; retry_after: number | null; locked_now: boolean },
  [
    windowSeconds: number,
    blockSeconds: number,
    pair: string,
    pairLimit: number | null,
    address: string,
    addressLimit: number | null,
    account: string,
    accountLimit: number | null,
  ]
>(
  'login_throttle_reserve',
  `insert into login_throttle as t (key, failures, window_started_at, blocked_until, failure_limit)
   select k.key, 1, now(), null, k.failure_limit
   from (values ($3, $4::int, 1), ($5, $6::int, 2), ($7, $8::int, 3)) as k(key, failure_limit, position)
   order by k.position
   on conflict (key) do update set
     failures = case
       when t.blocked_until > now() then t.failures
       when t.window_started_at <= now() - make_interval(secs => $1::int) then 1
       else t.failures + 1 end,
     window_started_at = case
       when (t.blocked_until is null or t.blocked_until <= now())
         and t.window_started_at <= now() - make_interval(secs => $1::int) then now()
       else t.window_started_at end,
     blocked_until = case
       when t.blocked_until > now() then t.blocked_until
       when excluded.failure_limit is not null and (case
         when t.window_started_at <= now() - make_interval(secs => $1::int) then 1
         else t.failures + 1 end) > excluded.failure_limit then now() + make_interval(secs => $2::int)
       end,
     failure_limit = excluded.failure_limit
   returning key, failures,
     ceil(extract(epoch from blocked_until - now()))::int as retry_after,
     (blocked_until is not null and failures = failure_limit + 1) as locked_now`,
);

export const ATTEMPT_SUCCEEDED = statement<never, [pair: string, account: string, address: string]>(
  'login_throttle_succeeded',
  `with cleared as (
     delete from login_throttle where key in ($1, $2) and (blocked_until is null or blocked_until <= now())
   ), emptied as (
     delete from login_throttle where key = $3 and failures <= 1
     and (blocked_until is null or blocked_until <= now())
   )
   update login_throttle set failures = failures - 1
   where key = $3 and failures > 1 and (blocked_until is null or blocked_until <= now())`,
);

export const UNLOCK_ACCOUNT = statement<
  { key: string },
  [account: string, suffixLength: number, suffix: string]
>(
  'login_throttle_unlock',
  `delete from login_throttle where key = $1 or (key like 'pair:%' and right(key, $2::int) = $3) returning key`,
);
