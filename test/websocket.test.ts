// GraphQL over WebSocket (graphql-ws's protocol, graphql-transport-ws) on /graphql, driven by the graphql-ws
// client that Apollo Client's GraphQLWsLink and urql's subscriptionExchange use, against started servers:
// queries, mutations and subscriptions on the one operation runner, credentials at connection_init (none
// closes with 4401; a wrong one with 4403, counted as a failed login), the per-account subscription cap, the
// operation metric, the Origin rule, the per-client cap, and a draining instance closing its sockets with 1001.
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Client, createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { LOGIN_THROTTLE } from '../src/accounts/throttling.ts';
import { codeBlocks, root } from './support/docs.ts';
import { basic, eventBody, STAFF } from './support/museum.ts';
import { eventually } from './support/receiver.ts';
import {
  makeEvent,
  makeEventUntilHeard,
  type RunningServer,
  spawnServerFor,
  whenSubscribed,
  wsUrl,
} from './support/server.ts';
import { useMuseum } from './support/use-museum.ts';

// Failed logins are slowed down on purpose, and servers are started: these tests take their time.
vi.setConfig({ testTimeout: 120_000 });

const museum = useMuseum();
const STAFF_AUTH = basic(STAFF.name, STAFF.password);
const PUBLISHED = 'subscription { specialEventPublished { eventId name } }';

/** A graphql-ws client that does not retry, and tells how its socket closed. */
function clientOf(server: RunningServer, authorization?: string) {
  let resolveClosed: (event: { code: number; reason: string }) => void;
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    resolveClosed = resolve;
  });
  const client: Client = createClient({
    url: wsUrl(server),
    webSocketImpl: WebSocket,
    lazy: false,
    retryAttempts: 0,
    connectionParams: authorization ? { authorization } : {},
    on: { closed: (event) => resolveClosed(event as { code: number; reason: string }) },
    onNonLazyError: () => {},
  });
  return { client, closed };
}

/** The first result of an operation over the socket. */
async function once(client: Client, query: string, variables?: Record<string, unknown>) {
  const results = client.iterate({ query, variables });
  const { value } = await results.next();
  await results.return?.();
  return value as { data?: Record<string, unknown>; errors?: { message: string; extensions?: object }[] };
}

/** An upgrade as a browser's page would send it (ws lets the test set Origin); the status it got. */
function upgradeStatus(server: RunningServer, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(wsUrl(server), 'graphql-transport-ws', { headers });
    socket.once('open', () => {
      socket.close();
      resolve(101);
    });
    socket.once('unexpected-response', (_request, response) => {
      resolve(response.statusCode ?? 0);
      socket.terminate();
    });
    socket.once('error', (error) => {
      if (!/Unexpected server response/.test(String(error))) reject(error);
    });
  });
}

