import { scryptSync } from 'node:crypto';
import fc from 'fast-check';
import { GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import { createAuthenticator, parseBasic, type StoredCredentials } from '../src/accounts/authenticator.ts';
import { hashPassword, verifyPassword } from '../src/accounts/passwords.ts';
import {
  addDays,
  daysBetween,
  isCalendarDate,
  isLocalTime,
  isoWeekday,
  museumClock,
} from '../src/common/dates.ts';
import { TOOK_TOO_LONG } from '../src/common/deadline.ts';
import { loadConfig } from '../src/config.ts';
import { createErrorMask } from '../src/graphql/errors.ts';
import { createLogger, durationText, isoTime, type Logger } from '../src/logger.ts';
import { queryString } from '../src/rest/query-string.ts';

describe('calendar dates', () => {
  it.each([
    ['2024-02-29', true],
    ['2023-02-29', false],
    ['2023-02-30', false],
    ['2023-04-31', false],
    ['2023-12-31', true],
    ['2023-13-01', false],
    ['2023-00-10', false],
    ['2023-1-01', false],
    ['0000-01-01', false],
    ['2023-01-01T00:00:00Z', false],
    ['', false],
    ['2000-02-29', true],
    ['2100-02-29', false],
    ['2024-02-30', false],
    ['9999-12-31', true],
    ['2023-06-31', false],
    ['2023-06-3a', false],
    ['2023/06/30', false],
    ['２０２３-01-01', false],
    ['+2023-01-01', false],
  ])('%s exists: %s', (date, exists) => {
    expect(isCalendarDate(date)).toBe(exists);
  });

  it('adds days across months, years and daylight-saving changes without drifting', () => {
    expect(addDays('2024-02-28', 1)).toBe('2024-02-29');
    expect(addDays('2023-12-31', 1)).toBe('2024-01-01');
    expect(addDays('2024-03-31', -1)).toBe('2024-03-30');
    expect(addDays('2024-10-27', 1)).toBe('2024-10-28');
    expect(daysBetween('2023-09-05', '2024-09-05')).toBe(366);
    expect(isoWeekday('2026-11-22')).toBe(7);
    expect(isoWeekday('2026-11-23')).toBe(1);
  });

  it('counts days as the UTC calendar of Date does, from year 1 to 9999', () => {
    const utc = new Date(0);
    utc.setUTCFullYear(1, 0, 1);
    const asDate = (time: number) => {
      const day = new Date(time);
      const pad = (n: number, width = 2) => String(n).padStart(width, '0');
      return `${pad(day.getUTCFullYear(), 4)}-${pad(day.getUTCMonth() + 1)}-${pad(day.getUTCDate())}`;
    };
    const first = utc.getTime();
    const total = daysBetween('0001-01-01', '9999-12-31');
    expect(total).toBe(Math.round((Date.UTC(9999, 11, 31) - first) / 86_400_000));
    // Every 7th day lands on each weekday and each day of the month over the years.
    for (let offset = 0; offset <= total; offset += 7) {
      const expected = asDate(first + offset * 86_400_000);
      const date = addDays('0001-01-01', offset);
      expect(date).toBe(expected);
      expect(daysBetween('0001-01-01', date)).toBe(offset);
      const weekday = new Date(first + offset * 86_400_000).getUTCDay();
      expect(isoWeekday(date)).toBe(weekday === 0 ? 7 : weekday);
    }
    expect(addDays('9999-12-31', 1)).toBe('9999-12-31');
    expect(addDays('0001-01-01', -1)).toBe('0001-01-01');
  });

  it('knows 24-hour times', () => {
    expect(['00:00', '09:30', '23:59'].every(isLocalTime)).toBe(true);
    expect(['24:00', '9:30', '09:60', '09:30:00'].some(isLocalTime)).toBe(false);
  });

  it('tells today in the museum time zone', () => {
    const kiritimati = museumClock('Pacific/Kiritimati').today();
    const honolulu = museumClock('Pacific/Honolulu').today();
    expect(daysBetween(honolulu, kiritimati)).toBe(1);
  });
});

describe('the request log line', () => {
  it('writes the time as toISOString does, across milliseconds, seconds, days and years', () => {
    const starts = [Date.UTC(2026, 10, 25, 12, 0, 59, 990), Date.UTC(2027, 11, 31, 23, 59, 59, 995), 0];
    for (const start of starts)
      for (let now = start; now < start + 30; now++) expect(isoTime(now)).toBe(new Date(now).toISOString());
    // Back in time (a clock set back) is formatted afresh too.
    expect(isoTime(Date.UTC(2026, 0, 1, 0, 0, 0, 7))).toBe('2026-01-01T00:00:00.007Z');
  });

  it('writes durations as String(Math.round(ms * 10) / 10) does', () => {
    for (const ms of [0, 0.04, 0.05, 0.3, 1, 1.25, 9.96, 12.3, 99.99, 100, 1234.56, 65_000.01])
      expect(durationText(ms)).toBe(String(Math.round(ms * 10) / 10));
    for (let tenths = 0; tenths < 3000; tenths++) expect(durationText(tenths / 10)).toBe(String(tenths / 10));
  });
});

describe('query strings', () => {
  // What URLSearchParams reads and writes, which the REST routes used before the plain fast path.
  const asUrlSearchParams = (search: string, keep: string[], limit: number, page: number) => {
    const kept = new URLSearchParams(
      [...new URLSearchParams(search)].filter(([name]) => keep.includes(name)),
    );
    kept.set('page', String(page));
    kept.set('limit', String(limit));
    return kept.toString();
  };
  const keep = ['startDate', 'endDate', 'page', 'limit'];
  const pieces = [
    'startDate',
    'endDate',
    'page',
    'limit',
    'other',
    '=',
    '&',
    '&&',
    '2026-01-01',
    '3',
    '',
    '+',
    '%20',
    '%3D',
    'é',
    '*',
    '~',
    "'",
  ];

  it('gives the values and the paging links URLSearchParams gives, plain or not', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...pieces), { maxLength: 12 }).map((parts) => parts.join('')),
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 1, max: 99 }),
        (search, limit, page) => {
          const query = queryString(search);
          for (const name of [...keep, 'other', ''])
            expect(query.values(name)).toEqual(new URLSearchParams(search).getAll(name));
          expect(query.linkQuery(keep, limit)(page)).toBe(asUrlSearchParams(search, keep, limit, page));
        },
      ),
      { numRuns: 20_000 },
    );
  });

  it.each([
    ['limit=10', 'limit=10&page=2'],
    ['page=3&limit=5&other=x', 'page=2&limit=10'],
    ['limit=5&startDate=2026-01-01&page=3', 'limit=10&startDate=2026-01-01&page=2'],
    ['startDate', 'startDate=&page=2&limit=10'],
    ['startDate=a+b', 'startDate=a+b&page=2&limit=10'],
    ['startDate=%7E', 'startDate=%7E&page=2&limit=10'],
    ['page&page=4&limit=3&limit', 'page=2&limit=10'],
  ])('%s links to page 2 as %s', (search, expected) => {
    expect(queryString(search).linkQuery(keep, 10)(2)).toBe(expected);
  });
});

