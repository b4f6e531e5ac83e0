// How many SQL statements each hot request sends to the database, counted at the `pg` client that the
// statements of src/db/sql.ts (and the migrations, through Kysely) go through.
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { MuseumClient } from '../src/db/pg-client.ts';
import { eventBody, type TestResponse, upcomingOpenDay } from './support/museum.ts';
import { statementsSentBy } from './support/statements.ts';
import { useMuseum } from './support/use-museum.ts';

let event: { eventId: string; dates: string[] };

const museum = useMuseum();
beforeAll(async () => {
  event = (await museum.rest('POST', '/special-events', { as: 'staff', body: eventBody() })).body;
});

/**
 * The statements `send` causes, once the same request has run before: its credentials are then in the
 * verified-credential cache (5 s) and its statements prepared on the connection.
 */
async function statementsOf(
  send: () => Promise<TestResponse>,
): Promise<{ response: TestResponse; statements: string[] }> {
  await send();
  return statementsSentBy(send);
}

const generalTicket = (n: number) => ({
  ticketType: 'general',
  ticketDate: upcomingOpenDay(n),
  email: 'todd@example.com',
});

describe('statements per request', () => {
  it("go through the service's own pg client, given to its pool; pg itself is not patched", async () => {
    const pool = museum.deps.db.pool as unknown as { Client: unknown };
    expect(pool.Client).toBe(MuseumClient);
    expect(pg.Client.prototype.query.name).toBe('query');
    expect(MuseumClient.prototype.query).not.toBe(pg.Client.prototype.query);
  });

  it("counts a change's transaction too (the spy sees every statement)", async () => {
    let price = 30;
    const { response, statements } = await statementsOf(() =>
      museum.rest('PATCH', `/special-events/${event.eventId}`, { as: 'staff', body: { price: ++price } }),
    );
    expect(response.body.price).toBe(32);
    expect(statements).toContain('begin');
    expect(statements.some((sql) => sql.startsWith('update special_event'))).toBe(true);
  });

  it('GET /museum-hours: 1', async () => {
    const { response, statements } = await statementsOf(() => museum.rest('GET', '/museum-hours?limit=5'));
    expect(response.body).toHaveLength(5);
    expect(statements).toHaveLength(1);
  });

  it('GET /special-events with a range: 1 for the page and X-Total-Count', async () => {
    const [first] = event.dates;
    const { response, statements } = await statementsOf(() =>
      museum.rest('GET', `/special-events?startDate=${first}&endDate=${first}`),
    );
    expect(response.body.map((e: { eventId: string }) => e.eventId)).toEqual([event.eventId]);
    expect(response.headers.get('x-total-count')).toBe('1');
    expect(statements).toHaveLength(1);
  });

  it('GET /special-events/{eventId}: 1', async () => {
    const { response, statements } = await statementsOf(() =>
      museum.rest('GET', `/special-events/${event.eventId}`),
    );
    expect(response.body).toMatchObject({ eventId: event.eventId, dates: event.dates, price: 32 });
    expect(statements).toHaveLength(1);
  });

  it('GraphQL specialEventPage: 1 for the page and the total', async () => {
    const [first] = event.dates;
    const { response, statements } = await statementsOf(() =>
      museum.graphql(
        `query($start: Date) { specialEventPage(startDate: $start, endDate: $start) { items { eventId dates } total } }`,
        { start: first },
      ),
    );
    expect(response.body.data.specialEventPage).toEqual({
      items: [{ eventId: event.eventId, dates: event.dates }],
      total: 1,
    });
    expect(statements).toHaveLength(1);
  });

  it('GET /tickets/{ticketId}: 1', async () => {
    const bought = await museum.rest('POST', '/tickets', { body: generalTicket(1) });
    const { response, statements } = await statementsOf(() =>
      museum.rest('GET', `/tickets/${bought.body.ticketId}`),
    );
    expect(response.body).toMatchObject({ ticketId: bought.body.ticketId, status: 'valid' });
    expect(statements).toHaveLength(1);
  });

  it('POST /tickets, general admission, unlimited, no Idempotency-Key: 1, the insert itself (owing its mail)', async () => {
    const { response, statements } = await statementsOf(() =>
      museum.rest('POST', '/tickets', { body: generalTicket(2) }),
    );
    expect(response.status).toBe(201);
    expect(statements).toHaveLength(1);
    expect(statements[0]).toMatch(/^insert into ticket \([^)]*\bmail_owed\b/);
  });

  it('POST /tickets for an event date without a capacity: 1', async () => {
    const body = {
      ticketType: 'event',
      eventId: event.eventId,
      ticketDate: event.dates[0],
      email: 'todd@example.com',
    };
    const { response, statements } = await statementsOf(() => museum.rest('POST', '/tickets', { body }));
    expect(response.status).toBe(201);
    expect(statements).toHaveLength(1);
  });

  it('POST /tickets with an Idempotency-Key: begin, claim, purchase, answer, commit', async () => {
    let key = 0;
    const { response, statements } = await statementsOf(() =>
      museum.rest('POST', '/tickets', {
        body: generalTicket(3),
        headers: { 'idempotency-key': `statements-${++key}` },
      }),
    );
    expect(response.status).toBe(201);
    expect(statements).toHaveLength(5);
  });
});
