// GraphQL over HTTP at /graphql (src/http/graphql-endpoint.ts): queries and mutations run on the one
// operation path and are answered as yoga's own GraphQL-over-HTTP handler answers them. Each request is sent
// to the service and, for comparison, straight to yoga's handler (whose parameters run on the same runner), and
// the two answers must agree; a query's later runs (prepared, then compiled) must answer as its first did.
import { RequestCache } from '@pothos/plugin-scope-auth';
import {
  GraphQLError,
  type GraphQLOutputType,
  getNamedType,
  isAbstractType,
  isLeafType,
  isNonNullType,
  isObjectType,
} from 'graphql';
import { createYoga } from 'graphql-yoga';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { ERROR_KINDS } from '../src/common/errors.ts';
import type { RequestContext } from '../src/context.ts';
import { schema } from '../src/graph/schema.ts';
import { operationSource } from '../src/graphql/operations.ts';
import { graphqlRefusal } from '../src/http/graphql-endpoint.ts';
import { execute } from './support/db.ts';
import { basic, eventBody, STAFF, type TestResponse, VISITOR } from './support/museum.ts';
import { statementsSentBy } from './support/statements.ts';
import { useMuseum } from './support/use-museum.ts';

let event: { eventId: string; dates: string[] };

// Private webhook addresses: the compiled-queries test subscribes one (nothing is delivered to it).
const museum = useMuseum({ MUSEUM_WEBHOOK_ALLOW_PRIVATE: 'true' });
beforeAll(async () => {
  event = (await museum.rest('POST', '/special-events', { as: 'staff', body: eventBody() })).body;
});

let queryNumber = 0;
/** A query text no earlier test has sent (prepared documents are kept across tests). */
const fresh = (query: string) => `${query} # ${++queryNumber}`;

const VISITOR_AUTH = basic(VISITOR.name, VISITOR.password);

interface Sent {
  method?: string;
  path?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
}

const initOf = ({ method = 'POST', body, rawBody, headers = {} }: Sent): RequestInit => {
  const all: Record<string, string> = { authorization: VISITOR_AUTH, ...headers };
  const text = rawBody ?? (body === undefined ? undefined : JSON.stringify(body));
  if (text !== undefined) all['content-type'] ??= 'application/json';
  return { method, headers: all, body: text };
};

/** What two answers must share: status, media type and body (the same JSON, whatever its key order). */
async function shape(response: Response) {
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: response.status, contentType: response.headers.get('content-type'), body };
}

/**
 * Yoga's own GraphQL-over-HTTP handler, for comparison: its request parsing, checks and result processing,
 * with the parameters handed to the service's engine (as a yoga server's `onParams` may). Its refusals
 * without a body (406, 405) get the endpoint's one GraphQL error body, which the service's bear.
 */
const reference = createYoga({
  schema,
  maskedErrors: false,
  batching: false,
  graphiql: false,
  landingPage: false,
  extraParamNames: ['documentId'],
  plugins: [
    {
      onResponse({ response, setResponse, fetchAPI }) {
        if (response.status !== 406 || response.headers.has('content-type')) return;
        const refusal = graphqlRefusal('notAcceptable', ERROR_KINDS.notAcceptable.documented.detail);
        setResponse(new fetchAPI.Response(refusal.body as string, { status: 406, headers: refusal.headers }));
      },
      onParams({ params, request, setParamsHandler }) {
        setParamsHandler(async () => {
          const source = operationSource(params as Record<string, unknown>, museum.app.engine.documentIds);
          if (source instanceof GraphQLError) return { errors: [source] };
          return museum.app.engine.run({
            ...source,
            method: request.method,
            caller: { authorization: request.headers.get('authorization'), address: '127.0.0.1' },
            incremental: true,
          });
        });
      },
    },
  ],
});

/**
 * Yoga's own handler's answer to a request, then the service's. Yoga runs first: its serializer drops the
 * error locations of a compiled run (graphql-jit's errors carry locations but no AST nodes), so it is
 * compared on a document's first, interpreted, run.
 */
async function bothAnswers(sent: Sent) {
  const url = `http://museum.test${sent.path ?? '/graphql'}`;
  const yoga = await reference.fetch(new Request(url, initOf(sent)));
  const service = await museum.fetch(url, initOf(sent));
  return { service: await shape(service), yoga: await shape(yoga), headers: service.headers };
}