describe('configuration', () => {
  it('defaults to the embedded database on port 4000 of 127.0.0.1', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ port: 4000, host: '127.0.0.1', timeZone: 'UTC', seedDemoEvents: true });
    expect(config).toMatchObject({ currency: 'EUR', entryGraceMinutes: 15 });
    expect(loadConfig({ MUSEUM_CURRENCY: 'GBP' }).currency).toBe('GBP');
    expect(config.database).toEqual({ kind: 'embedded', dataDir: './.data' });
    expect(loadConfig({ DATABASE_URL: 'memory://' }).database).toEqual({
      kind: 'embedded',
      dataDir: null,
      cacheDir: './.data',
    });
    expect(loadConfig({ DATABASE_URL: 'postgres://u@h/db' }).seedDemoEvents).toBe(false);
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ MUSEUM_TIMEZONE: 'Mars/Olympus' }, 'MUSEUM_TIMEZONE'],
    [{ MUSEUM_ADMIN_USER: 'boss' }, 'MUSEUM_ADMIN_PASSWORD'],
    [{ MUSEUM_ADMIN_PASSWORD: 'long-enough' }, 'MUSEUM_ADMIN_USER'],
    [{ MUSEUM_ADMIN_USER: 'boss', MUSEUM_ADMIN_PASSWORD: 'short' }, 'MUSEUM_ADMIN_PASSWORD'],
    [{ MUSEUM_DAILY_CAPACITY: '0' }, 'MUSEUM_DAILY_CAPACITY'],
    [{ MUSEUM_CURRENCY: 'eur' }, 'MUSEUM_CURRENCY'],
    [{ MUSEUM_CURRENCY: 'XYZ' }, 'MUSEUM_CURRENCY'],
    // Whole yen and thousandths of a dinar: amounts the API's "at most 2 decimals" does not describe.
    [{ MUSEUM_CURRENCY: 'JPY' }, 'MUSEUM_CURRENCY'],
    [{ MUSEUM_CURRENCY: 'KWD' }, 'MUSEUM_CURRENCY'],
    [{ MUSEUM_ENTRY_GRACE_MINUTES: '-5' }, 'MUSEUM_ENTRY_GRACE_MINUTES'],
    [{ MUSEUM_ENTRY_GRACE_MINUTES: '241' }, 'MUSEUM_ENTRY_GRACE_MINUTES'],
  ])('rejects %o with one line naming %s', (env, variable) => {
    expect(() => loadConfig(env)).toThrow(new RegExp(`^Invalid configuration: ${variable} `));
  });
});

