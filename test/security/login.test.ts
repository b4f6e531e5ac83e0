// Attacks on logins: bursts of guesses sent at once, lock-out used as a weapon, bytes the database refuses.
// Every failed login and lock-out leaves an audit line; the password never reaches the log.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LOGIN_THROTTLE } from '../../src/accounts/throttling.ts';
import { basic, STAFF } from '../support/museum.ts';
import { logLines, type RunningServer, spawnServerFor } from '../support/server.ts';
import { useMuseum } from '../support/use-museum.ts';
import { expectServed, staff } from './support.ts';

let server: RunningServer;
const museum = useMuseum();
beforeAll(async () => {
  server = await spawnServerFor(museum, { MUSEUM_TRUST_PROXY: '1' });
  // A second account, on the server's own database (in memory when the tests run embedded).
  const created = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { authorization: staff, 'content-type': 'application/json' },
    body: JSON.stringify({
      query:
        'mutation { createAccount(input: {name: "guard", role: visitor, password: "guard-password"}) { name } }',
    }),
  });
  expect(created.status).toBe(200);
});
afterAll(async () => {
  await server?.stop();
});

const guard = basic('guard', 'guard-password');
const get = (authorization: string, address: string) =>
  fetch(`${server.url}/museum-hours?limit=1`, { headers: { authorization, 'x-forwarded-for': address } });

describe('a burst of guesses sent at once', () => {
  // 199 wrong passwords and the right one, all at once from one address: no more checks than the limit
  // (before this, all 200 were checked: 199 × 401 and 1 × 200).
  it('gets at most the limit of password checks; the rest is 429 with Retry-After', async () => {
    const attempts = [
      ...Array.from({ length: 199 }, (_, i) => basic(STAFF.name, `guess-${i}`)),
      basic(STAFF.name, STAFF.password),
    ];
    const legit = get(guard, '10.2.0.1');
    const answers = await Promise.all(attempts.map((authorization) => get(authorization, '10.2.0.66')));
    const statuses = answers.map((answer) => answer.status);
    const checked = statuses.filter((status) => status === 401 || status === 200).length;
    // The right password, once checked, clears its pair: at most one more limit's worth after it.
    const limit = LOGIN_THROTTLE.pairLimit * (statuses.includes(200) ? 2 : 1);
    expect(checked).toBeLessThanOrEqual(limit);
    expect(statuses.filter((status) => status === 429).length).toBe(200 - checked);
    const refused = answers.find((answer) => answer.status === 429)!;
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.headers.get('content-type')).toBe('application/problem+json');
    // Another client, another account, same moment: served.
    expect((await legit).status).toBe(200);
    await expectServed(server, { 'x-forwarded-for': '10.2.0.2' });
  });
});

describe('lock-out as a weapon', () => {
  // 21 wrong passwords for one account from one address: that pair is refused, the owner elsewhere is not.
  it('guesses against an account do not lock its owner out from another address', async () => {
    for (let i = 0; i < 21; i++) await get(basic(STAFF.name, `wrong-${i}`), '10.5.0.1');
    expect((await get(basic(STAFF.name, STAFF.password), '10.5.0.1')).status).toBe(429);
    expect((await get(staff, '10.5.0.2')).status).toBe(200);
  });

  // A guesser trying another account from the owner's own address (one office, one proxy).
  it('guesses from the same address against another account do not lock the owner out', async () => {
    for (let i = 0; i < LOGIN_THROTTLE.pairLimit + 2; i++)
      await get(basic('nobody-here', `wrong-${i}`), '10.6.0.1');
    expect((await get(basic('nobody-here', 'anything'), '10.6.0.1')).status).toBe(429);
    expect((await get(staff, '10.6.0.1')).status).toBe(200);
  });
});

describe('bytes the database would refuse', () => {
  // A NUL byte in the Basic user name: a plain 401, never "database unreachable".
  it('a NUL or control character in Basic credentials is a 401, and the database stays ready', async () => {
    for (const credentials of ['cur\u0000ator:x', 'curator:pass\u0000word', 'cur\u001bator:x']) {
      const response = await fetch(`${server.url}/museum-hours`, {
        headers: { authorization: `Basic ${Buffer.from(credentials).toString('base64')}` },
      });
      expect(response.status, JSON.stringify(credentials)).toBe(401);
      expect(response.headers.get('content-type')).toBe('application/problem+json');
    }
    // Not UTF-8 at all.
    const latin1 = await fetch(`${server.url}/museum-hours`, {
      headers: { authorization: `Basic ${Buffer.from([0x63, 0xe9, 0x3a, 0x78]).toString('base64')}` },
    });
    expect(latin1.status).toBe(401);
    expect((await fetch(`${server.url}/health/ready`)).status).toBe(200);
  });

  // A NUL inside a JSON string field is a 400 naming the field.
  it('a NUL in a JSON field is a 400 naming it', async () => {
    const response = await fetch(`${server.url}/special-events`, {
      method: 'POST',
      headers: { authorization: staff, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'a\u0000b',
        location: 'x',
        eventDescription: 'y',
        dates: ['2031-01-06'],
        price: 1,
      }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { errors: { path: string }[] }).errors.map((e) => e.path)).toContain(
      'name',
    );
  });
});

describe('the audit trail', () => {
  // Every failed login and every lock-out is a log line with the account name and address, no password.
  it('logs failed logins and lock-outs, without the password', async () => {
    for (let i = 0; i < LOGIN_THROTTLE.pairLimit + 1; i++)
      await get(basic('audited', `secret-guess-${i}`), '10.7.0.1');
    // The log is written by another process: wait for the lock-out's line, the last one, to reach the file.
    const lines = await vi.waitFor(
      () => {
        const written = logLines(server);
        expect(
          written.some((line) => line.message === 'login locked out' && line.account === 'audited'),
        ).toBe(true);
        return written;
      },
      { timeout: 10_000, interval: 50 },
    );
    const failed = lines.filter((line) => line.message === 'login failed' && line.account === 'audited');
    expect(failed).toHaveLength(LOGIN_THROTTLE.pairLimit);
    expect(failed[0]).toMatchObject({ level: 'warn', address: '10.7.0.1' });
    const lockedOut = lines.find((line) => line.message === 'login locked out' && line.account === 'audited');
    // The line says when the lock-out ends by itself: about five minutes on.
    const ends = Date.parse(String(lockedOut?.until)) - Date.now();
    expect(ends).toBeGreaterThan(200_000);
    expect(ends).toBeLessThanOrEqual(300_000);
    expect(server.stderr()).not.toContain('secret-guess');
  });
});
