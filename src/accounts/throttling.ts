import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Failed logins per client address and per account name, in a window of five minutes: from the fifth the
 * failure answer is slowed down (250 ms more each time, at most 2 s); at the tenth from one address, or the
 * twentieth for one account name from anywhere, that address or name is refused with 429 for five minutes
 * without checking the password. A correct login (when not refused) clears its address and name.
 */
export const LOGIN_THROTTLE = {
  windowSeconds: 5 * 60,
  blockSeconds: 5 * 60,
  slowAfter: 5,
  delayStepMs: 250,
  maxDelayMs: 2_000,
  addressLimit: 10,
  accountLimit: 20,
} as const;

export interface ThrottleKey {
  key: string;
  limit: number;
}

/** The keys a login attempt counts against; the name is stored as a digest, never as written. */
export function throttleKeys(address: string, name: string): ThrottleKey[] {
  const account = createHash('sha256').update(name).digest('base64url').slice(0, 32);
  return [
    { key: `address:${address}`.slice(0, 100), limit: LOGIN_THROTTLE.addressLimit },
    { key: `account:${account}`, limit: LOGIN_THROTTLE.accountLimit },
  ];
}

export interface Verdict {
  /** Seconds until the refusal ends, when one of the keys is refused. */
  retryAfter: number | null;
  /** Whether any of the keys has failures on record (so a success has something to clear). */
  recorded: boolean;
}

export interface LoginThrottler {
  check(keys: ThrottleKey[]): Promise<Verdict>;
  /** Counts a failure; returns how long to hold the answer back. */
  failed(keys: ThrottleKey[]): Promise<{ delayMs: number }>;
  succeeded(keys: ThrottleKey[]): Promise<void>;
  purge(): Promise<void>;
  /** Drops this instance's memory of refusals, so the next attempt asks the database again. */
  forgetRefusals(): void;
}

/** How long a refusal seen in the database is trusted from memory before the database is asked again. */
const REMEMBER_MS = 30_000;

/**
 * The counters live in PostgreSQL (table `login_throttle`), so every instance behind a balancer sees the
 * same counts; a refusal seen once is also remembered in memory for up to 30 seconds, so a refused client
 * costs at most one query per key and half minute. Only logins that reach the password check touch the table: a credential verified in
 * the last seconds is answered from the authenticator's cache.
 */
export function createLoginThrottler(fork: () => EntityManager): LoginThrottler {
  const blockedUntil = new Map<string, number>();
  /** When each remembered refusal ends according to the database (for Retry-After). */
  const refusedUntil = new Map<string, number>();
  const MAX_REMEMBERED = 10_000;

  function remember(key: string, seconds: number) {
    if (blockedUntil.size >= MAX_REMEMBERED) {
      const now = Date.now();
      for (const [k, until] of blockedUntil) if (until <= now) blockedUntil.delete(k);
      if (blockedUntil.size >= MAX_REMEMBERED) blockedUntil.delete(blockedUntil.keys().next().value!);
      for (const k of refusedUntil.keys()) if (!blockedUntil.has(k)) refusedUntil.delete(k);
    }
    blockedUntil.set(key, Date.now() + Math.min(seconds * 1000, REMEMBER_MS));
    refusedUntil.set(key, Date.now() + seconds * 1000);
  }

  function rememberedRetryAfter(keys: ThrottleKey[]): number | null {
    let longest = 0;
    const now = Date.now();
    for (const { key } of keys) {
      const until = blockedUntil.get(key);
      if (until === undefined) continue;
      if (until <= now) {
        blockedUntil.delete(key);
        refusedUntil.delete(key);
      } else longest = Math.max(longest, until - now);
    }
    return longest > 0 ? Math.ceil(longest / 1000) : null;
  }

  return {
    async check(keys) {
      if (rememberedRetryAfter(keys) !== null) {
        // Refused a moment ago: answer without a query, with the database's remaining time if known.
        const until = Math.max(...keys.map(({ key }) => refusedUntil.get(key) ?? 0));
        return { retryAfter: Math.max(1, Math.ceil((until - Date.now()) / 1000)), recorded: true };
      }
      const rows = await fork().execute<{ key: string; retry_after: number | null }[]>(
        `select key, ceil(extract(epoch from blocked_until - now()))::int as retry_after
         from login_throttle where key in (${keys.map(() => '?').join(', ')})
         and (window_started_at > now() - make_interval(secs => ?) or blocked_until > now())`,
        [...keys.map(({ key }) => key), LOGIN_THROTTLE.windowSeconds],
      );
      let retryAfter: number | null = null;
      for (const row of rows) {
        if (row.retry_after === null || row.retry_after <= 0) continue;
        remember(row.key, row.retry_after);
        retryAfter = Math.max(retryAfter ?? 0, row.retry_after);
      }
      return { retryAfter, recorded: rows.length > 0 };
    },

    async failed(keys) {
      let failures = 0;
      const em = fork();
      for (const { key, limit } of keys) {
        // One statement per key: a new window when the old one is over, the count, and the refusal.
        const [row] = await em.execute<{ failures: number; retry_after: number | null }[]>(
          `insert into login_throttle as t (key, failures, window_started_at, blocked_until)
           values (?, 1, now(), case when 1 >= ? then now() + make_interval(secs => ?) end)
           on conflict (key) do update set
             failures = case when t.window_started_at <= now() - make_interval(secs => ?) then 1
                        else t.failures + 1 end,
             window_started_at = case when t.window_started_at <= now() - make_interval(secs => ?) then now()
                                 else t.window_started_at end,
             blocked_until = case
               when (case when t.window_started_at <= now() - make_interval(secs => ?) then 1
                     else t.failures + 1 end) >= ? then now() + make_interval(secs => ?)
               when t.blocked_until > now() then t.blocked_until end
           returning failures, ceil(extract(epoch from blocked_until - now()))::int as retry_after`,
          [
            key,
            limit,
            LOGIN_THROTTLE.blockSeconds,
            LOGIN_THROTTLE.windowSeconds,
            LOGIN_THROTTLE.windowSeconds,
            LOGIN_THROTTLE.windowSeconds,
            limit,
            LOGIN_THROTTLE.blockSeconds,
          ],
        );
        if (!row) continue;
        failures = Math.max(failures, row.failures);
        if (row.retry_after !== null && row.retry_after > 0) remember(key, row.retry_after);
      }
      const over = failures - LOGIN_THROTTLE.slowAfter + 1;
      return {
        delayMs: over > 0 ? Math.min(LOGIN_THROTTLE.maxDelayMs, over * LOGIN_THROTTLE.delayStepMs) : 0,
      };
    },

    async succeeded(keys) {
      for (const { key } of keys) {
        blockedUntil.delete(key);
        refusedUntil.delete(key);
      }
      await fork().execute(
        `delete from login_throttle where key in (${keys.map(() => '?').join(', ')}) and
         (blocked_until is null or blocked_until <= now())`,
        keys.map(({ key }) => key),
      );
    },

    forgetRefusals() {
      blockedUntil.clear();
      refusedUntil.clear();
    },

    async purge() {
      await fork().execute(
        `delete from login_throttle where window_started_at < now() - make_interval(secs => ?)
         and (blocked_until is null or blocked_until < now())`,
        [LOGIN_THROTTLE.windowSeconds],
      );
    },
  };
}