describe('HTTP Basic credentials', () => {
  it('parses name:password, with colons allowed in the password', () => {
    const header = `Basic ${Buffer.from('ana:pa:ss').toString('base64')}`;
    expect(parseBasic(header)).toEqual({ name: 'ana', password: 'pa:ss' });
    expect(parseBasic('Bearer abc')).toBeNull();
    expect(parseBasic(`Basic ${Buffer.from('no-colon').toString('base64')}`)).toBeNull();
    expect(parseBasic('Basic !!!')).toBeNull();
  });

  it('hashes with a salt and verifies in constant time', async () => {
    const [a, b] = [await hashPassword('secret'), await hashPassword('secret')];
    expect(a).not.toBe(b);
    expect(a).toMatch(/^scrypt\$8192\$8\$10\$/);
    expect(await verifyPassword('secret', a)).toBe(true);
    expect(await verifyPassword('Secret', a)).toBe(false);
    expect(await verifyPassword('secret', 'garbage')).toBe(false);
  });

  it('verifies a hash made with the earlier parameters (N=2^15, r=8, p=1) with its own', async () => {
    const salt = Buffer.from('an earlier salt!');
    const key = scryptSync('secret', salt, 32, { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });
    const earlier = ['scrypt', 2 ** 15, 8, 1, salt.toString('base64'), key.toString('base64')].join('$');
    expect(await verifyPassword('secret', earlier)).toBe(true);
    expect(await verifyPassword('secreT', earlier)).toBe(false);
  });

  it('runs the slow hash once per credential while the cache entry lives, and never caches failures', async () => {
    const passwordHash = await hashPassword('right');
    let lookups = 0;
    let now = 0;
    const authenticator = createAuthenticator({
      findAccount: async (name) => {
        lookups++;
        return name === 'ana' ? { id: '1', name, role: 'visitor', passwordHash } : null;
      },
      cacheTtlMs: 1000,
      now: () => now,
    });
    const right = `Basic ${Buffer.from('ana:right').toString('base64')}`;
    const wrong = `Basic ${Buffer.from('ana:wrong').toString('base64')}`;
    const results = await Promise.all([1, 2, 3].map(() => authenticator.authenticate(right)));
    expect(results.every((r) => r.status === 'authenticated')).toBe(true);
    expect(lookups).toBe(1);
    await authenticator.authenticate(right);
    expect(lookups).toBe(1);
    // A cached credential is answered at once, whichever way its header is spelled.
    expect(authenticator.authenticate(right)).toMatchObject({ status: 'authenticated' });
    const spelledOtherwise = `basic   ${Buffer.from('ana:right').toString('base64')}`;
    expect(authenticator.authenticate(spelledOtherwise)).toMatchObject({ status: 'authenticated' });
    expect(authenticator.authenticate(spelledOtherwise)).toMatchObject({ status: 'authenticated' });
    expect(lookups).toBe(1);
    expect((await authenticator.authenticate(wrong)).status).toBe('rejected');
    expect((await authenticator.authenticate(wrong)).status).toBe('rejected');
    expect(lookups).toBe(3);
    now = 1001;
    await authenticator.authenticate(right);
    expect(lookups).toBe(4);
    authenticator.forget('ana');
    await authenticator.authenticate(right);
    expect(lookups).toBe(5);
    expect((await authenticator.authenticate(null)).status).toBe('anonymous');
  });

  it('renews a credential in use by reading its account again, running scrypt only when the stored hash changed', async () => {
    const account: StoredCredentials = {
      id: '1',
      name: 'ana',
      role: 'visitor',
      passwordHash: await hashPassword('right'),
    };
    let stored: StoredCredentials | null = account;
    let [lookups, checks, now] = [0, 0, 0];
    const work: Promise<unknown>[] = []; // what the authenticator started, to wait for what runs behind a request
    const authenticator = createAuthenticator({
      findAccount: async () => {
        lookups++;
        return stored;
      },
      checkPassword: (password, hash) => {
        checks++;
        const checked = verifyPassword(password, hash);
        work.push(checked);
        return checked;
      },
      cacheTtlMs: 1000,
      proofIdleMs: 60_000,
      now: () => now,
    });
    const right = `Basic ${Buffer.from('ana:right').toString('base64')}`;
    const status = async () => (await authenticator.authenticate(right)).status;
    const settled = async () => {
      await Promise.all(work);
      await new Promise((resolve) => setImmediate(resolve));
    };

    expect(await status()).toBe('authenticated');
    expect([lookups, checks]).toEqual([1, 1]);
    now = 400; // first half of the TTL: trusted, nothing read
    expect(await status()).toBe('authenticated');
    expect(lookups).toBe(1);
    now = 600; // second half: answered from the cache, the account read again behind it
    expect(await status()).toBe('authenticated');
    await settled();
    expect([lookups, checks]).toEqual([2, 1]);
    now = 1050; // past the first entry's end, inside the renewed one's: nothing read, nothing checked
    expect(await status()).toBe('authenticated');
    expect([lookups, checks]).toEqual([2, 1]);

    now = 5000; // long unused: the request waits for the read, and still no scrypt
    expect(await status()).toBe('authenticated');
    expect([lookups, checks]).toEqual([3, 1]);

    // The role changes: the next renewal carries it.
    stored = { ...account, role: 'staff' };
    now = 5600;
    await status();
    await settled();
    expect(await authenticator.authenticate(right)).toMatchObject({ principal: { role: 'staff' } });

    // The password changes elsewhere: the renewal sees another hash, checks the password against it, and drops the entry.
    stored = { ...account, passwordHash: await hashPassword('changed') };
    now = 6200;
    expect(await status()).toBe('authenticated'); // still inside the TTL
    await settled();
    expect(checks).toBe(2);
    expect(await status()).toBe('rejected');

    // The account is deleted: a kept proof is renewed by waiting, and the renewal refuses.
    stored = account;
    now = 7000;
    expect(await status()).toBe('authenticated');
    stored = null;
    now = 9000;
    expect(await status()).toBe('rejected');

    // A proof unused for longer than proofIdleMs is gone: scrypt again.
    stored = account;
    expect(await status()).toBe('authenticated');
    const before = checks;
    now = 9000 + 60_001;
    expect(await status()).toBe('authenticated');
    expect(checks).toBe(before + 1);
  });
});

