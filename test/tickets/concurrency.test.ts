// Tickets under concurrency (C4): capacity never exceeded, and one purchase per idempotency key.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openMuseum } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { execute } from '../support/db.ts';
import { recordedLogger } from '../support/leak-recording.ts';
import {
  basic,
  eventBody,
  STAFF,
  served,
  startMuseum,
  type TestMuseum,
  upcomingOpenDay,
  VISITOR,
} from '../support/museum.ts';
import { useMuseum } from '../support/use-museum.ts';

const generalTicket = (ticketDate: string, email = 'todd@example.com') => ({
  ticketType: 'general',
  ticketDate,
  email,
});

async function ticketsOn(museum: TestMuseum, date: string): Promise<number> {
  const [row] = await execute<{ n: number }[]>(
    museum.deps.db,
    'select count(*)::int as n from ticket where ticket_date = $1',
    [date],
  );
  return row!.n;
}

describe('daily capacity of general admission', () => {
  const museum = useMuseum({ MUSEUM_DAILY_CAPACITY: '10' });

  it('sells exactly the capacity to 50 concurrent buyers; the rest get 409 saying what is sold out', async () => {
    const date = upcomingOpenDay(2);
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        museum.rest('POST', '/tickets', { as: i % 2 ? 'visitor' : 'other', body: generalTicket(date) }),
      ),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(10);
    expect(statuses.filter((s) => s === 409)).toHaveLength(40);
    const refused = responses.find((r) => r.status === 409)!;
    expect(refused.headers.get('content-type')).toBe('application/problem+json');
    expect(refused.body).toMatchObject({ title: 'Conflict', status: 409 });
    expect(refused.body.detail).toContain(`General admission on ${date} is sold out`);
    expect(await ticketsOn(museum, date)).toBe(10);
  });

  it('counts each date on its own', async () => {
    const response = await museum.rest('POST', '/tickets', { body: generalTicket(upcomingOpenDay(3)) });
    expect(response.status).toBe(201);
  });

  it('answers GraphQL with CONFLICT when sold out', async () => {
    const date = upcomingOpenDay(4);
    for (let i = 0; i < 10; i++) await museum.rest('POST', '/tickets', { body: generalTicket(date) });
    const { body } = await museum.graphql(
      'mutation($input: BuyMuseumTicketsInput!) { buyMuseumTickets(input: $input) { ticketId } }',
      { input: generalTicket(date) },
    );
    expect(body.errors[0].extensions.code).toBe('CONFLICT');
  });
});

