import { createHash } from 'node:crypto';
import type { Queryable } from '../db/sql.ts';
import { ATTEMPT_SUCCEEDED, PURGE_THROTTLE, RESERVE_ATTEMPT, UNLOCK_ACCOUNT } from './accounts.queries.ts';

/**
 * Password checks counted over a window of five minutes, and reserved before the check runs, so guesses
 * sent all at once count as surely as guesses sent one by one:
 * - per pair (client address, account name): the 11th check within the window is refused with 429 for
 *   five minutes, without checking the password;
 * - per client address, whatever the names: the 101st is refused likewise (a looser ceiling, so that one
 *   guesser cannot lock out the other people behind the same address or proxy, nor try many names);
 * - per account name, from anywhere: never refused, so nobody can lock another person out; from the fifth
 *   failure each failed answer is held back 250 ms more, at most 2 s.
 * A correct password clears its pair and account name, and gives its reservation back to the address.
 */
export const LOGIN_THROTTLE = {
  windowSeconds: 5 * 60,
  blockSeconds: 5 * 60,
  pairLimit: 10,
  addressLimit: 100,
  slowAfter: 5,
  delayStepMs: 250,
  maxDelayMs: 2_000,
} as const;

/** The limits a login can be refused under, each a quota of password checks over a window (seconds). */
export const LOGIN_POLICIES = {
  /** Per (client address, account name). */
  'login-pair': { quota: LOGIN_THROTTLE.pairLimit, window: LOGIN_THROTTLE.windowSeconds },
  /** Per client address, whatever the names. */
  'login-address': { quota: LOGIN_THROTTLE.addressLimit, window: LOGIN_THROTTLE.windowSeconds },
  /** Running or waiting for one client address on one instance (the authenticator's check gate). */
  'login-checks': { quota: 8, window: 1 },
} as const;

export type LoginPolicy = keyof typeof LOGIN_POLICIES;

export interface ThrottleKey {
  key: string;
  /** Checks allowed within the window; null: counted (for the delay), never refused. */
  limit: number | null;
}

export interface ThrottleKeys {
  pair: ThrottleKey;
  address: ThrottleKey;
  account: ThrottleKey;
}

const digest = (name: string) => createHash('sha256').update(name).digest('base64url').slice(0, 32);

/** The keys a login attempt counts against; the name is stored as a digest, never as written. */
export function throttleKeys(address: string, name: string): ThrottleKeys {
  const account = digest(name);
  const where = address.slice(0, 60);
  return {
    pair: { key: `pair:${where}|${account}`, limit: LOGIN_THROTTLE.pairLimit },
    address: { key: `address:${where}`, limit: LOGIN_THROTTLE.addressLimit },
    account: { key: `account:${account}`, limit: null },
  };
}

export type Reservation =
  /** Refused unchecked for `retryAfter` seconds; `lockedOutNow` when this very attempt began the refusal. */
  | { refused: true; retryAfter: number; lockedOutNow: boolean; scope: 'pair' | 'address' }
  /** Go ahead; a failure is answered after `failureDelayMs`. */
  | { refused: false; failureDelayMs: number };

export interface LoginThrottler {
  /** Counts an attempt against its keys before its password is checked, or refuses it. */
  reserve(keys: ThrottleKeys): Promise<Reservation>;
  /** The password was right: clears the pair and the account name, gives the address its attempt back. */
  succeeded(keys: ThrottleKeys): Promise<void>;
  purge(): Promise<void>;
  /** Drops this instance's memory of refusals, so the next attempt asks the database again. */
  forgetRefusals(): void;
  /** Ends every refusal and count of an account name (and of its pairs), on every instance; true when any was there. */
  unlock(name: string): Promise<boolean>;
}

/** How long a refusal seen in the database is trusted from memory before the database is asked again. */
const REMEMBER_MS = 30_000;
const MAX_REMEMBERED = 10_000;

/**
 * The counters live in PostgreSQL (table `login_throttle`), so every instance behind a balancer sees the
 * same counts; one statement reserves an attempt against all three keys. A refusal seen once is also
 * remembered in memory for up to 30 seconds, so a refused client costs no query at all meanwhile. Only
 * logins that reach the password check are counted: a credential verified in the last seconds is answered
 * from the authenticator's cache.
 */
