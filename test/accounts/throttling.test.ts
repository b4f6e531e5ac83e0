// Login throttling (C2): password checks reserved per (client address, account name), per address and per
// account name in PostgreSQL; slowed, then 429 with Retry-After for a pair or an address, never for a name
// alone; a correct login resets its pair.
import { describe, expect, it, vi } from 'vitest';
import { findCredentials } from '../../src/accounts/accounts.service.ts';
import { createAuthenticator } from '../../src/accounts/authenticator.ts';
import { LOGIN_THROTTLE, throttleKeys } from '../../src/accounts/throttling.ts';
import { loadConfig } from '../../src/config.ts';
import { addressOf, NO_PROXY, parseTrustedProxies } from '../../src/protocol/client-address.ts';
import { execute } from '../support/db.ts';
import {
  basic,
  OTHER_VISITOR,
  openSecondInstance,
  STAFF,
  startMuseum,
  type TestMuseum,
  VISITOR,
} from '../support/museum.ts';
import { useMuseum } from '../support/use-museum.ts';

// Failed logins are slowed down on purpose (up to 2 s each): these tests take their time.
vi.setConfig({ testTimeout: 120_000 });

const museum = useMuseum();

async function get(
  target: TestMuseum,
  authorization: string | undefined,
  address: string,
  headers: Record<string, string> = {},
) {
  const response = await target.fetch(
    'http://museum.test/museum-hours?limit=1',
    { headers: { ...headers, ...(authorization ? { authorization } : {}) } },
    { from: address },
  );
  return { status: response.status, headers: response.headers, body: await response.json() };
}

async function graphql(authorization: string, address: string) {
  const response = await museum.fetch(
    'http://museum.test/graphql',
    {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ me { name } }' }),
    },
    { from: address },
  );
  return { status: response.status, headers: response.headers, body: await response.json() };
}

const wrong = (name: string, n: number) => basic(name, `wrong-password-${n}`);

/** Fails `count` times from `address` (each with a new wrong password, so nothing is shared). */
async function fail(count: number, address: string, name: string = VISITOR.name) {
  for (let i = 0; i < count; i++) {
    const response = await get(museum, wrong(name, i), address);
    expect(response.status, `failure ${i + 1} from ${address}`).toBe(401);
  }
}

