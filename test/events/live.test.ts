// The `specialEventPublished` subscription over server-sent events: who may open one, what it carries, the
// cap per account, and (on PostgreSQL) an event created on one instance reaching a subscriber on another.
import { spawn } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { execute } from '../support/db.ts';
import { codeBlocks } from '../support/docs.ts';
import { type EventStream, openEventStream } from '../support/event-stream.ts';
import {
  basic,
  eventBody,
  type ListeningMuseum,
  openSecondInstance,
  STAFF,
  VISITOR,
} from '../support/museum.ts';
import { eventually } from '../support/receiver.ts';
import { spawnServerFor } from '../support/server.ts';
import { useMuseum } from '../support/use-museum.ts';

const SUBSCRIPTION = 'subscription { specialEventPublished { eventId name price capacity version } }';

const streams: EventStream[] = [];

const fetchOf = (instance: ListeningMuseum) => (input: string, init: RequestInit) =>
  instance.fetch(input, init);

async function subscribe(
  instance: ListeningMuseum = museum,
  authorization = basic(VISITOR.name, VISITOR.password),
) {
  const stream = await openEventStream(fetchOf(instance), 'http://museum.test', SUBSCRIPTION, authorization);
  streams.push(stream);
  return stream;
}

// Keep-alive comments every 200 ms, so that the test of them need not wait the default 12 s.
const museum = useMuseum({ MUSEUM_LIVE_SUBSCRIPTIONS_PER_ACCOUNT: '2', MUSEUM_SSE_KEEPALIVE_MS: '200' });
// Each test starts with no stream open: an account's places are counted.
afterEach(async () => {
  const open = streams.splice(0);
  for (const stream of open) stream.close();
  await Promise.all(open.map((stream) => stream.ended()));
});

describe('specialEventPublished', () => {
  it('streams each created and changed event to a visitor, REST and GraphQL alike', async () => {
    const stream = await subscribe();
    expect(stream.status).toBe(200);
    expect(stream.contentType).toContain('text/event-stream');
    const created = await museum.rest('POST', '/special-events', { as: 'staff', body: eventBody() });
    expect((await stream.next()).data.specialEventPublished).toEqual({
      eventId: created.body.eventId,
      name: created.body.name,
      price: 30,
      capacity: null,
      version: 'v1',
    });
    await museum.graphql(
      'mutation($id: UUID!) { updateSpecialEvent(eventId: $id, input: {price: 12}) { eventId } }',
      { id: created.body.eventId },
      { as: 'staff' },
    );
    expect((await stream.next()).data.specialEventPublished).toMatchObject({
      eventId: created.body.eventId,
      price: 12,
      version: 'v2',
    });
    stream.close();
  });

  it('/metrics counts the open streams', async () => {
    const open = async () => {
      const { text } = await museum.request('GET', '/metrics');
      return Number(/^live_subscriptions (\S+)$/m.exec(text)?.[1]);
    };
    // The streams of the tests before are closed; the server may learn of it a moment later.
    await eventually(async () => (await open()) === 0);
    const stream = await subscribe();
    expect(await open()).toBe(1);
    stream.close();
    await stream.ended();
    // The server learns of the closed connection a moment later.
    await eventually(async () => (await open()) === 0);
  });

  it('sends keep-alive comments while nothing happens', async () => {
    const stream = await subscribe();
    // Every MUSEUM_SSE_KEEPALIVE_MS (200 ms here) while no event comes.
    expect(await eventually(async () => stream.pings() > 0)).toBe(true);
    stream.close();
  });

  it('needs credentials: a stranger gets 401', async () => {
    const response = await museum.fetch('http://museum.test/graphql', {
      method: 'POST',
      headers: { accept: 'text/event-stream', 'content-type': 'application/json' },
      body: JSON.stringify({ query: SUBSCRIPTION }),
    });
    expect(response.status).toBe(401);
    expect(await response.text()).toContain('UNAUTHENTICATED');
  });

  it('asked for JSON, a subscription is 406 saying what to ask for', async () => {
    const response = await museum.fetch('http://museum.test/graphql', {
      method: 'POST',
      headers: {
        accept: 'application/json',
        'content-type': 'application/json',
        authorization: basic(VISITOR.name, VISITOR.password),
      },
      body: JSON.stringify({ query: SUBSCRIPTION }),
    });
    expect(response.status).toBe(406);
    const body = (await response.json()) as {
      errors: Array<{ message: string; extensions: { code: string } }>;
    };
    expect(body.errors[0]!.extensions.code).toBe('NOT_ACCEPTABLE');
    expect(body.errors[0]!.message).toContain('text/event-stream');
  });

  it('an account holds at most the configured number; one that closes gives its place back', async () => {
    const staff = basic(STAFF.name, STAFF.password);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const first = await subscribe(museum, staff);
    const second = await subscribe(museum, staff);
    const refused = await museum.fetch('http://museum.test/graphql', {
      method: 'POST',
      headers: { accept: 'text/event-stream', 'content-type': 'application/json', authorization: staff },
      body: JSON.stringify({ query: SUBSCRIPTION }),
    });
    const text = await refused.text();
    expect(text).toContain('TOO_MANY_REQUESTS');
    expect(text).toContain('already holds 2');
    // Another account is not held back by this one.
    const visitor = await subscribe();
    expect(visitor.status).toBe(200);
    first.close();
    await first.ended();
    const again = await eventuallyOpen(staff);
    const created = await museum.rest('POST', '/special-events', { as: 'staff', body: eventBody() });
    for (const stream of [second, again, visitor]) await nextAbout(stream, created.body.eventId);
  });
});

