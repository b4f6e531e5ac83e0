// Login throttling (C2): failed HTTP Basic logins counted per client address and per account name in
// PostgreSQL; slowed, then 429 with Retry-After; a correct login resets the counts.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LOGIN_THROTTLE } from '../src/accounts/throttling.ts';
import { clientAddress } from '../src/http/client-address.ts';
import {
  basic,
  OTHER_VISITOR,
  openSecondInstance,
  STAFF,
  startMuseum,
  type TestMuseum,
  VISITOR,
} from './support/museum.ts';

// Failed logins are slowed down on purpose (up to 2 s each): these tests take their time.
vi.setConfig({ testTimeout: 120_000 });

let museum: TestMuseum;
beforeAll(async () => {
  museum = await startMuseum();
});
afterAll(() => museum?.close());

async function get(
  target: TestMuseum,
  authorization: string | undefined,
  address: string,
  headers: Record<string, string> = {},
) {
  const response = await target.app.fetch(
    'http://museum.test/museum-hours?limit=1',
    { headers: { ...headers, ...(authorization ? { authorization } : {}) } },
    { req: { socket: { remoteAddress: address } } },
  );
  return { status: response.status, headers: response.headers, body: await response.json() };
}

async function graphql(authorization: string, address: string) {
  const response = await museum.app.fetch(
    'http://museum.test/graphql',
    {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ me { name } }' }),
    },
    { req: { socket: { remoteAddress: address } } },
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

describe('failed logins from one address', () => {
  it('are refused with 429 and Retry-After after the limit, REST and GraphQL, even with the right password', async () => {
    const address = '192.0.2.10';
    await fail(LOGIN_THROTTLE.addressLimit, address, 'nobody-at-all');
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
    const gql = await graphql(wrong('nobody-at-all', 99), address);
    expect(gql.status).toBe(429);
    expect(gql.headers.get('retry-after')).toBeTruthy();
    expect(gql.body.errors[0].extensions.code).toBe('TOO_MANY_REQUESTS');
    expect(gql.body.data).toBeUndefined();
    // Another address is not affected.
    expect((await get(museum, basic(OTHER_VISITOR.name, OTHER_VISITOR.password), '192.0.2.11')).status).toBe(
      200,
    );
    // Requests without credentials are not throttled: they are plain 401s.
    expect((await get(museum, undefined, address)).status).toBe(401);
  });

  it('are slowed down before they are refused', async () => {
    const address = '192.0.2.20';
    const timings: number[] = [];
    for (let i = 0; i < LOGIN_THROTTLE.slowAfter + 2; i++) {
      const started = performance.now();
      expect((await get(museum, wrong('slow-name', i), address)).status).toBe(401);
      timings.push(performance.now() - started);
    }
    // The third slowed failure waits three steps.
    expect(timings.at(-1)!).toBeGreaterThanOrEqual(3 * LOGIN_THROTTLE.delayStepMs - 20);
    expect(timings[0]!).toBeLessThan(3 * LOGIN_THROTTLE.delayStepMs);
  });

  it('are forgotten after a correct login, and after the refusal ends', async () => {
    const address = '192.0.2.30';
    const name = 'reset-visitor';
    await museum.graphql(
      'mutation($input: CreateAccountInput!) { createAccount(input: $input) { name } }',
      { input: { name, role: 'visitor', password: 'reset-password' } },
      { as: 'staff' },
    );
    await fail(LOGIN_THROTTLE.addressLimit - 1, address, name);
    expect((await get(museum, basic(name, 'reset-password'), address)).status).toBe(200);
    const rows = await museum.deps.db
      .fork()
      .execute(`select key from login_throttle where key = ?`, [`address:${address}`]);
    expect(rows).toEqual([]);
    // Counted from zero again: nine more failures are still 401s, the tenth refuses.
    await fail(LOGIN_THROTTLE.addressLimit - 1, address, 'someone-else');
    expect((await get(museum, wrong('someone-else', 50), address)).status).toBe(401);
    expect((await get(museum, basic(name, 'reset-password-wrong'), address)).status).toBe(429);

    // The refusal ends (moved into the past here, on every instance alike, as the database keeps it)...
    await museum.deps.db
      .fork()
      .execute(
        `update login_throttle set blocked_until = now() - interval '1 second', window_started_at = now() - interval '10 minutes' where key = ?`,
        [`address:${address}`],
      );
    // ...and this instance forgets what it remembered of it (as it does by itself within 30 seconds).
    museum.deps.throttle!.forgetRefusals();
    expect((await get(museum, basic(name, 'reset-password'), address)).status).toBe(200);
    // A new window: the next failure is the first again.
    expect((await get(museum, wrong(name, 77), address)).status).toBe(401);
  });
});

describe('failed logins for one account name', () => {
  it('are refused from any address once the account limit is reached', async () => {
    const name = STAFF.name;
    for (let i = 0; i < LOGIN_THROTTLE.accountLimit; i++) {
      const response = await get(museum, wrong(name, i), `198.51.100.${i + 1}`);
      expect(response.status, `failure ${i + 1}`).toBe(401);
    }
    const refused = await get(museum, basic(STAFF.name, STAFF.password), '198.51.100.200');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBeTruthy();
    // Other accounts are not affected.
    expect((await get(museum, basic(VISITOR.name, VISITOR.password), '198.51.100.201')).status).toBe(200);
    // The table holds a digest of the name, never the name itself.
    const keys = (
      await museum.deps.db.fork().execute<{ key: string }[]>('select key from login_throttle')
    ).map((row) => row.key);
    expect(keys.some((key) => key.includes(STAFF.name))).toBe(false);
    await museum.deps.db.fork().execute(`delete from login_throttle where key like 'account:%'`);
  });
});

describe('a verified credential', () => {
  it('is answered from the cache without a throttle query, and counts nothing', async () => {
    const address = '192.0.2.40';
    const authorization = basic(VISITOR.name, VISITOR.password);
    expect((await get(museum, authorization, address)).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await get(museum, authorization, address)).status).toBe(200);
    const rows = await museum.deps.db
      .fork()
      .execute(`select key from login_throttle where key = ?`, [`address:${address}`]);
    expect(rows).toEqual([]);
  });
});