describe('password checks for one address and account name', () => {
  it('are refused with 429 and Retry-After past the limit, REST and GraphQL, even with the right password', async () => {
    const address = '127.0.2.10';
    await fail(LOGIN_THROTTLE.pairLimit, address, OTHER_VISITOR.name);
    const refused = await get(museum, basic(OTHER_VISITOR.name, OTHER_VISITOR.password), address);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toBe('application/problem+json');
    expect(refused.body).toMatchObject({
      status: 429,
      title: 'Too many requests',
      detail: expect.any(String),
    });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(LOGIN_THROTTLE.blockSeconds - 30);
    expect(retryAfter).toBeLessThanOrEqual(LOGIN_THROTTLE.blockSeconds);
    // The limit, stated as the IETF RateLimit fields: 10 checks per 300 s for this pair, none left.
    expect(refused.headers.get('ratelimit-policy')).toBe(
      `"login-pair";q=${LOGIN_THROTTLE.pairLimit};w=${LOGIN_THROTTLE.windowSeconds}`,
    );
    expect(refused.headers.get('ratelimit')).toBe(`"login-pair";r=0;t=${retryAfter}`);
    const gql = await graphql(wrong(OTHER_VISITOR.name, 99), address);
    expect(gql.status).toBe(429);
    expect(gql.headers.get('retry-after')).toBeTruthy();
    expect(gql.headers.get('ratelimit-policy')).toBe(refused.headers.get('ratelimit-policy'));
    expect(gql.headers.get('ratelimit')).toMatch(/^"login-pair";r=0;t=\d+$/);
    expect(gql.body.errors[0].extensions.code).toBe('TOO_MANY_REQUESTS');
    expect(gql.body.data).toBeUndefined();
    // The same account from another address, and another account from this one, are not affected.
    expect((await get(museum, basic(OTHER_VISITOR.name, OTHER_VISITOR.password), '127.0.2.11')).status).toBe(
      200,
    );
    expect((await get(museum, basic(VISITOR.name, VISITOR.password), address)).status).toBe(200);
    // Requests without credentials are not throttled: they are plain 401s.
    expect((await get(museum, undefined, address)).status).toBe(401);
    await museum.deps.throttle!.unlock(OTHER_VISITOR.name);
  });

  it('are counted before the password is checked: a burst sent at once gets no more checks than the limit', async () => {
    const address = '127.0.2.15';
    const name = 'burst-target';
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => get(museum, wrong(name, i), address).then((r) => r.status)),
    );
    const count = (status: number) => answers.filter((s) => s === status).length;
    expect(count(401)).toBeLessThanOrEqual(LOGIN_THROTTLE.pairLimit);
    expect(count(401) + count(429)).toBe(40);
    expect(count(429)).toBeGreaterThanOrEqual(40 - LOGIN_THROTTLE.pairLimit);
  });

  it('are slowed down before they are refused: each failed answer held back longer (no clock involved)', async () => {
    // The delays a reservation prescribes, from the fifth check of a name on…
    const keys = throttleKeys('192.0.2.20', 'slow-name');
    const delays: number[] = [];
    for (let i = 0; i < LOGIN_THROTTLE.slowAfter + 2; i++) {
      const reservation = await museum.deps.throttle!.reserve(keys);
      delays.push(reservation.refused ? -1 : reservation.failureDelayMs);
    }
    const step = LOGIN_THROTTLE.delayStepMs;
    expect(delays).toEqual([0, 0, 0, 0, step, 2 * step, 3 * step]);
    // …and the authenticator holds a failed answer back by exactly that, a right one not at all.
    const held: number[] = [];
    const authenticator = createAuthenticator({
      findAccount: (name) => findCredentials(museum.deps.db.sql, name),
      throttle: museum.deps.throttle,
      sleep: async (ms) => {
        held.push(ms);
      },
    });
    const wrongAnswer = await authenticator.authenticate(wrong('slow-name', 99), '192.0.2.20');
    expect(wrongAnswer.status).toBe('rejected');
    expect(held).toEqual([4 * step]);
    await authenticator.authenticate(basic(VISITOR.name, VISITOR.password), '192.0.2.21');
    expect(held).toEqual([4 * step]);
  });

  it('are forgotten after a correct login, and after the refusal ends', async () => {
    const address = '127.0.2.30';
    const name = 'reset-visitor';
    await museum.graphql(
      'mutation($input: CreateAccountInput!) { createAccount(input: $input) { name } }',
      { input: { name, role: 'visitor', password: 'reset-password' } },
      { as: 'staff' },
    );
    await fail(LOGIN_THROTTLE.pairLimit - 1, address, name);
    expect((await get(museum, basic(name, 'reset-password'), address)).status).toBe(200);
    const rows = await execute<{ key: string; failures: number }[]>(
      museum.deps.db,
      `select key, failures from login_throttle where key like 'pair:127.0.2.30|%' or key = $1`,
      [`address:${address}`],
    );
    // The pair is cleared; the address keeps its failures, not the successful check.
    expect(rows).toEqual([{ key: `address:${address}`, failures: LOGIN_THROTTLE.pairLimit - 1 }]);
    // Counted from zero again: nine more failures are still 401s, the tenth too, the eleventh refuses.
    await fail(LOGIN_THROTTLE.pairLimit, address, name);
    expect((await get(museum, basic(name, 'reset-password'), address)).status).toBe(429);

    // The refusal ends (moved into the past here, on every instance alike, as the database keeps it)...
    await execute(
      museum.deps.db,
      `update login_throttle set blocked_until = now() - interval '1 second', window_started_at = now() - interval '10 minutes' where key like 'pair:127.0.2.30|%'`,
    );
    // ...and this instance forgets what it remembered of it (as it does by itself within 30 seconds).
    museum.deps.throttle!.forgetRefusals();
    expect((await get(museum, basic(name, 'reset-password'), address)).status).toBe(200);
    // A new window: the next failure is the first again.
    expect((await get(museum, wrong(name, 77), address)).status).toBe(401);
  });

  it('end at once when the account is unlocked', async () => {
    const address = '127.0.2.35';
    await fail(LOGIN_THROTTLE.pairLimit, address, VISITOR.name);
    expect((await get(museum, basic(VISITOR.name, VISITOR.password), address)).status).toBe(429);
    await museum.deps.throttle!.unlock(VISITOR.name);
    expect((await get(museum, basic(VISITOR.name, VISITOR.password), address)).status).toBe(200);
  });
});

