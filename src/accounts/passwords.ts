import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

// scrypt with N=2^13, r=8, p=10: of the equivalent settings OWASP's Password Storage Cheat Sheet lists
// (N=2^17 with p=1 down to N=2^13 with p=10), the one with the least memory: 8 MiB per check, resident while
// it runs, where N=2^15, p=1 (below that list) took 32 MiB and made a quarter of compare.sh's peak RSS; ~1.5×
// its CPU (173 against 119 ms on the CI machine, busy). Stored as `scrypt$N$r$p$salt$hash`: hashes made with
// earlier parameters still verify with their own.
const PARAMS = { N: 2 ** 13, r: 8, p: 10 };
const KEY_LENGTH = 32;
const MAX_MEMORY = 64 * 1024 * 1024;

const scryptAsync = promisify(scrypt) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: { N: number; r: number; p: number; maxmem: number },
) => Promise<Buffer>;

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, KEY_LENGTH, { ...PARAMS, maxmem: MAX_MEMORY });
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64'), key.toString('base64')].join('$');
}

/** Constant-time check of a password against a stored hash; a malformed hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, saltB64, keyB64] = stored.split('$');
  if (scheme !== 'scrypt' || !saltB64 || !keyB64) return false;
  const expected = Buffer.from(keyB64, 'base64');
  const actual = await scryptAsync(password, Buffer.from(saltB64, 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: MAX_MEMORY,
  });
  return timingSafeEqual(actual, expected);
}

/** Whether a stored hash was made with other parameters than today's: it is made again at the next login. */
export function needsRehash(stored: string): boolean {
  const [scheme, n, r, p] = stored.split('$');
  return scheme !== 'scrypt' || Number(n) !== PARAMS.N || Number(r) !== PARAMS.r || Number(p) !== PARAMS.p;
}

let decoy: Promise<string> | undefined;

/** A hash of a random password: checking against it costs what a real check costs, so unknown names don't show. */
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(16).toString('hex'));
  return decoy;
}

export function generatePassword(): string {
  return randomBytes(18).toString('base64url');
}