describe('Idempotency-Key', () => {
  const museum = useMuseum();

  const buy = (key: string, body: unknown, as: 'visitor' | 'other' = 'visitor') =>
    museum.rest('POST', '/tickets', { as, body, headers: { 'idempotency-key': key } });

  it('turns 20 concurrent retries into one ticket and 20 identical answers', async () => {
    const date = upcomingOpenDay(5);
    const before = await ticketsOn(museum, date);
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => buy('retry-1', generalTicket(date))),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(201));
    expect(new Set(responses.map((r) => r.text)).size).toBe(1);
    expect(new Set(responses.map((r) => r.headers.get('location'))).size).toBe(1);
    expect(await ticketsOn(museum, date)).toBe(before + 1);
  });

  it('replays the first answer for the same key and body, whatever the order of its fields', async () => {
    const date = upcomingOpenDay(6);
    const first = await buy('order-1', { ticketType: 'general', ticketDate: date, email: 'a@example.com' });
    const again = await buy('order-1', { email: 'a@example.com', ticketDate: date, ticketType: 'general' });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
  });

  it('refuses the same key with another body with 422', async () => {
    const date = upcomingOpenDay(7);
    await buy('order-2', generalTicket(date));
    const other = await buy('order-2', generalTicket(date, 'someone-else@example.com'));
    expect(other.status).toBe(422);
    expect(other.headers.get('content-type')).toBe('application/problem+json');
    expect(other.body.title).toBe('Unprocessable content');
  });

  it('keeps keys apart per account', async () => {
    const date = upcomingOpenDay(8);
    const mine = await buy('shared-key', generalTicket(date), 'visitor');
    const theirs = await buy('shared-key', generalTicket(date), 'other');
    expect(theirs.status).toBe(201);
    expect(theirs.body.ticketId).not.toBe(mine.body.ticketId);
  });

  it('lets a key that failed be used again', async () => {
    const saturday = '2099-01-03';
    expect((await buy('after-error', generalTicket(saturday))).status).toBe(400);
    expect((await buy('after-error', generalTicket(upcomingOpenDay(9)))).status).toBe(201);
  });

  it.each([
    ['', 'empty'],
    ['x'.repeat(256), 'too long'],
    ['with space', 'not visible ASCII'],
  ])('rejects the key %j (%s) with 400 naming the header', async (key) => {
    const response = await buy(key, generalTicket(upcomingOpenDay(10)));
    expect(response.status).toBe(400);
    expect(response.body.errors[0].path).toBe('Idempotency-Key');
  });

  it('works over GraphQL with the same header', async () => {
    const date = upcomingOpenDay(11);
    const send = () =>
      museum.request('POST', '/graphql', {
        as: 'visitor',
        headers: { 'idempotency-key': 'gql-1' },
        body: {
          query: 'mutation($input: BuyMuseumTicketsInput!) { buyMuseumTickets(input: $input) { ticketId } }',
          variables: { input: generalTicket(date) },
        },
      });
    const [a, b] = [await send(), await send()];
    expect(a.body.data.buyMuseumTickets.ticketId).toBe(b.body.data.buyMuseumTickets.ticketId);
  });

  it('purges answers older than 24 hours', async () => {
    const { purgeExpiredKeys } = await import('../../src/tickets/idempotency.ts');
    await buy('old-key', generalTicket(upcomingOpenDay(12)));
    await execute(
      museum.deps.db,
      `update idempotency_record set created_at = now() - interval '25 hours' where key = 'old-key'`,
    );
    expect(await purgeExpiredKeys(museum.deps.db.sql)).toBeGreaterThanOrEqual(1);
    const rows = await execute(museum.deps.db, `select key from idempotency_record where key = 'old-key'`);
    expect(rows).toHaveLength(0);
  });
});