describe('GraphQL over WebSocket', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await spawnServerFor(museum, {
      MUSEUM_WEBSOCKETS_PER_CLIENT: '3',
      CORS_ORIGINS: 'https://app.example',
    });
  });
  afterAll(() => server?.stop());

  it('runs queries and mutations on the one runner, as a POST does', async () => {
    const { client } = clientOf(server, STAFF_AUTH);
    try {
      expect(await once(client, '{ me { name role } }')).toEqual({
        data: { me: { name: STAFF.name, role: 'staff' } },
      });
      const created = await once(
        client,
        'mutation Create($input: CreateSpecialEventInput!) { createSpecialEvent(input: $input) { eventId name } }',
        { input: eventBody({ name: 'Sockets and Sculptures' }) },
      );
      expect(created.data?.createSpecialEvent).toMatchObject({ name: 'Sockets and Sculptures' });
      // The query limits and input rules are the runner's: an input error names the field.
      const refused = await once(client, '{ specialEvents(limit: 0) { name } }');
      expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
    } finally {
      await client.dispose();
    }
  });

  it('subscribes: an event made over REST reaches the socket', async () => {
    const { client } = clientOf(server, STAFF_AUTH);
    try {
      const events = client.iterate({ query: PUBLISHED });
      const first = events.next();
      await whenSubscribed(server, 1);
      const eventId = await makeEvent(server);
      // The announcement of the event the test before made may still be on its way (PostgreSQL's NOTIFY
      // reaches this instance's LISTEN connection when it does): the one made here is the one awaited.
      let received = await first;
      while (
        !received.done &&
        (received.value.data?.specialEventPublished as { eventId?: string } | undefined)?.eventId !== eventId
      )
        received = await events.next();
      expect(received.value).toEqual({
        data: { specialEventPublished: expect.objectContaining({ eventId }) },
      });
      // The client's complete gives the subscription's place back.
      await events.return?.();
      await whenSubscribed(server, 0);
    } finally {
      await client.dispose();
    }
  });

  it.each(
    [
      ...codeBlocks('docs/live.md', 'The specialEventPublished subscription', 'js'),
      ...codeBlocks('docs/live.md', 'GraphQL over WebSocket', 'js'),
    ].map((block, n) => [n + 1, block] as const),
  )("docs/live.md's client example %i, run as pasted, receives an event", async (n, example) => {
    // Written under node_modules so that its imports resolve to the project's packages.
    const dir = join(root, 'node_modules', '.cache', 'museum-docs');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `live-websocket-${n}.mjs`);
    writeFileSync(
      file,
      example
        .replaceAll('127.0.0.1:4000', server.url.replace('http://', ''))
        .replaceAll('admin:change-me-now', `${STAFF.name}:${STAFF.password}`),
    );
    const child = spawn(process.execPath, [file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let printed = '';
    child.stdout!.on('data', (chunk) => {
      printed += chunk;
    });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    try {
      await whenSubscribed(server, 1);
      const eventId = await makeEvent(server);
      expect(await exited).toBe(0);
      expect(JSON.stringify(JSON.parse(printed))).toContain(`"eventId":"${eventId}"`);
    } finally {
      child.kill();
      rmSync(file, { force: true });
    }
  });

  it('closes a socket without credentials at connection_init with 4401, as HTTP answers 401', async () => {
    const { client, closed } = clientOf(server);
    const refused = once(client, PUBLISHED).then(
      () => 'answered',
      () => 'refused',
    );
    expect(await closed).toMatchObject({ code: 4401 });
    expect(await refused).toBe('refused');
    await client.dispose();
  });

  it('holds at most MUSEUM_LIVE_SUBSCRIPTIONS_PER_ACCOUNT (5) subscriptions of an account, as over SSE', async () => {
    await whenSubscribed(server, 0);
    const sockets = [clientOf(server, STAFF_AUTH), clientOf(server, STAFF_AUTH)] as const;
    const [{ client }, { client: other }] = sockets;
    try {
      const held = Array.from({ length: 5 }, () => client.iterate({ query: PUBLISHED }));
      for (const events of held) void events.next().catch(() => {});
      await whenSubscribed(server, 5);
      // A sixth, on the same socket or on another of the same account, is refused, and takes no place.
      for (const on of [client, other]) {
        const sixth = await once(on, 'subscription Sixth { specialEventPublished { eventId } }');
        expect(sixth.errors?.[0]?.extensions).toMatchObject({ code: 'TOO_MANY_REQUESTS' });
        expect(sixth.data ?? null).toBeNull();
      }
      expect(await (await fetch(`${server.url}/metrics`)).text()).toMatch(/^live_subscriptions 5$/m);
      // One given back makes room for one more.
      await held[0]!.return?.();
      await whenSubscribed(server, 4);
      const again = other.iterate({ query: PUBLISHED });
      void again.next().catch(() => {});
      await whenSubscribed(server, 5);
      await Promise.all([...held, again].map((events) => events.return?.()));
      await whenSubscribed(server, 0);
    } finally {
      await Promise.all(sockets.map(({ client }) => client.dispose()));
    }
  });

  it('counts a subscription and a @defer query as operations, like every other', async () => {
    const { client } = clientOf(server, STAFF_AUTH);
    try {
      const events = client.iterate({
        query: 'subscription CountedLive { specialEventPublished { eventId } }',
      });
      void events.next().catch(() => {});
      await whenSubscribed(server, 1);
      const deferred = client.iterate({ query: 'query CountedDefer { me { name ... @defer { role } } }' });
      const parts = [];
      for await (const part of deferred) parts.push(part);
      expect(parts.length).toBeGreaterThan(1);
      await events.return?.();
      const metrics = await (await fetch(`${server.url}/metrics`)).text();
      const counted = (name: string, type: string) =>
        new RegExp(
          `^graphql_operations_total\\{operation_name="${name}",operation_type="${type}"\\} 1$`,
          'm',
        );
      expect(metrics).toMatch(counted('CountedLive', 'subscription'));
      expect(metrics).toMatch(counted('CountedDefer', 'query'));
    } finally {
      await client.dispose();
    }
  });

  it('closes with 4403 on wrong credentials', async () => {
    const { closed } = clientOf(server, basic(STAFF.name, 'not-the-password'));
    expect(await closed).toMatchObject({ code: 4403 });
  });

  it("refuses a browser's upgrade from another origin (403), allows this origin and CORS_ORIGINS", async () => {
    expect(await upgradeStatus(server, { origin: 'https://evil.example' })).toBe(403);
    expect(await upgradeStatus(server, { origin: 'https://app.example' })).toBe(101);
    expect(await upgradeStatus(server, { origin: server.url })).toBe(101);
    expect(await upgradeStatus(server, {})).toBe(101);
  });

  it('holds at most MUSEUM_WEBSOCKETS_PER_CLIENT sockets per client address (429), and /metrics counts them', async () => {
    // The earlier tests' sockets are closed first.
    await eventually(async () =>
      /^websocket_connections 0$/m.test(await (await fetch(`${server.url}/metrics`)).text()),
    );
    const open = [clientOf(server, STAFF_AUTH), clientOf(server, STAFF_AUTH), clientOf(server, STAFF_AUTH)];
    try {
      await Promise.all(open.map(({ client }) => once(client, '{ me { name } }')));
      expect(await (await fetch(`${server.url}/metrics`)).text()).toMatch(/^websocket_connections 3$/m);
      expect(await upgradeStatus(server, {})).toBe(429);
    } finally {
      await Promise.all(open.map(({ client }) => client.dispose()));
    }
    await eventually(async () => (await upgradeStatus(server, {})) === 101);
  });
});