export function createLoginThrottler(sql: Queryable): LoginThrottler {
  /** key → [remember until, refused until] (ms since the epoch). */
  const refusals = new Map<string, [number, number]>();

  function remember(key: string, seconds: number) {
    const now = Date.now();
    if (refusals.size >= MAX_REMEMBERED) {
      for (const [k, [until]] of refusals) if (until <= now) refusals.delete(k);
      if (refusals.size >= MAX_REMEMBERED) refusals.delete(refusals.keys().next().value!);
    }
    refusals.set(key, [now + Math.min(seconds * 1000, REMEMBER_MS), now + seconds * 1000]);
  }

  function remembered(keys: ThrottleKeys): Reservation | null {
    const now = Date.now();
    for (const scope of ['pair', 'address'] as const) {
      const entry = refusals.get(keys[scope].key);
      if (!entry) continue;
      if (entry[0] <= now) {
        refusals.delete(keys[scope].key);
        continue;
      }
      const retryAfter = Math.max(1, Math.ceil((entry[1] - now) / 1000));
      return { refused: true, retryAfter, lockedOutNow: false, scope };
    }
    return null;
  }

  const { windowSeconds: W, blockSeconds: B } = LOGIN_THROTTLE;

  /** Deletes the rows whose window and refusal are both over: the throttle needs them no more. */
  const purge = async () => {
    await sql.query(PURGE_THROTTLE, [W]);
  };

  // A row holds a client address, so it goes as soon as the throttle is done with it: a row the last
  // reservation touched is, max(W, B) seconds later (its window began then or before; a refusal begun then
  // lasts B). One timer, armed by reservations and pushed back while they come, sweeps then (and prunes the
  // refusals remembered here); it holds no process open, and what it misses (an error, an instance stopped
  // first) the hourly purge (src/app.ts) takes.
  let sweepAt = 0;
  let sweeper: ReturnType<typeof setTimeout> | undefined;
  function sweepLater() {
    sweepAt = Date.now() + (Math.max(W, B) + 1) * 1000;
    if (sweeper === undefined) armSweeper();
  }
  function armSweeper() {
    sweeper = setTimeout(() => {
      const now = Date.now();
      if (now < sweepAt) return armSweeper();
      sweeper = undefined;
      for (const [key, [until]] of refusals) if (until <= now) refusals.delete(key);
      purge().catch(() => {});
    }, sweepAt - Date.now());
    sweeper.unref();
  }

  return {
    async reserve(keys) {
      const known = remembered(keys);
      if (known) return known;
      const rows = await sql.query(RESERVE_ATTEMPT, [
        W,
        B,
        keys.pair.key,
        keys.pair.limit,
        keys.address.key,
        keys.address.limit,
        keys.account.key,
        keys.account.limit,
      ]);
      sweepLater();
      let failures = 0;
      for (const scope of ['pair', 'address'] as const) {
        const row = rows.find((r) => r.key === keys[scope].key);
        if (row?.retry_after && row.retry_after > 0) {
          remember(row.key, row.retry_after);
          return { refused: true, retryAfter: row.retry_after, lockedOutNow: row.locked_now, scope };
        }
      }
      for (const row of rows) if (row.key !== keys.address.key) failures = Math.max(failures, row.failures);
      // This attempt is already counted: the fifth failure is the fifth reservation.
      const over = failures - LOGIN_THROTTLE.slowAfter + 1;
      return {
        refused: false,
        failureDelayMs: over > 0 ? Math.min(LOGIN_THROTTLE.maxDelayMs, over * LOGIN_THROTTLE.delayStepMs) : 0,
      };
    },

    async succeeded(keys) {
      refusals.delete(keys.pair.key);
      await sql.query(ATTEMPT_SUCCEEDED, [keys.pair.key, keys.account.key, keys.address.key]);
    },

    forgetRefusals() {
      refusals.clear();
    },

    async unlock(name) {
      const account = digest(name);
      for (const key of refusals.keys()) if (key.endsWith(`|${account}`)) refusals.delete(key);
      const cleared = await sql.query(UNLOCK_ACCOUNT, [
        `account:${account}`,
        account.length + 1,
        `|${account}`,
      ]);
      return cleared.length > 0;
    },

    purge,
  };
}
