import { hash } from 'node:crypto';
import { decoyHash, needsRehash, verifyPassword } from './passwords.ts';
import { LOGIN_POLICIES, type LoginPolicy, type LoginThrottler, throttleKeys } from './throttling.ts';

export type Role = 'visitor' | 'staff' | 'gate';

export interface Principal {
  id: string;
  name: string;
  role: Role;
}

export interface StoredCredentials extends Principal {
  passwordHash: string;
}

/** What the request's Authorization header amounts to. */
export type Authentication =
  | { status: 'anonymous' }
  | { status: 'rejected'; reason: string }
  /** Too many checks for this address and name, or from this address: refused unchecked, `retryAfter` s. */
  /** `policy`: the limit it ran into, named, with its quota of checks over its window (seconds). */
  | { status: 'throttled'; retryAfter: number; policy: { name: LoginPolicy; quota: number; window: number } }
  | { status: 'authenticated'; principal: Principal };

export interface AuthenticatorOptions {
  findAccount: (name: string) => Promise<StoredCredentials | null>;
  /** How long a verified credential is trusted before its account is read again. */
  cacheTtlMs?: number;
  /** How long a checked password is remembered unused: after that, scrypt again. */
  proofIdleMs?: number;
  maxCacheEntries?: number;
  now?: () => number;
  /** The slow check of a password against a stored hash (tests count its runs). */
  checkPassword?: (password: string, passwordHash: string) => Promise<boolean>;
  /**
   * Stores a hash made with today's parameters for a password that matched one made with earlier ones; the
   * new hash, or null when the account changed meanwhile.
   */
  upgradeHash?: (account: StoredCredentials, password: string) => Promise<string | null>;
  /** Reserves each password check against the client and the name (src/accounts/throttling.ts). */
  throttle?: LoginThrottler;
  /** Holds a failure's answer back (tests replace it). */
  sleep?: (ms: number) => Promise<void>;
  /** The audit trail: every failed login and every lock-out, with the account name and the client address. */
  audit?: (message: string, fields: Record<string, unknown>) => void;
  /** Password checks (scrypt: ~150 ms of CPU and 8 MiB each) running at once on this instance. */
  maxConcurrentChecks?: number;
  /** Checks running or waiting for one client address; beyond, 429 at once. */
  maxPendingChecksPerAddress?: number;
}

/** A password that matched: the principal, and the stored hash it matched (never handed to callers). */
interface Verified {
  principal: Principal;
  passwordHash: string;
}

type Outcome = Verified | { throttled: number; policy: LoginPolicy } | null;

interface CacheEntry {
  name: string;
  /** Until then the outcome is trusted without reading the account. */
  expiresAt: number;
  result: Promise<Outcome>;
  /** Once the password matched: the hash it matched, kept (for renewals) until `keptUntil`. */
  proof?: { passwordHash: string; keptUntil: number };
  /** A renewal started before `expiresAt` is under way. */
  renewing?: boolean;
  /** The answer once the password matched, handed out as it is: a cached credential waits for nothing. */
  answer?: Authentication;
}

const isVerified = (outcome: Outcome): outcome is Verified => outcome !== null && 'principal' in outcome;

/** The password checks waiting for a turn, in all, before further ones are refused. */
const MAX_WAITING_CHECKS = 256;

/**
 * HTTP Basic (RFC 7617) authentication with a short-lived cache of verified credentials: scrypt runs once
 * per credential, not once per request. Concurrent requests with the same credential share one
 * verification. Only successes stay cached. A cached credential is trusted for the TTL; then it is logged in
 * again like any login (throttle reservation, account read), except that while the account still holds the
 * hash the password matched, the password still matches and scrypt is skipped (its CPU and memory
 * every TTL stalled a busy instance, every request with that credential waiting). That renewal starts in the
 * background in the second half of the TTL, so a credential in use never waits for it. A changed password,
 * changed role, deleted account or a lock-out therefore counts within the TTL (at once on this instance,
 * through `forget`). Password checks are bounded: a few at once, a few pending per client address, each
 * reserved with the throttle before it runs.
 */
