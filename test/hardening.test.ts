// Hardening (issue 5): GraphQL abuse limits, HTTP edges (body limit, media types, methods, CORS, security
// headers, concurrency, timeouts), the auth matrix of every operation, and what never reaches a client or
// a log line.
import { createHash } from 'node:crypto';
import {
  type GraphQLField,
  type GraphQLObjectType,
  getNamedType,
  isLeafType,
  isNonNullType,
  parse,
  validate,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schema } from '../src/graph/schema.ts';
import { measureQuery, QUERY_LIMITS } from '../src/graphql/query-limits.ts';
import { BODY_LIMIT_BYTES } from '../src/protocol/request.ts';
import { routes } from '../src/rest/routes.ts';
import { execute, insertAccount } from './support/db.ts';
import {
  basic,
  eventBody,
  STAFF,
  startMuseum,
  type TestMuseum,
  todayUtc,
  upcomingOpenDay,
  VISITOR,
} from './support/museum.ts';
import { type RunningServer, spawnServer } from './support/server.ts';
import { useMuseum } from './support/use-museum.ts';

// Webhooks of the auth matrix point at 127.0.0.1:9, where nothing listens.
const museum = useMuseum({ MUSEUM_WEBHOOK_ALLOW_PRIVATE: 'true' });

let addressCounter = 0;
/** A request from an address of its own, so failed logins of one test never throttle another. */
async function call(
  target: TestMuseum,
  method: string,
  path: string,
  options: {
    authorization?: string;
    body?: BodyInit;
    headers?: Record<string, string>;
    address?: string;
  } = {},
) {
  const headers: Record<string, string> = { ...options.headers };
  if (options.authorization) headers.authorization = options.authorization;
  const address = options.address ?? `127.1.${(addressCounter >> 8) & 255}.${addressCounter++ & 255}`;
  const response = await target.fetch(
    `http://museum.test${path}`,
    { method, headers, body: options.body },
    { from: address },
  );
  const text = await readBody(response);
  let body: any;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  return { status: response.status, headers: response.headers, body, text };
}

/**
 * The body, or of a server-sent event stream (a subscription) its first `next` event's data: an open
 * subscription is left after 300 ms without one.
 */
async function readBody(response: Response): Promise<string> {
  if (!response.headers.get('content-type')?.startsWith('text/event-stream')) return response.text();
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let stream = '';
  const deadline = Date.now() + 300;
  while (!/event: (next|complete)\n/.test(stream) && Date.now() < deadline) {
    const read = await Promise.race([
      reader.read(),
      new Promise<null>((resolve) => setTimeout(resolve, deadline - Date.now(), null)),
    ]);
    if (!read || read.done) break;
    stream += decoder.decode(read.value, { stream: true });
  }
  await reader.cancel();
  return /event: next\ndata: (.*)\n/.exec(stream)?.[1] ?? '';
}

const gql = (
  target: TestMuseum,
  query: string,
  variables: Record<string, unknown> = {},
  authorization?: string,
) =>
  call(target, 'POST', '/graphql', {
    authorization: authorization ?? basic(VISITOR.name, VISITOR.password),
    body: JSON.stringify({ query, variables }),
    headers: {
      'content-type': 'application/json',
      ...(query.startsWith('subscription') ? { accept: 'text/event-stream' } : {}),
    },
  });

const expectProblem = (
  response: { status: number; headers: Headers; body: any },
  status: number,
  title: string,
) => {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  expect(response.body).toMatchObject({
    status,
    title,
    type: expect.any(String),
    detail: expect.any(String),
  });
};