describe('a WebSocket with wrong credentials', () => {
  it('counts as a failed login: past the limit, HTTP is refused too (429, not 401)', async () => {
    // A name of its own: the throttle's counters live in the database, which other tests' servers may share.
    const server = await spawnServerFor(museum);
    try {
      const guess = (n: number) => basic('socket-guesser', `guess-${n}`);
      const first = await fetch(`${server.url}/museum-hours?limit=1`, {
        headers: { authorization: guess(0) },
      });
      expect(first.status).toBe(401);
      for (let attempt = 1; attempt < LOGIN_THROTTLE.pairLimit; attempt++) {
        const { closed } = clientOf(server, guess(attempt));
        expect((await closed).code).toBe(4403);
      }
      const after = await fetch(`${server.url}/museum-hours?limit=1`, {
        headers: { authorization: guess(99) },
      });
      expect(after.status).toBe(429);
    } finally {
      await server.stop();
    }
  });
});

describe('a draining instance', () => {
  it('closes its sockets with 1001 (going away), so clients reconnect elsewhere', async () => {
    const server = await spawnServerFor(museum);
    const { client, closed } = clientOf(server, STAFF_AUTH);
    try {
      const events = client.iterate({ query: PUBLISHED });
      void events.next().catch(() => {});
      await whenSubscribed(server, 1);
      const stopped = server.stop();
      expect(await closed).toMatchObject({ code: 1001 });
      expect(await stopped).toBe(0);
    } finally {
      await client.dispose();
      await server.stop();
    }
  });
});

describe.skipIf(!process.env.TEST_DATABASE_URL)('several instances (PostgreSQL)', () => {
  it('an event made through one instance reaches a socket on another', async () => {
    const [first, second] = await Promise.all([spawnServerFor(museum), spawnServerFor(museum)]);
    const { client } = clientOf(first, STAFF_AUTH);
    try {
      let heard: string | undefined;
      const stop = client.subscribe(
        { query: PUBLISHED },
        {
          next: ({ data }) => {
            heard = (data as { specialEventPublished: { eventId: string } }).specialEventPublished.eventId;
          },
          error: () => {},
          complete: () => {},
        },
      );
      await whenSubscribed(first, 1);
      expect(await makeEventUntilHeard(second, () => heard)).toBe(heard);
      stop();
    } finally {
      await client.dispose();
      await Promise.all([first.stop(), second.stop()]);
    }
  });
});