export function createAuthenticator(options: AuthenticatorOptions) {
  const ttl = options.cacheTtlMs ?? 5_000;
  const proofIdle = options.proofIdleMs ?? 600_000;
  const maxEntries = options.maxCacheEntries ?? 10_000;
  const now = options.now ?? Date.now;
  const checkPassword = options.checkPassword ?? verifyPassword;
  const audit = options.audit ?? (() => {});
  // Keyed by a digest of the decoded credentials (never the password in clear), so every spelling of
  // one Basic header (`basic`, extra spaces) finds the same entry.
  const cache = new Map<string, CacheEntry>();
  // The key of a header already seen, by a digest of the header as sent: a client repeats its header, and
  // a repeat finds its entry without decoding it again. Bounded like the cache; cleared when full.
  const keysOfHeaders = new Map<string, string>();
  const gate = createCheckGate(
    options.maxConcurrentChecks ?? 4,
    options.maxPendingChecksPerAddress ?? LOGIN_POLICIES['login-checks'].quota,
  );

  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));

  /**
   * Reserves the attempt with the throttle, reads the account and checks the password. `proven` is the stored
   * hash this password matched before: while the account still holds it, the password still matches, and
   * scrypt is skipped.
   */
  async function verify(name: string, password: string, address: string, proven?: string): Promise<Outcome> {
    const logged = { account: name.slice(0, 64), address };
    const keys = throttleKeys(address, name);
    const reservation = options.throttle ? await options.throttle.reserve(keys) : null;
    if (reservation?.refused) {
      if (reservation.lockedOutNow)
        audit('login locked out', {
          ...logged,
          scope: reservation.scope,
          seconds: reservation.retryAfter,
          // When it ends by itself (npm run users -- unlock NAME, or unlockAccount, ends it sooner).
          until: new Date(now() + reservation.retryAfter * 1000).toISOString(),
        });
      return { throttled: reservation.retryAfter, policy: `login-${reservation.scope}` };
    }
    const account = await options.findAccount(name);
    const known = proven !== undefined && account?.passwordHash === proven;
    const ok = known || (await checkPassword(password, account?.passwordHash ?? (await decoyHash())));
    if (ok && account) {
      if (reservation) await options.throttle?.succeeded(keys);
      // A password just checked against a hash of earlier parameters is hashed again, once.
      const upgraded =
        !known && options.upgradeHash && needsRehash(account.passwordHash)
          ? await options.upgradeHash(account, password).catch(() => null)
          : null;
      return { principal: principalOf(account), passwordHash: upgraded ?? account.passwordHash };
    }
    audit('login failed', logged);
    if (reservation && reservation.failureDelayMs > 0) await sleep(reservation.failureDelayMs);
    return null;
  }

  /** A login through the gate: a few at once, a few per client address. */
  function check(name: string, password: string, address: string, proven?: string): Promise<Outcome> {
    return gate(address, () => verify(name, password, address, proven)).then((outcome) => {
      if (outcome !== undefined) return outcome;
      audit('login refused: too many password checks in progress', { account: name.slice(0, 64), address });
      return { throttled: 1, policy: 'login-checks' };
    });
  }

  /** Caches `result` under `key` from `at`; a verified outcome stays (with its proof), any other goes. */
  function remember(key: string, name: string, at: number, result: Promise<Outcome>): CacheEntry {
    const entry: CacheEntry = { name, expiresAt: at + ttl, result };
    if (cache.size >= maxEntries) evictExpired(at);
    cache.set(key, entry);
    result.then(
      (outcome) => {
        if (cache.get(key) !== entry) return;
        if (isVerified(outcome)) {
          entry.proof = { passwordHash: outcome.passwordHash, keptUntil: now() + proofIdle };
          entry.answer = { status: 'authenticated', principal: outcome.principal };
        } else cache.delete(key);
      },
      () => cache.get(key) === entry && cache.delete(key),
    );
    return entry;
  }

  /** Renews a verified entry in the background while it is still trusted; it is replaced when done. */
  function renewAhead(key: string, entry: CacheEntry, password: string, address: string) {
    entry.renewing = true;
    const renewal = check(entry.name, password, address, entry.proof!.passwordHash);
    renewal.then(
      (outcome) => {
        if (cache.get(key) !== entry) return;
        if (isVerified(outcome)) remember(key, entry.name, now(), renewal);
        else cache.delete(key);
      },
      // The database did not answer: the entry runs out, and the request then renews it (and waits).
      () => {
        entry.renewing = false;
      },
    );
  }

  /**
   * `address` is the client's (src/protocol/client-address.ts); logins are counted against it and the account
   * name: a first check, and a renewal once per TTL (a successful one gives its count back). A credential
   * answered from the cache costs nothing and is answered at once, without a promise to wait for.
   */
  function authenticate(
    header: string | null,
    address = 'unknown',
  ): Authentication | Promise<Authentication> {
    if (header === null) return { status: 'anonymous' };
    const headerDigest = hash('sha256', header, 'base64');
    const seenKey = keysOfHeaders.get(headerDigest);
    if (seenKey !== undefined) {
      const seen = cache.get(seenKey);
      // Trusted and not yet due for renewal (which needs the password): answered without decoding.
      if (seen?.answer && now() < seen.expiresAt - ttl / 2) return seen.answer;
    }
    const credentials = parseBasic(header);
    if (!credentials)
      return { status: 'rejected', reason: 'The Authorization header is not valid HTTP Basic' };
    const { name, password } = credentials;

    const key = hash('sha256', `${name}:${password}`, 'base64');
    if (seenKey === undefined) {
      if (keysOfHeaders.size >= maxEntries) keysOfHeaders.clear();
      keysOfHeaders.set(headerDigest, key);
    }
    const at = now();
    let entry = cache.get(key);
    if (entry && entry.expiresAt > at) {
      if (entry.proof && !entry.renewing && at >= entry.expiresAt - ttl / 2)
        renewAhead(key, entry, password, address);
    } else {
      const proof = entry?.proof && entry.proof.keptUntil > at ? entry.proof : undefined;
      entry = remember(key, name, at, check(name, password, address, proof?.passwordHash));
    }
    return entry.answer ?? entry.result.then(authenticationOf);
  }

  function evictExpired(at: number) {
    for (const [key, entry] of cache)
      if (entry.expiresAt <= at && !(entry.proof && entry.proof.keptUntil > at)) cache.delete(key);
    // Still full of live entries: drop the oldest rather than grow without bound.
    while (cache.size >= maxEntries) cache.delete(cache.keys().next().value as string);
  }

  /** Drops every cached credential of an account (after its password changed or it was deleted). */
  function forget(name: string) {
    for (const [key, entry] of cache) if (entry.name === name) cache.delete(key);
  }

  return { authenticate, forget };
}