describe('failed logins from one address, whatever the names', () => {
  it('are refused past the looser address ceiling, even for another account with the right password', async () => {
    const address = '127.0.2.45';
    for (let i = 0; i < LOGIN_THROTTLE.addressLimit; i++) {
      const response = await get(museum, wrong(`sprayed-${i}`, i), address);
      expect(response.status, `failure ${i + 1}`).toBe(401);
    }
    const refused = await get(museum, basic(OTHER_VISITOR.name, OTHER_VISITOR.password), address);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBeTruthy();
    expect((await get(museum, basic(OTHER_VISITOR.name, OTHER_VISITOR.password), '127.0.2.46')).status).toBe(
      200,
    );
  });
});

describe('failed logins for one account name', () => {
  it('from many addresses never lock the account out: the right password still signs in', async () => {
    const name = STAFF.name;
    for (let i = 0; i < 2 * LOGIN_THROTTLE.pairLimit + 1; i++) {
      const response = await get(museum, wrong(name, i), `127.51.100.${i + 1}`);
      expect(response.status, `failure ${i + 1}`).toBe(401);
    }
    expect((await get(museum, basic(STAFF.name, STAFF.password), '127.51.100.200')).status).toBe(200);
    // The table holds a digest of the name, never the name itself.
    const keys = (await execute<{ key: string }[]>(museum.deps.db, 'select key from login_throttle')).map(
      (row) => row.key,
    );
    expect(keys.some((key) => key.includes(STAFF.name))).toBe(false);
  });
});

describe('a verified credential', () => {
  it('is answered from the cache without a throttle query, and counts nothing', async () => {
    const address = '127.0.2.40';
    const authorization = basic(VISITOR.name, VISITOR.password);
    expect((await get(museum, authorization, address)).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await get(museum, authorization, address)).status).toBe(200);
    const rows = await execute(museum.deps.db, `select key from login_throttle where key = $1`, [
      `address:${address}`,
    ]);
    expect(rows).toEqual([]);
  });
});

describe('the client address', () => {
  const trust = (value: string) => {
    const parsed = parseTrustedProxies(value);
    if ('error' in parsed) throw new Error(parsed.error);
    return parsed;
  };

  it('comes from the connection, not from X-Forwarded-For, unless MUSEUM_TRUST_PROXY says so', () => {
    const forwarded = '203.0.113.9, 10.0.0.2';
    expect(addressOf('::ffff:127.0.0.1', forwarded, NO_PROXY)).toBe('127.0.0.1');
    expect(addressOf('::ffff:127.0.0.1', forwarded, trust('true'))).toBe('10.0.0.2');
    expect(addressOf(undefined, null, NO_PROXY)).toBe('unknown');
    expect(addressOf('2001:db8:1:2:3:4:5:6', forwarded, NO_PROXY)).toBe('2001:db8:1:2::/64');
    expect(addressOf('2001:db8::1', forwarded, NO_PROXY)).toBe('2001:db8:0:0::/64');
  });

  it('behind trusted hops or addresses, is the entry the trusted proxies vouch for', () => {
    const forwarded = '198.51.100.1, 203.0.113.9, 10.0.0.2';
    const viaBalancer = '10.0.0.3';
    // Hops: one proxy names the client it saw; two proxies, the one the first saw.
    expect(addressOf(viaBalancer, forwarded, trust('1'))).toBe('10.0.0.2');
    expect(addressOf(viaBalancer, forwarded, trust('2'))).toBe('203.0.113.9');
    expect(addressOf(viaBalancer, '203.0.113.9', trust('3'))).toBe('203.0.113.9');
    // Addresses: the trusted proxies are skipped from the right; a spoofed entry left of the client is not reached.
    const inside = trust('10.0.0.0/8, 192.0.2.10');
    expect(addressOf(viaBalancer, forwarded, inside)).toBe('203.0.113.9');
    expect(addressOf('::ffff:10.0.0.3', '203.0.113.9, 192.0.2.10', inside)).toBe('203.0.113.9');
    // A client that connects directly chooses nothing, whatever it writes.
    expect(addressOf('198.51.100.7', '10.0.0.2', inside)).toBe('198.51.100.7');
    expect(addressOf(viaBalancer, 'not-an-address', inside)).toBe('invalid');
    expect(addressOf(viaBalancer, forwarded, NO_PROXY)).toBe('10.0.0.3');
  });

  it('MUSEUM_TRUST_PROXY is checked at start-up, naming what is wrong', () => {
    const clientBehind = (env: Record<string, string>) =>
      addressOf('10.0.0.3', '198.51.100.1, 203.0.113.9', loadConfig(env).trustProxy);
    expect(clientBehind({ MUSEUM_TRUST_PROXY: '2' })).toBe('198.51.100.1');
    expect(clientBehind({ TRUST_PROXY: 'true' })).toBe('203.0.113.9');
    expect(clientBehind({})).toBe('10.0.0.3');
    expect(clientBehind({ MUSEUM_TRUST_PROXY: 'uniquelocal' })).toBe('203.0.113.9');
    expect(() => loadConfig({ MUSEUM_TRUST_PROXY: '10.0.0.0/8, proxy.internal' })).toThrow(
      /MUSEUM_TRUST_PROXY has "proxy.internal", which is not an IP address or CIDR range/,
    );
    expect(() => loadConfig({ MUSEUM_TRUST_PROXY: '10.0.0.0/33' })).toThrow(
      /MUSEUM_TRUST_PROXY has "10.0.0.0\/33"/,
    );
    expect(() => loadConfig({ MUSEUM_TRUST_PROXY: '17' })).toThrow(
      /MUSEUM_TRUST_PROXY must be at most 16 hops/,
    );
  });

  it('rotating X-Forwarded-For does not escape the limit without MUSEUM_TRUST_PROXY', async () => {
    const address = '127.0.2.50';
    for (let i = 0; i < LOGIN_THROTTLE.pairLimit; i++) {
      const response = await get(museum, wrong('rotating', i), address, {
        'x-forwarded-for': `203.0.113.${i}`,
      });
      expect(response.status).toBe(401);
    }
    expect(
      (await get(museum, wrong('rotating', 99), address, { 'x-forwarded-for': '203.0.113.250' })).status,
    ).toBe(429);
  });

  it('behind a trusted proxy, is the address the proxy appended', async () => {
    const proxied = await startMuseum({ MUSEUM_TRUST_PROXY: '127.10.0.0/16' });
    try {
      const proxy = '127.10.0.1';
      for (let i = 0; i < LOGIN_THROTTLE.pairLimit; i++) {
        const response = await get(proxied, wrong('proxied', i), proxy, { 'x-forwarded-for': '203.0.113.7' });
        expect(response.status).toBe(401);
      }
      expect(
        (await get(proxied, wrong('proxied', 99), proxy, { 'x-forwarded-for': '203.0.113.7' })).status,
      ).toBe(429);
      // Another client behind the same proxy is not refused.
      expect(
        (
          await get(proxied, basic(VISITOR.name, VISITOR.password), proxy, {
            'x-forwarded-for': '203.0.113.8',
          })
        ).status,
      ).toBe(200);
    } finally {
      await proxied.close();
    }
  });
});