describe('the client address', () => {
  it('comes from the connection, not from X-Forwarded-For, unless TRUST_PROXY says so', async () => {
    const request = new Request('http://museum.test/', {
      headers: { 'x-forwarded-for': '203.0.113.9, 10.0.0.2' },
    });
    const connection = { req: { socket: { remoteAddress: '::ffff:127.0.0.1' } } };
    expect(clientAddress(connection, request, false)).toBe('127.0.0.1');
    expect(clientAddress(connection, request, true)).toBe('10.0.0.2');
    expect(clientAddress({}, new Request('http://museum.test/'), false)).toBe('unknown');
    expect(
      clientAddress({ req: { socket: { remoteAddress: '2001:db8:1:2:3:4:5:6' } } }, request, false),
    ).toBe('2001:db8:1:2::/64');
    expect(clientAddress({ req: { socket: { remoteAddress: '2001:db8::1' } } }, request, false)).toBe(
      '2001:db8:0:0::/64',
    );
  });

  it('rotating X-Forwarded-For does not escape the limit without TRUST_PROXY', async () => {
    const address = '192.0.2.50';
    for (let i = 0; i < LOGIN_THROTTLE.addressLimit; i++) {
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
    const proxied = await startMuseum({ TRUST_PROXY: 'true' });
    try {
      const proxy = '10.0.0.1';
      for (let i = 0; i < LOGIN_THROTTLE.addressLimit; i++) {
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
      const address = '192.0.2.60';
      await fail(LOGIN_THROTTLE.addressLimit, address, 'two-instances');
      const response = await other.app.fetch(
        'http://museum.test/museum-hours',
        { headers: { authorization: basic(VISITOR.name, VISITOR.password) } },
        { req: { socket: { remoteAddress: address } } },
      );
      expect(response.status).toBe(429);
      expect(response.headers.get('retry-after')).toBeTruthy();
    } finally {
      await other.close();
    }
  });
});