describe('GraphQL over HTTP, answered as yoga answers it', () => {
  const EVENT_QUERY = 'query One($id: UUID!) { specialEvent(eventId: $id) { eventId name dates price } }';

  it('answers a query the same the first time, once prepared, and once compiled', async () => {
    const query = fresh(EVENT_QUERY);
    const body = { query, variables: { id: event.eventId } };
    const first = await bothAnswers({ body });
    expect(first.service).toEqual(first.yoga);
    expect(first.service.body).toMatchObject({ data: { specialEvent: { eventId: event.eventId } } });
    for (let run = 0; run < 3; run++) {
      const again = await museum.fetch('http://museum.test/graphql', initOf({ body }));
      expect(await shape(again)).toEqual(first.service);
      expect(again.headers.get('cache-control')).toBe('no-store');
      expect(again.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  // envelop's graphql-jit plugin keeps one compiled query per document, whatever operationName asks for: a
  // document of several operations is never compiled (src/graphql/plugins/use-compiled-queries.ts).
  it('answers each operation of a document of several as itself, on every run', async () => {
    const query = fresh(
      'query Hours { museumHours(limit: 1) { date } } query Event($id: UUID!) { specialEvent(eventId: $id) { name } }',
    );
    const run = async (operationName: string) => {
      const response = await museum.fetch(
        'http://museum.test/graphql',
        initOf({ body: { query, operationName, variables: { id: event.eventId } } }),
      );
      return (await response.json()) as { data: Record<string, unknown> };
    };
    for (const operationName of ['Hours', 'Hours', 'Hours', 'Event', 'Event', 'Hours']) {
      const answer = await run(operationName);
      expect(Object.keys(answer.data), operationName).toEqual([
        operationName === 'Hours' ? 'museumHours' : 'specialEvent',
      ]);
    }
  });

  it('answers a query that ends in an error the same the first time and once compiled, located', async () => {
    const body = {
      query: fresh(
        'query($id: UUID!) { specialEvent(eventId: $id) { name } specialEvents(startDate: "2030-01-10", endDate: "2030-01-01") { name } }',
      ),
      variables: { id: event.eventId },
    };
    const first = await bothAnswers({ body });
    expect(first.service).toEqual(first.yoga);
    expect(first.service.body).toMatchObject({ errors: [{ locations: [{ line: 1 }] }] });
    for (let run = 0; run < 3; run++) {
      const again = await museum.fetch('http://museum.test/graphql', initOf({ body }));
      expect(await shape(again)).toEqual(first.service);
    }
  });

  it.each([
    [
      'that succeeds',
      '($id: UUID!) { updateSpecialEvent(eventId: $id, input: { price: 32 }) { eventId price } }',
    ],
    [
      'whose input breaks a rule',
      '($id: UUID!) { updateSpecialEvent(eventId: $id, input: { price: -1 }) { eventId price } }',
    ],
    [
      'of an event that does not exist',
      '{ deleteSpecialEvent(eventId: "00000000-0000-4000-8000-000000000000") }',
    ],
    [
      'of two fields, one failing',
      '($id: UUID!) { a: updateSpecialEvent(eventId: $id, input: { price: 32 }) { price } b: deleteSpecialEvent(eventId: "00000000-0000-4000-8000-000000000000") }',
    ],
  ])('answers a mutation %s the same on every run (mutations are not compiled)', async (_, operation) => {
    const body = { query: fresh(`mutation ${operation}`), variables: { id: event.eventId } };
    const staff = { authorization: basic(STAFF.name, STAFF.password) };
    const first = await bothAnswers({ body, headers: staff });
    expect(first.service).toEqual(first.yoga);
    for (let run = 0; run < 3; run++) {
      const again = await museum.fetch('http://museum.test/graphql', initOf({ body, headers: staff }));
      expect(await shape(again)).toEqual(first.service);
    }
  });

  it.each([
    ['no Accept', undefined],
    ['*/*', '*/*'],
    ['application/json', 'application/json'],
    ['application/graphql-response+json', 'application/graphql-response+json'],
    ['a weighted one', 'application/json;q=0.9'],
    ['a list', 'application/graphql-response+json, application/json'],
    ['none it serves', 'text/plain'],
    ['another charset', 'application/json; charset=latin1'],
  ])('negotiates as yoga does: %s', async (_, accept) => {
    const headers: Record<string, string> = accept ? { accept } : {};
    for (const query of [
      fresh('{ museumHours(limit: 1) { date } }'),
      fresh('{ museumHours(limit: 0) { date } }'),
    ]) {
      const { service, yoga } = await bothAnswers({ body: { query }, headers });
      expect(service, `${accept} ${query}`).toEqual(yoga);
    }
  });

  it.each([
    ['a bad variable', { query: EVENT_QUERY, variables: { id: 'not-a-uuid' } }],
    ['a missing variable', { query: EVENT_QUERY, variables: {} }],
    ['a rule broken at execution', { query: '{ specialEvents(limit: 0) { name } }' }],
    ['a syntax error', { query: '{ museumHours(' }],
    ['an unknown field', { query: '{ museumHour { date } }' }],
    ['two operations and no name', { query: 'query A { me { name } } query B { me { role } }' }],
    ['an unknown operation name', { query: 'query A { me { name } }', operationName: 'B' }],
    ['no query', { variables: {} }],
    ['a query that is not a string', { query: 42 }],
    ['variables that are no object', { query: '{ me { name } }', variables: [] }],
    ['an unexpected parameter', { query: '{ me { name } }', unexpected: true }],
    ['a subscription', { query: 'subscription { specialEventPublished { name } }' }],
    [
      'a mutation of staff',
      { query: 'mutation { deleteSpecialEvent(eventId: "00000000-0000-4000-8000-000000000000") }' },
    ],
  ])('errs as yoga does: %s', async (_, body) => {
    for (const accept of ['application/json', 'application/graphql-response+json']) {
      const query = (body as { query?: unknown }).query;
      const sent = typeof query === 'string' ? { ...body, query: fresh(query) } : body;
      const { service, yoga } = await bothAnswers({ body: sent, headers: { accept } });
      expect(service, accept).toEqual(yoga);
      expect(service.status, accept).toBeLessThan(500);
    }
  });

  it('answers GET as yoga does, and refuses a mutation over GET', async () => {
    const query = encodeURIComponent(fresh('{ museumHours(limit: 2) { date } }'));
    const read = await bothAnswers({ method: 'GET', path: `/graphql?query=${query}` });
    expect(read.service).toEqual(read.yoga);
    expect(read.headers.get('cache-control')).toBe('private, no-cache');
    const mutation = encodeURIComponent('mutation { deleteSpecialEvent(eventId: "x") }');
    const refused = await bothAnswers({ method: 'GET', path: `/graphql?query=${mutation}` });
    expect(refused.service).toEqual(refused.yoga);
    expect(refused.service.status).toBe(405);
  });

  it('refuses wrong credentials as yoga does, counting the failed login once', async () => {
    const failures = async () => {
      const [row] = await execute(
        museum.deps.db,
        `select coalesce(sum(failures), 0)::int as n from login_throttle where key like 'account:%'`,
      );
      return row!.n as number;
    };
    const before = await failures();
    const response = await museum.request('POST', '/graphql', {
      body: { query: '{ me { name } }' },
      headers: { authorization: basic(STAFF.name, 'not-the-password') },
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Basic /);
    expect(await failures()).toBe(before + 1);
  });
});

describe('one run per operation', () => {
  it('answers a compiled query that ends in an error from its one run (never running it again)', async () => {
    // museumHours reads the database; specialEvents(limit: 0) fails its rule, so the answer is an error.
    const hours = fresh('query Hours { museumHours(limit: 1) { date } }');
    const partial = fresh(
      'query Partial { museumHours(limit: 1) { date } specialEvents(limit: 0) { name } }',
    );
    for (const query of [hours, hours, partial, partial]) await museum.graphql(query, {});
    const alone = await statementsSentBy(() => museum.graphql(hours, {}));
    const { response, statements } = await statementsSentBy(() => museum.graphql(partial, {}));
    expect(response.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(alone.statements.length).toBeGreaterThan(0);
    expect(statements).toEqual(alone.statements);
  });
});

describe("an operation's per-request caches", () => {
  // Scope auth keeps its cache in a WeakMap keyed by the context, whose values V8's young collector keeps
  // alive: left there, each request's results were promoted to the old generation (docs/performance.md).
  it('are released once when the operation ends, whatever brought it', async () => {
    const released = vi.spyOn(RequestCache, 'clearForContext');
    const releasedBy = async (send: () => Promise<TestResponse>) => {
      released.mockClear();
      const response = await send();
      expect(response.status).toBe(200);
      return released.mock.calls.map(([context]) => (context as RequestContext).principal?.name);
    };
    try {
      expect(await releasedBy(() => museum.rest('GET', '/museum-hours', { as: 'visitor' }))).toEqual([
        'visitor',
      ]);
      const query = fresh('query Released { museumHours(limit: 1) { date } }');
      for (let run = 0; run < 3; run++)
        expect(await releasedBy(() => museum.graphql(query, {}))).toEqual(['visitor']);
      const mutation =
        'mutation($id: UUID!) { updateSpecialEvent(eventId: $id, input: { price: 32 }) { price } }';
      const send = () => museum.graphql(mutation, { id: event.eventId }, { as: 'staff' });
      expect(await releasedBy(send)).toEqual([STAFF.name]);
    } finally {
      released.mockRestore();
    }
  });

  it('counts each operation once in the metrics, under its name', async () => {
    const query = fresh('query Counted { museumHours(limit: 1) { date } }');
    for (let run = 0; run < 3; run++) await museum.graphql(query, {});
    const metrics = await museum.request('GET', '/metrics');
    const line = metrics.text
      .split('\n')
      .find((l) => l.startsWith('graphql_operations_total{operation_name="Counted"'));
    expect(line).toMatch(/ 3$/);
  });
});

describe('compiled queries', () => {
  /**
   * Every field of `type` down to `depth` levels, leaves as they are; null when nothing can be selected. Lists
   * take pages of 2: pages of 10 within pages of 10 would pass the query cost limit (a nested list multiplies).
   */
  function everyField(type: GraphQLOutputType, depth: number): string | null {
    const named = getNamedType(type);
    if (isLeafType(named)) return '';
    if (depth === 0 || !isObjectType(named)) return isAbstractType(named) ? '__typename' : null;
    const parts = Object.values(named.getFields())
      .filter((field) => field.args.every((arg) => !isNonNullType(arg.type)))
      .map((field) => {
        const selection = everyField(field.type, depth - 1);
        const name = field.args.some((arg) => arg.name === 'limit') ? `${field.name}(limit: 2)` : field.name;
        return selection === null ? null : selection === '' ? name : `${name} { ${selection} }`;
      })
      .filter((part) => part !== null);
    return parts.length > 0 ? parts.join(' ') : null;
  }

  // Compiled queries see Date, UUID, … as String (src/graphql/plugins/use-compiled-queries.ts); introspection must not.
  it('answer introspection with the schema as it is, compiled too', async () => {
    const query = fresh(
      '{ __type(name: "MuseumDay") { fields { name type { kind name ofType { name } } } } }',
    );
    const answers: {
      data: { __type: { fields: { name: string; type: { ofType: { name: string } } }[] } };
    }[] = [];
    for (let run = 0; run < 3; run++) {
      const response = await museum.fetch('http://museum.test/graphql', {
        method: 'POST',
        headers: { authorization: basic(STAFF.name, STAFF.password), 'content-type': 'application/json' },
        body: JSON.stringify({ query }),
      });
      answers.push(await response.json());
    }
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
    const typeOf = (name: string) =>
      answers[2]!.data.__type.fields.find((field) => field.name === name)?.type;
    expect(typeOf('date')?.ofType.name).toBe('Date');
    expect(typeOf('timeOpen')?.ofType.name).toBe('LocalTime');
  });

  // graphql-jit copies the built-in scalars and enums as resolvers return them (src/graphql/plugins/use-compiled-queries.ts):
  // every leaf of the graph must already be what graphql-js's serialization would make of it.
  it('answer every field of the graph as graphql-js does (leaves unserialized, resolvers return them exact)', async () => {
    const ticket = await museum.rest('POST', '/tickets', {
      as: 'visitor',
      body: {
        ticketType: 'event',
        eventId: event.eventId,
        ticketDate: event.dates[0],
        email: 'jit@example.com',
      },
    });
    expect(ticket.status).toBe(201);
    const subscription = await museum.rest('POST', '/webhook-subscriptions', {
      as: 'staff',
      body: { url: 'http://127.0.0.1:9/hook' },
    });
    expect(subscription.status, JSON.stringify(subscription.body)).toBe(201);
    const ids: Record<string, string> = {
      eventId: event.eventId,
      ticketId: ticket.body.ticketId,
      id: subscription.body.id,
      subscriptionId: subscription.body.id,
    };
    const queryType = schema.getQueryType()!;
    let checked = 0;
    for (const field of Object.values(queryType.getFields())) {
      const required = field.args.filter((arg) => isNonNullType(arg.type));
      if (required.some((arg) => !(arg.name in ids))) continue;
      const args = required.map((arg) => `${arg.name}: "${ids[arg.name]}"`).join(', ');
      const selection = everyField(field.type, 3);
      const query = fresh(
        `{ ${field.name}${args ? `(${args})` : ''}${selection ? ` { ${selection} }` : ''} }`,
      );
      const run = async () => {
        const response = await museum.fetch('http://museum.test/graphql', {
          method: 'POST',
          headers: { authorization: basic(STAFF.name, STAFF.password), 'content-type': 'application/json' },
          body: JSON.stringify({ query }),
        });
        return response.json() as Promise<{ data?: Record<string, unknown>; errors?: unknown }>;
      };
      // An export records itself (src/privacy/): its time and the requests before it change with each run.
      const comparable = (answer: { data?: Record<string, unknown>; errors?: unknown }) =>
        field.name === 'myData'
          ? JSON.parse(
              JSON.stringify(answer, (key, value) =>
                ['exportedAt', 'privacyRequests'].includes(key) ? undefined : value,
              ),
            )
          : answer;
      const interpreted = await run();
      expect(interpreted.errors, query).toBeUndefined();
      expect(interpreted.data?.[field.name], query).not.toBeNull();
      await run();
      expect(comparable(await run()), query).toEqual(comparable(interpreted));
      checked++;
    }
    expect(checked).toBeGreaterThanOrEqual(10);
  });
});