function authenticationOf(outcome: Outcome): Authentication {
  if (isVerified(outcome)) return { status: 'authenticated', principal: outcome.principal };
  if (outcome !== null)
    return {
      status: 'throttled',
      retryAfter: outcome.throttled,
      policy: { name: outcome.policy, ...LOGIN_POLICIES[outcome.policy] },
    };
  return { status: 'rejected', reason: 'Unknown account name or wrong password' };
}

const principalOf = ({ id, name, role }: StoredCredentials): Principal => ({ id, name, role });

/**
 * Runs work with at most `concurrency` at once, first come first served; a key (a client address) may
 * have at most `maxPerKey` running or waiting, and the queue holds at most MAX_WAITING_CHECKS. Work that
 * finds no place resolves `undefined` at once.
 */
function createCheckGate(concurrency: number, maxPerKey: number) {
  let running = 0;
  const waiting: (() => void)[] = [];
  const pending = new Map<string, number>();
  return async <T>(key: string, work: () => Promise<T>): Promise<T | undefined> => {
    const mine = pending.get(key) ?? 0;
    if (mine >= maxPerKey || waiting.length >= MAX_WAITING_CHECKS) return undefined;
    pending.set(key, mine + 1);
    try {
      if (running < concurrency) running++;
      else await new Promise<void>((resolve) => waiting.push(resolve));
      try {
        return await work();
      } finally {
        // Hand the turn straight to the next in line, or give it back.
        const next = waiting.shift();
        if (next) next();
        else running--;
      }
    } finally {
      const left = (pending.get(key) ?? 1) - 1;
      if (left > 0) pending.set(key, left);
      else pending.delete(key);
    }
  };
}

export type Authenticator = ReturnType<typeof createAuthenticator>;

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
// RFC 7617 §2: neither the user-id nor the password may contain control characters.
const hasControlCharacter = (text: string) => {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
};

/**
 * Parses `Basic base64(name:password)`; null when it isn't that: not base64, not UTF-8, no name, or a
 * control character (a NUL byte would otherwise reach the database, which refuses it).
 */
export function parseBasic(header: string): { name: string; password: string } | null {
  const match = /^Basic[ ]+([A-Za-z0-9+/]+={0,2})[ ]*$/i.exec(header);
  if (!match) return null;
  let decoded: string;
  try {
    decoded = strictUtf8.decode(Buffer.from(match[1]!, 'base64'));
  } catch {
    return null;
  }
  const colon = decoded.indexOf(':');
  if (colon <= 0 || hasControlCharacter(decoded)) return null;
  return { name: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