describe('another instance over the same PostgreSQL', () => {
  it.skipIf(!process.env.TEST_DATABASE_URL)('sees the same counts and refusals', async () => {
    const other = await openSecondInstance(museum);
    try {
      const address = '127.0.2.60';
      await fail(LOGIN_THROTTLE.pairLimit, address, VISITOR.name);
      const response = await other.fetch(
        'http://museum.test/museum-hours',
        { headers: { authorization: basic(VISITOR.name, VISITOR.password) } },
        { from: address },
      );
      expect(response.status).toBe(429);
      expect(response.headers.get('retry-after')).toBeTruthy();
      await museum.deps.throttle!.unlock(VISITOR.name);
    } finally {
      await other.close();
    }
  });
});

describe('unlocking an account', () => {
  const UNLOCK = 'mutation($name: String!) { unlockAccount(name: $name) }';
  const unlock = (name: string, as: 'staff' | 'visitor' = 'staff') =>
    museum.graphql(UNLOCK, { name }, { as });

  it('ends a lock-out at once: staff only, through unlockAccount (and npm run users -- unlock)', async () => {
    const address = '127.0.2.77';
    await fail(LOGIN_THROTTLE.pairLimit, address, OTHER_VISITOR.name);
    const locked = await get(museum, basic(OTHER_VISITOR.name, OTHER_VISITOR.password), address);
    expect(locked.status).toBe(429);

    const byVisitor = await unlock(OTHER_VISITOR.name, 'visitor');
    expect(byVisitor.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect((await get(museum, basic(OTHER_VISITOR.name, OTHER_VISITOR.password), address)).status).toBe(429);

    const byStaff = await unlock(OTHER_VISITOR.name);
    expect(byStaff.body).toEqual({ data: { unlockAccount: true } });
    expect((await get(museum, basic(OTHER_VISITOR.name, OTHER_VISITOR.password), address)).status).toBe(200);
    // Nothing left to clear the second time.
    expect((await unlock(OTHER_VISITOR.name)).body).toEqual({ data: { unlockAccount: false } });
    const invalid = await unlock('not a name!');
    expect(invalid.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });
});