describe('the error mask', () => {
  const warned: string[] = [];
  const logger = { ...createLogger('silent'), warn: (message: string) => warned.push(message) };
  const mask = createErrorMask(logger as Logger);
  const statusOf = (error: Error) => (error as GraphQLError).extensions.http as { status: number };

  it('answers a statement PostgreSQL cancelled for its time (57014, however wrapped) 503 with Retry-After', () => {
    const cancelled = Object.assign(new Error('canceling statement due to statement timeout'), {
      code: '57014',
    });
    for (const error of [cancelled, new Error('failed', { cause: cancelled })]) {
      const masked = mask(error);
      expect(masked.message).toBe(TOOK_TOO_LONG);
      expect(statusOf(masked)).toEqual({ status: 503, headers: { 'Retry-After': '5' } });
    }
    expect(warned).toEqual(['statement cancelled', 'statement cancelled']);
  });

  it('answers an unreachable database 503 and any other fault 500, wrapped or not', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    expect(statusOf(mask(new GraphQLError('wrapped', { originalError: refused }))).status).toBe(503);
    expect(statusOf(mask(new Error('x', { cause: new Error('y', { cause: refused }) }))).status).toBe(503);
    expect(statusOf(mask(Object.assign(new Error('syntax'), { code: '42601' }))).status).toBe(500);
  });
});