describe('Idempotency-Key across a restart', () => {
  it('replays the stored answer from a new process on the same database', async () => {
    const dataDir = process.env.TEST_DATABASE_URL
      ? undefined
      : await mkdtemp(join(tmpdir(), 'museum-restart-'));
    const first = await startMuseum(dataDir ? { DATABASE_URL: '', MUSEUM_DATA_DIR: dataDir } : {});
    const databaseEnv = dataDir ? { MUSEUM_DATA_DIR: dataDir } : first.databaseEnv;
    const body = generalTicket(upcomingOpenDay(1));
    const headers = { 'idempotency-key': 'survives-restart' };
    const before = await first.rest('POST', '/tickets', { body, headers });
    expect(before.status).toBe(201);
    // The first process stops: its mail worker (which the sale woke) with it, then its database connections.
    await first.deps.mail?.close();
    await (dataDir ? first.close() : first.deps.db.close());

    const config = loadConfig({ ...databaseEnv, LOG_LEVEL: 'silent' });
    const second = await served(
      await openMuseum(config, {
        logger: recordedLogger(createLogger('silent')),
        announce: () => {},
      }),
    );
    try {
      const response = await second.fetch('http://museum.test/tickets', {
        method: 'POST',
        headers: {
          ...headers,
          'content-type': 'application/json',
          authorization: basic(VISITOR.name, VISITOR.password),
        },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(201);
      expect(await response.json()).toEqual(before.body);
    } finally {
      await second.close();
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
      else await first.close().catch(() => {});
    }
  });
});

describe('capacity across two server processes', () => {
  it.skipIf(!process.env.TEST_DATABASE_URL)(
    'never sells more than capacity over one PostgreSQL',
    async () => {
      const { spawnServer } = await import('../support/server.ts');
      const museum = await startMuseum({ MUSEUM_DAILY_CAPACITY: '10' });
      const env = {
        ...museum.databaseEnv,
        MUSEUM_DAILY_CAPACITY: '10',
        MUSEUM_ADMIN_USER: STAFF.name,
        MUSEUM_ADMIN_PASSWORD: STAFF.password,
      };
      const servers = await Promise.all([spawnServer(env), spawnServer(env)]);
      try {
        const date = upcomingOpenDay(13);
        const auth = basic(VISITOR.name, VISITOR.password);
        const statuses = await Promise.all(
          Array.from({ length: 50 }, async (_, i) => {
            const response = await fetch(`${servers[i % 2]!.url}/tickets`, {
              method: 'POST',
              headers: { authorization: auth, 'content-type': 'application/json' },
              body: JSON.stringify(generalTicket(date)),
            });
            return response.status;
          }),
        );
        const tally = statuses.map(String).sort().join(' ');
        expect(
          statuses.filter((s) => s === 201),
          tally,
        ).toHaveLength(10);
        expect(
          statuses.filter((s) => s === 409),
          tally,
        ).toHaveLength(40);
        expect(await ticketsOn(museum, date)).toBe(10);
      } finally {
        await Promise.all(servers.map((server) => server.stop()));
        await museum.close();
      }
    },
  );
});

describe('capacity of a special event', () => {
  const museum = useMuseum();

  const eventTicket = (eventId: string, ticketDate: string) => ({
    ticketType: 'event',
    eventId,
    ticketDate,
    email: 'todd@example.com',
  });

  it('is set on create, shown by REST and GraphQL, and sells exactly that many per date to 50 concurrent buyers', async () => {
    const created = await museum.rest('POST', '/special-events', {
      as: 'staff',
      body: eventBody({ capacity: 10 }),
    });
    expect(created.status).toBe(201);
    expect(created.body.capacity).toBe(10);
    const { eventId, dates } = created.body;
    const gql = await museum.graphql(`{ specialEvent(eventId: "${eventId}") { capacity } }`);
    expect(gql.body.data.specialEvent.capacity).toBe(10);

    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        museum.rest('POST', '/tickets', {
          as: i % 2 ? 'visitor' : 'other',
          body: eventTicket(eventId, dates[0]),
        }),
      ),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(10);
    expect(statuses.filter((s) => s === 409)).toHaveLength(40);
    expect(responses.find((r) => r.status === 409)!.body.detail).toContain('is sold out');
    expect(await ticketsOn(museum, dates[0])).toBe(10);
    // The other date has its own ten.
    expect((await museum.rest('POST', '/tickets', { body: eventTicket(eventId, dates[1]) })).status).toBe(
      201,
    );
  });

  it('is unlimited when left out or null, and absent from REST', async () => {
    const created = await museum.rest('POST', '/special-events', { as: 'staff', body: eventBody() });
    expect(created.body).not.toHaveProperty('capacity');
    const gql = await museum.graphql(`{ specialEvent(eventId: "${created.body.eventId}") { capacity } }`);
    expect(gql.body.data.specialEvent.capacity).toBeNull();
  });

  it('can be changed, but not below what is sold for a date (409)', async () => {
    const created = await museum.rest('POST', '/special-events', {
      as: 'staff',
      body: eventBody({ capacity: 5 }),
    });
    const { eventId, dates } = created.body;
    for (let i = 0; i < 3; i++)
      await museum.rest('POST', '/tickets', { body: eventTicket(eventId, dates[0]) });
    const tooLow = await museum.rest('PATCH', `/special-events/${eventId}`, {
      as: 'staff',
      body: { capacity: 2 },
    });
    expect(tooLow.status).toBe(409);
    expect(tooLow.body.detail).toContain('3 tickets already sold');
    const ok = await museum.rest('PATCH', `/special-events/${eventId}`, {
      as: 'staff',
      body: { capacity: 3 },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.capacity).toBe(3);
    expect((await museum.rest('POST', '/tickets', { body: eventTicket(eventId, dates[0]) })).status).toBe(
      409,
    );
    const unlimited = await museum.rest('PATCH', `/special-events/${eventId}`, {
      as: 'staff',
      body: { capacity: null },
    });
    expect(unlimited.status).toBe(200);
    expect(unlimited.body).not.toHaveProperty('capacity');
    expect((await museum.rest('POST', '/tickets', { body: eventTicket(eventId, dates[0]) })).status).toBe(
      201,
    );
  });

  it.each([[-1], [1.5], ['10'], [1_000_001]])(
    'rejects capacity %j with 400 naming capacity',
    async (capacity) => {
      const response = await museum.rest('POST', '/special-events', {
        as: 'staff',
        body: eventBody({ capacity }),
      });
      expect(response.status).toBe(400);
      expect(response.body.errors.map((e: { path: string }) => e.path)).toContain('capacity');
    },
  );
});
