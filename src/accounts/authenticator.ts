import { createHash } from 'node:crypto';
import { decoyHash, verifyPassword } from './passwords.ts';
import { type LoginThrottler, throttleKeys } from './throttling.ts';

export type Role = 'visitor' | 'staff';

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
  /** Too many failed logins from this address or for this name: refused unchecked, for `retryAfter` s. */
  | { status: 'throttled'; retryAfter: number }
  | { status: 'authenticated'; principal: Principal };

export interface AuthenticatorOptions {
  findAccount: (name: string) => Promise<StoredCredentials | null>;
  /** How long a verified credential is trusted without running scrypt again. */
  cacheTtlMs?: number;
  maxCacheEntries?: number;
  now?: () => number;
  /** Counts failed logins and refuses clients that failed too often (src/accounts/throttling.ts). */
  throttle?: LoginThrottler;
  /** Holds a failure's answer back (tests replace it). */
  sleep?: (ms: number) => Promise<void>;
}

type Outcome = Principal | { throttled: number } | null;

interface CacheEntry {
  expiresAt: number;
  result: Promise<Outcome>;
}

const isPrincipal = (outcome: Outcome): outcome is Principal => outcome !== null && 'role' in outcome;

/**
 * HTTP Basic (RFC 7617) authentication with a short-lived cache of verified credentials: scrypt runs once
 * per credential and TTL, not once per request. Concurrent requests with the same credential share one
 * verification. Only successes stay cached, so a changed password or deleted account stops working once
 * the entry expires (or at once on this instance, through `forget`).
 */
export function createAuthenticator(options: AuthenticatorOptions) {
  const ttl = options.cacheTtlMs ?? 5_000;
  const maxEntries = options.maxCacheEntries ?? 10_000;
  const now = options.now ?? Date.now;
  // Keyed by a digest of the header, so the cache never holds a password in clear.
  const cache = new Map<string, CacheEntry & { name: string }>();

  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));

  async function verify(name: string, password: string, address: string): Promise<Outcome> {
    const keys = throttleKeys(address, name);
    const verdict = options.throttle ? await options.throttle.check(keys) : null;
    if (verdict?.retryAfter) return { throttled: verdict.retryAfter };
    const account = await options.findAccount(name);
    const ok = await verifyPassword(password, account?.passwordHash ?? (await decoyHash()));
    if (ok && account) {
      if (verdict?.recorded) await options.throttle?.succeeded(keys);
      return { id: account.id, name: account.name, role: account.role };
    }
    if (options.throttle) {
      const { delayMs } = await options.throttle.failed(keys);
      if (delayMs > 0) await sleep(delayMs);
    }
    return null;
  }

  /**
   * `address` is the client's (src/http/client-address.ts); failed attempts are counted against it and
   * the account name, but only when the password is actually checked: a cached credential costs nothing.
   */
  async function authenticate(header: string | null, address = 'unknown'): Promise<Authentication> {
    if (header === null) return { status: 'anonymous' };
    const credentials = parseBasic(header);
    if (!credentials)
      return { status: 'rejected', reason: 'The Authorization header is not valid HTTP Basic' };

    const key = createHash('sha256').update(header).digest('base64');
    const at = now();
    let entry = cache.get(key);
    if (!entry || entry.expiresAt <= at) {
      if (cache.size >= maxEntries) evictExpired(at);
      entry = {
        name: credentials.name,
        expiresAt: at + ttl,
        result: verify(credentials.name, credentials.password, address),
      };
      cache.set(key, entry);
      const settled = entry;
      settled.result.then(
        (outcome) => !isPrincipal(outcome) && cache.get(key) === settled && cache.delete(key),
        () => cache.get(key) === settled && cache.delete(key),
      );
    }
    const outcome = await entry.result;
    if (isPrincipal(outcome)) return { status: 'authenticated', principal: outcome };
    if (outcome !== null) return { status: 'throttled', retryAfter: outcome.throttled };
    return { status: 'rejected', reason: 'Unknown account name or wrong password' };
  }

  function evictExpired(at: number) {
    for (const [key, entry] of cache) if (entry.expiresAt <= at) cache.delete(key);
    // Still full of live entries: drop the oldest rather than grow without bound.
    while (cache.size >= maxEntries) cache.delete(cache.keys().next().value as string);
  }

  /** Drops every cached credential of an account (after its password changed or it was deleted). */
  function forget(name: string) {
    for (const [key, entry] of cache) if (entry.name === name) cache.delete(key);
  }

  return { authenticate, forget };
}

export type Authenticator = ReturnType<typeof createAuthenticator>;

/** Parses `Basic base64(name:password)`; null when it isn't that. */
export function parseBasic(header: string): { name: string; password: string } | null {
  const match = /^Basic[ ]+([A-Za-z0-9+/]+={0,2})[ ]*$/i.exec(header);
  if (!match) return null;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return null;
  return { name: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