/** Reads on until the stream tells of `eventId` (events created earlier in the test come first). */
async function nextAbout(stream: EventStream, eventId: string) {
  for (;;) if ((await stream.next()).data.specialEventPublished.eventId === eventId) return;
}

/** The freed place is given back once the server has seen the client go. */
async function eventuallyOpen(authorization: string): Promise<EventStream> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const stream = await subscribe(museum, authorization);
    const created = await museum.rest('POST', '/special-events', { as: 'staff', body: eventBody() });
    try {
      const event = await stream.next(1_000);
      if (event.data?.specialEventPublished?.eventId === created.body.eventId) return stream;
    } catch {}
    stream.close();
    if (Date.now() > deadline) throw new Error('the closed subscription was not given back');
  }
}

describe.skipIf(!process.env.TEST_DATABASE_URL)('across instances (PostgreSQL)', () => {
  let second: ListeningMuseum;
  beforeAll(async () => {
    second = await openSecondInstance(museum);
  });
  afterAll(() => second?.close());

  it('an event created on one instance reaches a subscriber connected to another', async () => {
    const onSecond = await subscribe(second);
    const onFirst = await subscribe(museum);
    const created = await museum.rest('POST', '/special-events', { as: 'staff', body: eventBody() });
    expect((await onSecond.next()).data.specialEventPublished.eventId).toBe(created.body.eventId);
    expect((await onFirst.next()).data.specialEventPublished.eventId).toBe(created.body.eventId);
    onSecond.close();
    onFirst.close();
  });

  it('an instance whose LISTEN connection broke listens again', async () => {
    const onSecond = await subscribe(second);
    const terminated = await execute<{ pid: number }[]>(
      museum.deps.db,
      `select pid from pg_stat_activity
         where datname = current_database() and query like 'listen %' and pg_terminate_backend(pid)`,
    );
    expect(terminated).toHaveLength(2);
    // Listening again on connections of their own: a terminated backend can still show for a moment.
    await eventually(async () => {
      const [row] = await execute<{ listening: number }[]>(
        museum.deps.db,
        `select count(*)::int as listening from pg_stat_activity
           where datname = current_database() and query like 'listen %' and pid <> all($1::int[])`,
        [terminated.map(({ pid }) => pid)],
      );
      return row?.listening === 2;
    });
    const created = await museum.rest('POST', '/special-events', { as: 'staff', body: eventBody() });
    expect((await onSecond.next()).data.specialEventPublished.eventId).toBe(created.body.eventId);
  });
});

describe('the started server', () => {
  it('streams over a real socket, frees what a departed client held, and SIGTERM ends the stream and the process promptly', async () => {
    // Two places: the stream below and docs/live.md's curl, once the departed client gave its place back.
    const server = await spawnServerFor(museum, { MUSEUM_LIVE_SUBSCRIPTIONS_PER_ACCOUNT: '2' });
    try {
      // A client that goes away gives its place back, and the server goes on.
      const openAsStaff = () =>
        openEventStream(
          (input, init) => fetch(input, init),
          server.url,
          SUBSCRIPTION,
          basic(STAFF.name, STAFF.password),
        );
      const gone = await openAsStaff();
      expect(gone.status).toBe(200);
      gone.close();
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect((await fetch(`${server.url}/health/live`)).status).toBe(200);
      const stream = await openAsStaff();
      expect(stream.status).toBe(200);
      // The curl example of docs/live.md, as pasted (its server and account aside).
      const example = codeBlocks('docs/live.md', 'The specialEventPublished subscription', 'sh')
        .find((block) => block.includes('text/event-stream'))!
        .replaceAll('http://127.0.0.1:4000', server.url)
        .replaceAll('admin:change-me-now', `${STAFF.name}:${STAFF.password}`);
      const curl = spawn('bash', ['-c', example], { stdio: ['ignore', 'pipe', 'pipe'] });
      let curled = '';
      curl.stdout!.on('data', (chunk) => {
        curled += chunk;
      });
      // curl holds its place before the event is made (an event made before would not reach it).
      await eventually(async () =>
        /live_subscriptions 2$/m.test(await (await fetch(`${server.url}/metrics`)).text()),
      );
      const created = await fetch(`${server.url}/special-events`, {
        method: 'POST',
        headers: { authorization: basic(STAFF.name, STAFF.password), 'content-type': 'application/json' },
        body: JSON.stringify(eventBody()),
      });
      expect(created.status).toBe(201);
      const { eventId } = (await created.json()) as { eventId: string };
      expect((await stream.next()).data.specialEventPublished.eventId).toBe(eventId);
      await eventually(async () => curled.includes(`"eventId":"${eventId}"`));
      expect(curled).toMatch(/^event: next$/m);
      curl.kill();
      const started = Date.now();
      expect(await server.stop()).toBe(0);
      await stream.ended();
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      await server.stop();
    }
  });
});