describe('GraphQL abuse limits (C6)', () => {
  const expectRefused = (response: { status: number; body: any }, limit: string) => {
    expect(response.status, JSON.stringify(response.body)).toBe(400);
    expect(response.body.data).toBeUndefined();
    expect(response.body.errors[0].extensions).toMatchObject({ code: 'QUERY_LIMIT_EXCEEDED', limit });
    expect(response.body.errors[0].message).toMatch(/limit of \d+ exceeded/i);
  };

  it('refuses a query nested deeper than the limit, before running it', async () => {
    const nest = (levels: number) =>
      `{ __type(name: "Query") { ${'fields { type { '.repeat(levels)} name ${'} } '.repeat(levels)} } }`;
    expect((await gql(museum, nest(2))).status).toBe(200);
    expectRefused(await gql(museum, nest(QUERY_LIMITS.depth)), 'depth');
  });

  it('refuses too many aliases', async () => {
    const aliases = (n: number) =>
      `{ ${Array.from({ length: n }, (_, i) => `a${i}: me { name }`).join(' ')} }`;
    expect((await gql(museum, aliases(QUERY_LIMITS.aliases))).status).toBe(200);
    expectRefused(await gql(museum, aliases(QUERY_LIMITS.aliases + 1)), 'aliases');
  });

  it('refuses too many directives', async () => {
    const query = `{ me { ${Array.from({ length: QUERY_LIMITS.directives + 1 }, () => 'name @include(if: true)').join(' ')} } }`;
    expectRefused(await gql(museum, query), 'directives');
  });

  it('refuses a document of too many tokens, without parsing it (also to application/json clients)', async () => {
    const response = await gql(museum, `{ me { ${'name '.repeat(QUERY_LIMITS.tokens)} } }`);
    expectRefused(response, 'tokens');
  });

  it('refuses a query that costs too much, though each other limit is kept', async () => {
    const fields = 'eventId name location eventDescription dates price capacity';
    const query = `{ ${`specialEvents { ${fields} } `.repeat(190)} }`;
    const measured = measureQuery(schema, parse(query));
    expect(measured.depth).toBeLessThanOrEqual(QUERY_LIMITS.depth);
    expect(measured.tokens).toBeLessThanOrEqual(QUERY_LIMITS.tokens);
    expect(measured.cost).toBeGreaterThan(QUERY_LIMITS.cost);
    expectRefused(await gql(museum, query), 'cost');
  });

  it("keeps every REST route's fixed document within half of each limit", () => {
    for (const route of routes) {
      const document = parse(route.document);
      expect(validate(schema, document), route.operationId).toEqual([]);
      const measured = measureQuery(schema, document);
      for (const [limit, value] of Object.entries(measured))
        expect(value, `${route.operationId} ${limit}`).toBeLessThanOrEqual(
          QUERY_LIMITS[limit as keyof typeof QUERY_LIMITS] / 2,
        );
    }
  });

  it('leaves batching off: a list of operations is a 400, not several answers', async () => {
    const response = await call(museum, 'POST', '/graphql', {
      authorization: basic(VISITOR.name, VISITOR.password),
      body: JSON.stringify([{ query: '{ me { name } }' }, { query: '{ me { name } }' }]),
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(400);
  });

  it('keeps introspection and GraphiQL on by default (GraphiQL loads the schema)', async () => {
    const response = await gql(museum, '{ __schema { queryType { name } } }');
    expect(response.body.data.__schema.queryType.name).toBe('Query');
  });
});

describe('GRAPHQL_INTROSPECTION=false, GRAPHIQL=false', () => {
  const closed = useMuseum({ GRAPHQL_INTROSPECTION: 'false', GRAPHIQL: 'false' });

  it('refuses introspection, and errors suggest no field names', async () => {
    const introspection = await gql(closed, '{ __schema { types { name } } }');
    expect(introspection.body.data).toBeUndefined();
    expect(introspection.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(introspection.body.errors[0].message).toMatch(/introspection/i);
    const typo = await call(closed, 'POST', '/graphql', {
      authorization: basic(VISITOR.name, VISITOR.password),
      body: JSON.stringify({ query: '{ specialEvent { nam } }' }),
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
    });
    expect(typo.status).toBe(400);
    expect(typo.text).not.toMatch(/Did you mean/);
    // The same mistake with introspection on: the hint is there.
    const hinted = await gql(museum, '{ specialEvents { nam } }');
    expect(hinted.text).toMatch(/Did you mean/);
  });

  it('serves no GraphiQL page, but queries still work', async () => {
    const page = await call(closed, 'GET', '/graphql', { headers: { accept: 'text/html' } });
    expect(page.headers.get('content-type') ?? '').not.toMatch(/text\/html/);
    expect(page.text).not.toContain('GraphiQL');
    expect((await gql(closed, '{ me { name } }')).body.data.me.name).toBe(VISITOR.name);
  });
});

describe('HTTP edges (C5)', () => {
  it('refuses a body over 64 KiB with 413, REST and GraphQL, before parsing it', async () => {
    const big = JSON.stringify({ ...eventBody(), eventDescription: 'x'.repeat(BODY_LIMIT_BYTES) });
    const rest = await call(museum, 'POST', '/special-events', {
      authorization: basic(STAFF.name, STAFF.password),
      body: big,
      headers: { 'content-type': 'application/json' },
    });
    expectProblem(rest, 413, 'Payload too large');
    // Not JSON at all, and not even checked: the size is refused first.
    const garbage = await call(museum, 'POST', '/tickets', {
      body: new Uint8Array(BODY_LIMIT_BYTES + 1).fill(0xff),
      headers: { 'content-type': 'application/json' },
    });
    expectProblem(garbage, 413, 'Payload too large');
    const graphql = await call(museum, 'POST', '/graphql', {
      body: JSON.stringify({ query: `{ me { name } } # ${'x'.repeat(BODY_LIMIT_BYTES)}` }),
      headers: { 'content-type': 'application/json' },
    });
    expect(graphql.status).toBe(413);
    expect(graphql.body.errors[0].extensions.code).toBe('PAYLOAD_TOO_LARGE');
    // Exactly at the limit is still read (and then judged on its content).
    const atLimit = JSON.stringify({
      query: '{ me { name } }',
      extensions: { pad: 'x'.repeat(BODY_LIMIT_BYTES - 60) },
    });
    const padded = atLimit + ' '.repeat(BODY_LIMIT_BYTES - Buffer.byteLength(atLimit));
    expect(Buffer.byteLength(padded)).toBe(BODY_LIMIT_BYTES);
    const ok = await call(museum, 'POST', '/graphql', {
      authorization: basic(VISITOR.name, VISITOR.password),
      body: padded,
      headers: { 'content-type': 'application/json' },
    });
    expect(ok.status).toBe(200);
  });

  it('refuses a GraphQL POST that is not JSON with 415', async () => {
    for (const type of [
      'application/x-www-form-urlencoded',
      'text/plain',
      'application/graphql',
      'multipart/form-data; boundary=x',
    ]) {
      const response = await call(museum, 'POST', '/graphql', {
        authorization: basic(VISITOR.name, VISITOR.password),
        body: 'query={me{name}}',
        headers: { 'content-type': type },
      });
      expect(response.status, type).toBe(415);
      expect(response.body.errors[0].extensions.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    }
    const rest = await call(museum, 'POST', '/tickets', {
      authorization: basic(VISITOR.name, VISITOR.password),
      body: 'ticketType=general',
      headers: { 'content-type': 'text/plain' },
    });
    expectProblem(rest, 415, 'Unsupported media type');
  });

  it('answers HEAD on every GET route as GET without a body, and OPTIONS with 204 and Allow', async () => {
    const paths = new Map<string, string[]>();
    for (const route of routes) {
      const path = route.path.replace(/:\w+/g, '00000000-0000-4000-8000-000000000000');
      paths.set(path, [...(paths.get(path) ?? []), route.method]);
    }
    for (const [path, methods] of paths) {
      const options = await call(museum, 'OPTIONS', path);
      expect(options.status, path).toBe(204);
      const allow = options.headers.get('allow')!.split(', ');
      expect(allow, path).toEqual(expect.arrayContaining([...methods, 'OPTIONS']));
      if (!methods.includes('GET')) continue;
      expect(allow, path).toContain('HEAD');
      const authorization = basic(STAFF.name, STAFF.password);
      const get = await call(museum, 'GET', path, { authorization });
      const head = await call(museum, 'HEAD', path, { authorization });
      expect(head.status, path).toBe(get.status);
      expect(head.text, path).toBe('');
      expect(head.headers.get('content-type'), path).toBe(get.headers.get('content-type'));
    }
    expect((await call(museum, 'OPTIONS', '/graphql')).headers.get('allow')).toBe('GET, POST, OPTIONS');
    expect((await call(museum, 'OPTIONS', '/health/ready')).status).toBe(204);
    expect((await call(museum, 'OPTIONS', '/nowhere')).status).toBe(404);
  });

  it('answers a known path with another method 405 with Allow', async () => {
    const response = await call(museum, 'PUT', '/tickets');
    expectProblem(response, 405, 'Method not allowed');
    expect(response.headers.get('allow')).toBe('GET, POST');
  });

  it('sends security headers on every response, a CSP that fits each page, and no X-Powered-By', async () => {
    const responses = await Promise.all([
      call(museum, 'GET', '/museum-hours', { authorization: basic(VISITOR.name, VISITOR.password) }),
      call(museum, 'GET', '/museum-hours'),
      call(museum, 'GET', '/health/live'),
      call(museum, 'GET', '/openapi.json'),
      gql(museum, '{ me { name } }'),
    ]);
    for (const response of responses) {
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('referrer-policy')).toBe('no-referrer');
      expect(response.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
      expect(response.headers.has('x-powered-by')).toBe(false);
    }
    // /docs keeps its own policy: scripts from this origin only.
    const docs = await call(museum, 'GET', '/docs');
    expect(docs.headers.get('content-security-policy')).toMatch(/script-src 'self'(;|$)/);
    expect(docs.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it("lets GraphiQL's own inline script run, by its hash, and nothing from elsewhere", async () => {
    const page = await call(museum, 'GET', '/graphql', { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy')!;
    const inline = [...page.text.matchAll(/<script(\s[^>]*)?>([\s\S]*?)<\/script>/gi)]
      .filter((m) => !/\ssrc=/.test(m[1] ?? ''))
      .map((m) => `'sha256-${createHash('sha256').update(m[2]!).digest('base64')}'`);
    expect(inline.length).toBeGreaterThan(0);
    for (const hash of inline) expect(csp).toContain(hash);
    expect(csp).toMatch(/connect-src 'self'/);
    expect(csp).toMatch(/worker-src 'self' blob:/);
    expect(csp).not.toMatch(/'unsafe-eval'/);
  });

  it('sends no CORS headers while no origin is configured', async () => {
    const response = await call(museum, 'GET', '/health/live', {
      headers: { origin: 'https://evil.example' },
    });
    expect(response.headers.has('access-control-allow-origin')).toBe(false);
    const preflight = await call(museum, 'OPTIONS', '/special-events', {
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.headers.has('access-control-allow-origin')).toBe(false);
  });
});

describe('CORS_ORIGINS', () => {
  const allowed = 'https://app.example.com';
  const cors = useMuseum({ CORS_ORIGINS: `${allowed}, http://localhost:3000` });

  it('answers the preflight of an allowed origin, and names it on the actual response', async () => {
    const preflight = await call(cors, 'OPTIONS', '/special-events', {
      headers: {
        origin: allowed,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(allowed);
    expect(preflight.headers.get('access-control-allow-methods')).toMatch(/POST/);
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/Authorization/);
    expect(preflight.headers.get('vary')).toMatch(/Origin/);
    const actual = await call(cors, 'GET', '/museum-hours', {
      authorization: basic(VISITOR.name, VISITOR.password),
      headers: { origin: allowed },
    });
    expect(actual.status).toBe(200);
    expect(actual.headers.get('access-control-allow-origin')).toBe(allowed);
    expect(actual.headers.get('access-control-expose-headers')).toMatch(/Link/);
  });

  it('names no other origin', async () => {
    for (const origin of ['https://evil.example', 'https://app.example.com.evil.example', 'null']) {
      const preflight = await call(cors, 'OPTIONS', '/special-events', {
        headers: { origin, 'access-control-request-method': 'POST' },
      });
      expect(preflight.headers.has('access-control-allow-origin'), origin).toBe(false);
      const actual = await call(cors, 'GET', '/health/live', { headers: { origin } });
      expect(actual.headers.has('access-control-allow-origin'), origin).toBe(false);
      expect(actual.headers.get('vary')).toMatch(/Origin/);
    }
  });

  it('is validated at start-up', async () => {
    const { loadConfig } = await import('../src/config.ts');
    expect(() => loadConfig({ CORS_ORIGINS: 'app.example.com' })).toThrow(
      /^Invalid configuration: CORS_ORIGINS /,
    );
    expect(() => loadConfig({ CORS_ORIGINS: 'https://a.example/path' })).toThrow(/CORS_ORIGINS/);
    expect(() => loadConfig({ GRAPHIQL: 'maybe' })).toThrow(/^Invalid configuration: GRAPHIQL /);
    expect(() => loadConfig({ MAX_CONCURRENT_REQUESTS: '0' })).toThrow(/MAX_CONCURRENT_REQUESTS/);
    expect(loadConfig({}).corsOrigins).toEqual([]);
  });
});

// The in-flight caps are held by the node:http listener: test/security/ attacks them over real sockets.
describe('execution timeout', () => {
  it('answers an operation that runs past REQUEST_TIMEOUT_MS with a 503 problem', async () => {
    const hasty = await startMuseum({ REQUEST_TIMEOUT_MS: '1' });
    // On PostgreSQL the events table is locked meanwhile, so no read can finish within the millisecond by
    // luck (the embedded database is one session: a lock there would hold up the login too).
    const locker = hasty.deps.db.kind === 'embedded' ? undefined : await hasty.deps.db.pool.connect();
    await locker?.query('begin');
    try {
      await locker?.query('lock table special_event in access exclusive mode');
      const authorization = basic(VISITOR.name, VISITOR.password);
      const rest = await call(hasty, 'GET', '/special-events?limit=30', { authorization });
      expectProblem(rest, 503, 'Service unavailable');
      expect(rest.headers.get('retry-after')).toBeTruthy();
      const graphql = await gql(
        hasty,
        '{ specialEvents(limit: 30) { name } museumHours(limit: 30) { date } }',
      );
      expect(graphql.status).toBe(503);
      expect(graphql.body.errors[0].extensions.code).toBe('SERVICE_UNAVAILABLE');
      await locker?.query('commit');
      expect((await call(hasty, 'GET', '/health/ready')).status).toBe(200);
    } finally {
      await locker?.query('rollback');
      locker?.release();
      // The abandoned operations finish unseen; let them, before the pool is closed under them.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      await hasty.close();
    }
  }, 90_000);
});

/** The visitor account again, after a matrix deleted it (deleteMyAccount): the operations after need it. */
async function restoreVisitor() {
  const [known] = await execute(museum.deps.db, 'select 1 from account where name = $1', [VISITOR.name]);
  if (known) return;
  await insertAccount(museum.deps.db, { name: VISITOR.name, role: 'visitor', password: VISITOR.password });
}

describe('auth matrix: every REST operation × credentials (C2)', () => {
  const credentials = {
    none: undefined,
    garbled: 'Basic !!!not-base64!!!',
    wrong: basic(VISITOR.name, 'not-the-password'),
    visitor: basic(VISITOR.name, VISITOR.password),
    staff: basic(STAFF.name, STAFF.password),
  } as const;

  async function fixture() {
    const event = await call(museum, 'POST', '/special-events', {
      authorization: credentials.staff,
      body: JSON.stringify(eventBody()),
      headers: { 'content-type': 'application/json' },
    });
    expect(event.status).toBe(201);
    const ticket = await call(museum, 'POST', '/tickets', {
      authorization: credentials.visitor,
      body: JSON.stringify({
        ticketType: 'general',
        ticketDate: upcomingOpenDay(0),
        email: 'todd@example.com',
      }),
      headers: { 'content-type': 'application/json' },
    });
    expect(ticket.status).toBe(201);
    const subscription = await call(museum, 'POST', '/webhook-subscriptions', {
      authorization: credentials.staff,
      body: JSON.stringify({ url: 'http://127.0.0.1:9/hooks' }),
      headers: { 'content-type': 'application/json' },
    });
    expect(subscription.status).toBe(201);
    const order = await call(museum, 'POST', '/orders', {
      authorization: credentials.visitor,
      body: JSON.stringify({
        email: 'todd@example.com',
        lines: [{ ticketType: 'general', ticketDate: upcomingOpenDay(0), quantity: 2 }],
      }),
      headers: { 'content-type': 'application/json' },
    });
    expect(order.status).toBe(201);
    // A ticket of today, which a check-in admits (an event's: the museum may be closed today).
    const today = await call(museum, 'POST', '/special-events', {
      authorization: credentials.staff,
      body: JSON.stringify(eventBody({ dates: [todayUtc()] })),
      headers: { 'content-type': 'application/json' },
    });
    const todays = await call(museum, 'POST', '/tickets', {
      authorization: credentials.visitor,
      body: JSON.stringify({
        ticketType: 'event',
        eventId: today.body.eventId,
        ticketDate: todayUtc(),
        email: 'todd@example.com',
      }),
      headers: { 'content-type': 'application/json' },
    });
    expect(todays.status).toBe(201);
    return {
      eventId: event.body.eventId as string,
      ticketId: ticket.body.ticketId as string,
      subscriptionId: subscription.body.id as string,
      orderId: order.body.orderId as string,
      todaysCode: todays.body.confirmationCode as string,
    };
  }

  const bodies: Record<string, (fixture: { todaysCode: string }) => unknown> = {
    placeOrder: () => ({
      email: 'ana@example.com',
      lines: [{ ticketType: 'general', ticketDate: upcomingOpenDay(1), quantity: 2 }],
    }),
    checkIn: ({ todaysCode }) => ({ confirmationCode: todaysCode }),
    createSpecialEvent: () => eventBody(),
    updateSpecialEvent: () => ({ price: 12.5 }),
    createWebhookSubscription: () => ({ url: 'http://127.0.0.1:9/other' }),
    buyMuseumTickets: () => ({
      ticketType: 'general',
      ticketDate: upcomingOpenDay(1),
      email: 'ana@example.com',
    }),
    setPriceList: () => ({ categories: [{ category: 'adult', name: 'Adult', generalAdmission: 20 }] }),
    exportBuyerData: () => ({ email: 'todd@example.com' }),
    eraseBuyerData: () => ({ email: 'todd@example.com' }),
  };
  // Query parameters an operation cannot do without.
  const queries: Record<string, string> = {
    getSalesReport: `?startDate=${upcomingOpenDay(0)}&endDate=${upcomingOpenDay(1)}`,
  };
  const staffOnly = new Set([
    'createSpecialEvent',
    'updateSpecialEvent',
    'deleteSpecialEvent',
    'createWebhookSubscription',
    'listWebhookSubscriptions',
    'getWebhookSubscription',
    'deleteWebhookSubscription',
    'listWebhookDeliveries',
    'setPriceList',
    'getSalesReport',
    'exportBuyerData',
    'eraseBuyerData',
    'listPrivacyRequests',
    // Staff and gate accounts.
    'checkIn',
  ]);

  for (const route of routes) {
    it(`${route.method} ${route.path} (${route.operationId})`, async () => {
      for (const [who, authorization] of Object.entries(credentials)) {
        const made = await fixture();
        const { eventId, ticketId, subscriptionId, orderId } = made;
        const path = route.path
          .replace(':eventId', eventId)
          .replace(':ticketId', ticketId)
          .replace(':subscriptionId', subscriptionId)
          .replace(':orderId', orderId)
          .concat(queries[route.operationId] ?? '');
        const body = bodies[route.operationId]?.(made);
        const response = await call(museum, route.method, path, {
          authorization,
          body: body === undefined ? undefined : JSON.stringify(body),
          headers: body === undefined ? {} : { 'content-type': 'application/json' },
        });
        const where = `${who}: ${response.status} ${response.text.slice(0, 200)}`;
        if (who === 'none' || who === 'garbled' || who === 'wrong') {
          expectProblem(response, 401, 'Unauthorized');
          expect(response.headers.get('www-authenticate'), where).toBe(
            'Basic realm="Museum API", charset="UTF-8"',
          );
        } else if (who === 'visitor' && staffOnly.has(route.operationId)) {
          expectProblem(response, 403, 'Forbidden');
        } else if (route.operationId === 'deleteMyAccount' && who === 'staff') {
          // The last staff account stays.
          expectProblem(response, 409, 'Conflict');
        } else {
          expect(response.status, where).toBe(route.status);
        }
        if (route.operationId === 'deleteMyAccount' && who === 'visitor') await restoreVisitor();
        // Each fixture makes a webhook subscription; at most 100 may exist at once.
        await call(museum, 'DELETE', `/webhook-subscriptions/${subscriptionId}`, {
          authorization: credentials.staff,
        });
      }
    });
  }
});

describe('auth matrix: every GraphQL root field × credentials', () => {
  const rootTypes = {
    query: schema.getQueryType(),
    mutation: schema.getMutationType(),
    subscription: schema.getSubscriptionType(),
  };
  const operations = (['query', 'mutation', 'subscription'] as const).flatMap((kind) => {
    const type = rootTypes[kind] as GraphQLObjectType;
    return Object.values(type.getFields()).map((field) => ({ kind, field }));
  });

  /** A valid document for the field, its arguments as variables (left unset: the gate comes first). */
  function documentFor(kind: string, field: GraphQLField<unknown, unknown>) {
    const variables = field.args.map((arg) => `$${arg.name}: ${arg.type}`);
    const args = field.args.map((arg) => `${arg.name}: $${arg.name}`);
    const selection = isLeafType(getNamedType(field.type)) ? '' : ' { __typename }';
    return `${kind}${variables.length ? `(${variables.join(', ')})` : ''} { ${field.name}${args.length ? `(${args.join(', ')})` : ''}${selection} }`;
  }

  it('refuses every root field without, with garbled and with wrong credentials (401), staff fields to visitors (403)', async () => {
    for (const { kind, field } of operations) {
      const query = documentFor(kind, field);
      for (const authorization of ['Basic %%%', basic(`nobody-${field.name}`, 'wrong-password'), '']) {
        const response = await gql(museum, query, {}, authorization || 'Bearer x');
        expect(response.status, `${field.name} ${authorization}`).toBe(401);
        expect(response.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
      }
      const anonymous = await call(museum, 'POST', '/graphql', {
        body: JSON.stringify({ query }),
        headers: { 'content-type': 'application/json' },
      });
      // No field is open: Stripe's webhook, which its signature vouches for, is a route (POST /payments/stripe).
      expect(anonymous.status, field.name).toBe(401);
      const scopes = (field.extensions as { pothosOptions?: { authScopes?: Record<string, unknown> } })
        .pothosOptions?.authScopes;
      const staffOnly = scopes !== undefined && !('authenticated' in scopes) && 'staff' in scopes;
      const visitor = await gql(museum, query, {});
      if (field.name === 'deleteMyAccount') await restoreVisitor();
      const code = visitor.body?.errors?.[0]?.extensions?.code;
      if (staffOnly) expect(code, field.name).toBe('FORBIDDEN');
      else expect(code ?? 'none', field.name).not.toMatch(/FORBIDDEN|UNAUTHENTICATED/);
      const staff = await gql(museum, query, {}, basic(STAFF.name, STAFF.password));
      expect(staff.body?.errors?.[0]?.extensions?.code ?? 'none', field.name).not.toMatch(
        /FORBIDDEN|UNAUTHENTICATED/,
      );
      const required = field.args.some((arg) => isNonNullType(arg.type));
      if (required) expect(staff.body.errors[0].extensions.code, field.name).toBe('BAD_USER_INPUT');
    }
  });
});

describe('secrets never reach a client or a log line', () => {
  let server: RunningServer;
  const quiet = useMuseum();
  beforeAll(async () => {
    server = await spawnServer({
      DATABASE_URL: 'memory://',
      ...quiet.databaseEnv,
      MUSEUM_ADMIN_USER: STAFF.name,
      MUSEUM_ADMIN_PASSWORD: STAFF.password,
      LOG_LEVEL: 'debug',
    });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('logs no password, Authorization header or e-mail address, and sends no X-Powered-By over HTTP', async () => {
    const staff = basic(STAFF.name, STAFF.password);
    const wrong = basic(STAFF.name, 'guessed-password-1');
    const email = 'secret.person@example.com';
    const post = (path: string, body: unknown, authorization: string) =>
      fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const wrongAnswer = await post(
      '/tickets',
      { ticketType: 'general', ticketDate: '2020-01-01', email },
      wrong,
    );
    expect(wrongAnswer.status).toBe(401);
    expect(wrongAnswer.headers.has('x-powered-by')).toBe(false);
    expect(wrongAnswer.headers.get('x-content-type-options')).toBe('nosniff');
    expect(
      (await post('/tickets', { ticketType: 'general', ticketDate: '2020-01-01', email }, staff)).status,
    ).toBe(400);
    expect(
      (await post('/tickets', { ticketType: 'general', ticketDate: upcomingOpenDay(0), email }, staff))
        .status,
    ).toBe(201);
    await post(
      '/graphql',
      {
        query: 'mutation($i: BuyMuseumTicketsInput!) { buyMuseumTickets(input: $i) { ticketId } }',
        variables: { i: { ticketType: 'event', ticketDate: 'x', email } },
      },
      staff,
    );
    await post('/graphql', { query: '{ me { nam } }' }, `${staff}x`);
    const head = await fetch(`${server.url}/museum-hours`, {
      method: 'HEAD',
      headers: { authorization: staff },
    });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const log = server.stderr() + server.stdout();
    for (const secret of [
      STAFF.password,
      'guessed-password-1',
      staff.slice(6),
      wrong.slice(6),
      email,
      'example.com',
    ])
      expect(log, secret).not.toContain(secret);
  });

  it('streams a chunked body past 64 KiB into a 413, and a Content-Length past it too, over HTTP', async () => {
    const chunk = new TextEncoder().encode(`{"pad":"${'x'.repeat(16 * 1024)}`);
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 8) controller.enqueue(chunk);
        else controller.close();
      },
    });
    try {
      const chunked = await fetch(`${server.url}/tickets`, {
        method: 'POST',
        headers: { authorization: basic(STAFF.name, STAFF.password), 'content-type': 'application/json' },
        body: stream,
        duplex: 'half',
      } as RequestInit);
      expect(chunked.status).toBe(413);
      expect(chunked.headers.get('content-type')).toBe('application/problem+json');
    } catch (error) {
      // The server stops reading a refused upload; a client still sending may see the socket close first.
      expect(String((error as { cause?: { code?: string } }).cause?.code)).toMatch(/EPIPE|ECONNRESET/);
    }
    try {
      const declared = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ me { name } }', pad: 'x'.repeat(BODY_LIMIT_BYTES) }),
      });
      expect(declared.status).toBe(413);
    } catch (error) {
      expect(String((error as { cause?: { code?: string } }).cause?.code)).toMatch(/EPIPE|ECONNRESET/);
    }
    expect((await fetch(`${server.url}/health/ready`)).status).toBe(200);
  });
});

describe('a database that goes away', () => {
  it('is answered 503 problem+json without stack or SQL, never 500', async () => {
    const doomed = await startMuseum();
    const authorization = basic(STAFF.name, STAFF.password);
    // Verified once while the database was there, so the request reaches the operation itself.
    expect((await call(doomed, 'GET', '/special-events', { authorization })).status).toBe(200);
    // The database goes away under the running server. Embedded: its process is gone. PostgreSQL: the pool
    // would reconnect, so the museum is closed and its database dropped while its server still listens.
    if (doomed.databaseUrl) await doomed.closeBehindServer();
    else await doomed.deps.db.close();
    try {
      for (const [method, path, body] of [
        ['GET', '/special-events', undefined],
        ['POST', '/special-events', eventBody()],
        ['GET', '/museum-hours', undefined],
      ] as const) {
        const response = await call(doomed, method, path, {
          authorization,
          body: body && JSON.stringify(body),
          headers: body ? { 'content-type': 'application/json' } : {},
        });
        expectProblem(response, 503, 'Service unavailable');
        expect(response.text).not.toMatch(/select|insert|from "|at .*\.ts|Error:/i);
      }
      const graphql = await gql(doomed, '{ specialEvents { name } }', {}, authorization);
      expect(graphql.status).toBe(503);
      expect(graphql.text).not.toMatch(/select|insert|at .*\.ts/i);
      expect((await call(doomed, 'GET', '/health/ready')).status).toBe(503);
      // New credentials need the database too: still 503, not 500.
      const fresh = await call(doomed, 'GET', '/museum-hours', {
        authorization: basic(VISITOR.name, VISITOR.password),
      });
      expect(fresh.status).toBe(503);
    } finally {
      await doomed.close().catch(() => {});
    }
  }, 90_000);
});
