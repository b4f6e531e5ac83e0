// Hostile HTTP requests across every REST operation (src/rest/routes.ts, and Stripe's webhook) and every
// GraphQL root field: malformed types, huge and control-character strings, invalid UTF-8, deep JSON, odd
// content types, duplicate parameters, path tricks, garbled credentials. Shared by test/fuzz.test.ts and
// `npm run fuzz`.
import fc from 'fast-check';
import { type GraphQLField, getNamedType, isLeafType, isObjectType } from 'graphql';
import { schema } from '../../src/graph/schema.ts';
import { STRIPE_WEBHOOK_PATH } from '../../src/http/stripe-webhook.ts';
import type { Route } from '../../src/rest/route.ts';
import { routes } from '../../src/rest/routes.ts';

export interface WireRequest {
  method: string;
  /** Path and query, as sent (already encoded or deliberately not). */
  path: string;
  headers: Record<string, string>;
  body?: Uint8Array<ArrayBuffer>;
  /** Whether it went to /graphql (answered with GraphQL errors rather than problem+json). */
  graphql: boolean;
}

export interface FuzzContext {
  /** Credentials that work (HTTP Basic header values). */
  visitor: string;
  staff: string;
  /** Identifiers that exist, so near-valid requests reach the operations. */
  eventId: string;
  ticketId: string;
}

/**
 * Not fuzzed: deleting the account the fuzzing signs in with (it takes no input to garble), after which every
 * request would be a refused login. test/privacy/ and the auth matrices of test/hardening.test.ts cover it.
 */
const SIGNS_ITSELF_OUT = new Set(['deleteMyAccount']);
/** Stripe's webhook, a route of the HTTP lane (src/http/stripe-webhook.ts) rather than of routes.ts. */
const STRIPE_WEBHOOK: Pick<Route, 'operationId' | 'method' | 'path' | 'body'> = {
  operationId: 'receiveStripeEvent',
  method: 'POST',
  path: STRIPE_WEBHOOK_PATH,
  body: true,
};
const fuzzedRoutes = [...routes.filter((route) => !SIGNS_ITSELF_OUT.has(route.operationId)), STRIPE_WEBHOOK];

const utf8 = (text: string) => new Uint8Array(Buffer.from(text, 'utf8'));

const controlChars = fc.string({
  unit: fc.integer({ min: 0, max: 0x1f }).map((c) => String.fromCharCode(c)),
  minLength: 1,
  maxLength: 20,
});
const hugeString = fc
  .tuple(fc.constantFrom('x', '🦀', '\u0000', 'é', '"', '\\'), fc.constantFrom(201, 5_001, 40_000))
  .map(([char, length]) => char.repeat(length));
const weirdString = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary', maxLength: 50 }),
  controlChars,
  fc.constantFrom('\ud800', 'a\udfffb', '', ' ', 'null', '{}', '1e309', 'NaN', '2023-02-30', '9999-12-31'),
  hugeString,
);
const weirdNumber = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.constantFrom(0, -1, 1e21, 1e308, 2 ** 31, -(2 ** 31) - 1, 2 ** 53 + 2, 0.1 + 0.2),
);
const deepJson = fc.integer({ min: 20, max: 1_000 }).map((depth) => {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
  return value;
});
const weirdValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: weirdString },
  { weight: 2, arbitrary: weirdNumber },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, [], {}, [null]) },
  { weight: 1, arbitrary: deepJson },
  { weight: 1, arbitrary: fc.uuid() },
  { weight: 1, arbitrary: fc.array(fc.constantFrom('2030-01-07', '2030-01-08', 'x'), { maxLength: 400 }) },
);

/** Bodies as bytes on the wire: JSON of odd values, invalid UTF-8, truncated or enormous text. */
const wireBody = (valid: Record<string, unknown>) =>
  fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .tuple(fc.constantFrom(...Object.keys(valid), 'eventId', '__proto__', ''), weirdValue)
        .map(([k, v]) => utf8(JSON.stringify({ ...valid, [k]: v }))),
    },
    { weight: 2, arbitrary: fc.jsonValue().map((v) => utf8(JSON.stringify(v))) },
    {
      weight: 2,
      arbitrary: fc
        .uint8Array({ maxLength: 200 })
        .map((bytes) => new Uint8Array([...utf8('{"name":"'), ...bytes, 0xc3, 0x28, 0xff, ...utf8('"}')])),
    },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 300 }) },
    { weight: 1, arbitrary: deepJson.map((v) => utf8(JSON.stringify(v))) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        utf8(''),
        utf8('{'),
        utf8('{"a":1,}'),
        utf8('\ufeff{}'),
        utf8('['.repeat(60_000)),
        utf8(`${'{"a":['.repeat(9_000)}1${']}'.repeat(9_000)}`),
        utf8(`{"name":${'['.repeat(9_000)}"x"${']'.repeat(9_000)}}`),
        new Uint8Array(70_000).fill(0x41),
      ),
    },
  );

const contentType = fc.oneof(
  { weight: 6, arbitrary: fc.constant<string | undefined>('application/json') },
  {
    weight: 2,
    arbitrary: fc.constantFrom<string | undefined>(
      undefined,
      '',
      'application/json; charset=utf-8',
      'APPLICATION/JSON',
      'application/json; charset=latin1',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=xyz',
      'application/graphql',
      'application/problem+json',
      '*/*',
      ';;;',
    ),
  },
);

const printable = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  maxLength: 80,
});

const authorization = (context: FuzzContext) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constant<string | undefined>(context.visitor) },
    { weight: 3, arbitrary: fc.constant<string | undefined>(context.staff) },
    { weight: 1, arbitrary: fc.constant<string | undefined>(undefined) },
    { weight: 1, arbitrary: printable.map<string | undefined>((s) => `Basic ${s}`) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.string({ maxLength: 70 }), fc.string({ maxLength: 70 }))
        .map<string | undefined>(
          ([name, password]) => `Basic ${Buffer.from(`fuzz-${name}:${password}`).toString('base64')}`,
        ),
    },
  );

const percentGarbage = fc
  .array(
    fc.oneof(
      fc.integer({ min: 0, max: 255 }).map((b) => `%${b.toString(16).padStart(2, '0')}`),
      fc.constantFrom('%', '%zz', '%C3%28', '%00', '%2F', '%2e%2e', '..', '.', '//', ';x=1', '%u0041'),
      fc.string({ unit: fc.constantFrom('a', '-', '.', '_', '~', '0'), maxLength: 8 }),
    ),
    { minLength: 1, maxLength: 10 },
  )
  .map((parts) => parts.join(''));

const idSegment = (valid: string) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constant(valid) },
    { weight: 2, arbitrary: fc.uuid() },
    { weight: 1, arbitrary: fc.constant(valid.toUpperCase()) },
    { weight: 2, arbitrary: percentGarbage },
    { weight: 1, arbitrary: fc.string().map(encodeURIComponent) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        'a'.repeat(5_000),
        `${valid}/..`,
        `${valid}%2Fqr`,
        '%2e%2e%2f%2e%2e%2fetc%2fpasswd',
      ),
    },
  );

const queryValue = fc.oneof(
  fc.string().map(encodeURIComponent),
  percentGarbage,
  fc.integer().map(String),
  fc.constantFrom('', '1', '30', '31', '0', '-1', '1.5', '2030-01-07', '2023-02-30', 'x'.repeat(8_000)),
);
const queryString = fc
  .array(
    fc.tuple(fc.constantFrom('page', 'limit', 'startDate', 'endDate', 'page', 'x', 'PAGE', ''), queryValue),
    { maxLength: 6 },
  )
  .map((pairs) => (pairs.length ? `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}` : ''));

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

/** A request to one REST route, or near it. */
function restRequest(context: FuzzContext): fc.Arbitrary<WireRequest> {
  return fc.constantFrom(...fuzzedRoutes).chain((route) => {
    const path = fc
      .tuple(idSegment(context.eventId), idSegment(context.ticketId))
      .map(([eventId, ticketId]) => route.path.replace(':eventId', eventId).replace(':ticketId', ticketId));
    const valid: Record<string, unknown> =
      route.operationId === 'buyMuseumTickets'
        ? { ticketType: 'general', ticketDate: '2030-01-07', email: 'fuzz@example.com' }
        : { name: 'Fuzz', location: 'Hall', eventDescription: 'Fuzzing', dates: ['2030-01-07'], price: 1 };
    return fc
      .record({
        method: fc.oneof(
          { weight: 5, arbitrary: fc.constant(route.method) },
          { weight: 1, arbitrary: fc.constantFrom(...METHODS) },
        ),
        path,
        query: queryString,
        trick: fc.constantFrom('', '', '', '', '/', '//', '/.', '?', '#x'),
        body: fc.option(wireBody(valid), { freq: 2 }),
        contentType,
        authorization: authorization(context),
        accept: fc.constantFrom(undefined, 'application/json', 'text/html', '*/*', 'image/png', 'x'),
      })
      .map(({ method, path, query, trick, body, contentType: type, authorization: auth, accept }) => {
        const headers: Record<string, string> = {};
        if (type !== undefined) headers['content-type'] = type;
        if (auth !== undefined) headers.authorization = auth;
        if (accept !== undefined) headers.accept = accept;
        const hasBody = !['GET', 'HEAD'].includes(method) && (route.body ? body !== null : body !== null);
        return {
          method,
          path: `${path}${trick}${query}`,
          headers,
          body: hasBody && body ? body : undefined,
          graphql: false,
        };
      });
  });
}

const rootFields = (['query', 'mutation'] as const).flatMap((kind) => {
  const type = kind === 'query' ? schema.getQueryType()! : schema.getMutationType()!;
  return Object.values(type.getFields())
    .filter((field) => !SIGNS_ITSELF_OUT.has(field.name))
    .map((field) => ({ kind, field }));
});

function documentFor(kind: string, field: GraphQLField<unknown, unknown>): string {
  const variables = field.args.map((arg) => `$${arg.name}: ${arg.type}`);
  const args = field.args.map((arg) => `${arg.name}: $${arg.name}`);
  const named = getNamedType(field.type);
  const leaves = isObjectType(named)
    ? Object.values(named.getFields())
        .filter((inner) => isLeafType(getNamedType(inner.type)))
        .map((inner) => inner.name)
    : [];
  const selection = isLeafType(named) ? '' : ` { __typename ${leaves.join(' ')} }`;
  return `${kind}${variables.length ? `(${variables.join(', ')})` : ''} { ${field.name}${args.length ? `(${args.join(', ')})` : ''}${selection} }`;
}

/** A GraphQL request: a root field with odd variables, or a hostile document. */
function graphqlRequest(context: FuzzContext): fc.Arbitrary<WireRequest> {
  const fieldQuery = fc.constantFrom(...rootFields).chain(({ kind, field }) =>
    fc
      .dictionary(
        fc.constantFrom(...field.args.map((arg) => arg.name), 'input', 'extra'),
        fc.oneof(
          weirdValue,
          fc.dictionary(
            fc.constantFrom(
              'name',
              'dates',
              'price',
              'ticketType',
              'ticketDate',
              'email',
              'eventId',
              'weekday',
              'days',
              'role',
              'password',
              'x',
            ),
            weirdValue,
          ),
        ),
      )
      .map((variables) => ({
        query: documentFor(kind, field) as unknown,
        variables: variables as unknown,
      })),
  );
  const hostileQuery = fc.oneof(
    fc.integer({ min: 1, max: 3_000 }).map((n) => ({
      query: `{ __type(name: "Query") ${'{ fields { type '.repeat(n % 40)} name ${'} }'.repeat(n % 40)} }`,
    })),
    fc
      .integer({ min: 10, max: 400 })
      .map((n) => ({ query: `{ ${Array.from({ length: n }, (_, i) => `a${i}: me { name }`).join(' ')} }` })),
    fc
      .integer({ min: 10, max: 3_000 })
      .map((n) => ({ query: `{ me { ${'name @include(if: true) '.repeat(n % 200)} } }` })),
    fc
      .integer({ min: 100, max: 5_000 })
      .map((n) => ({ query: `{ ${'specialEvents { name } '.repeat(n)} }` })),
    fc.integer({ min: 100, max: 20_000 }).map((n) => ({ query: `${'{'.repeat(n)}${'}'.repeat(n)}` })),
    fc.string().map((query) => ({ query })),
    weirdValue.map((query) => ({ query })),
    fc.constantFrom(
      { query: 'mutation { deleteSpecialEvent(eventId: "x") }', operationName: 'nope' },
      { query: 'subscription { x }' },
      { query: '{ me { name } }', variables: 'not an object' },
      { query: '{ me { name } }', extensions: { persistedQuery: { sha256Hash: 'x' } } },
      { query: 'query A { me { name } } query B { me { name } }' },
      { query: '{ __schema { types { name fields { name } } } }' },
      { query: 'fragment F on Query { ...F } { ...F }' },
    ),
  );
  return fc
    .record({
      payload: fc.oneof({ weight: 3, arbitrary: fieldQuery }, { weight: 2, arbitrary: hostileQuery }),
      shape: fc.constantFrom('post', 'post', 'post', 'post', 'get', 'batch', 'bytes'),
      contentType,
      authorization: authorization(context),
      accept: fc.constantFrom(
        undefined,
        'application/json',
        'application/graphql-response+json',
        'text/event-stream',
        'text/html',
        '*/*',
      ),
      bytes: fc.uint8Array({ maxLength: 200 }),
    })
    .map(({ payload, shape, contentType: type, authorization: auth, accept, bytes }) => {
      const headers: Record<string, string> = {};
      if (auth !== undefined) headers.authorization = auth;
      if (accept !== undefined) headers.accept = accept;
      if (shape === 'get') {
        const search = new URLSearchParams();
        search.set(
          'query',
          typeof payload.query === 'string' ? payload.query.slice(0, 6_000) : JSON.stringify(payload.query),
        );
        if ('variables' in payload) search.set('variables', JSON.stringify(payload.variables) ?? 'null');
        return { method: 'GET', path: `/graphql?${search}`, headers, graphql: true };
      }
      if (type !== undefined) headers['content-type'] = type;
      const body =
        shape === 'bytes'
          ? new Uint8Array([
              ...utf8('{"query":"{ me { name } }","variables":{"x":"'),
              ...bytes,
              0xff,
              0xfe,
              ...utf8('"}}'),
            ])
          : utf8(JSON.stringify(shape === 'batch' ? [payload, payload] : payload) ?? 'null');
      return { method: 'POST', path: '/graphql', headers, body, graphql: true };
    });
}

/** Any hostile request, REST or GraphQL. */
export const fuzzRequest = (context: FuzzContext): fc.Arbitrary<WireRequest> =>
  fc.oneof({ weight: 3, arbitrary: restRequest(context) }, { weight: 2, arbitrary: graphqlRequest(context) });

/** What every answer must satisfy; returns the problems found (empty: fine). */
export function checkAnswer(
  request: WireRequest,
  status: number,
  contentType: string | null,
  text: string,
): string[] {
  const problems: string[] = [];
  if (status >= 500) problems.push(`a ${status}`);
  // Refused by the HTTP parser, before any route (headers or URL over 16 KiB): problem+json wherever it was sent.
  if (status === 431) {
    if (!contentType?.startsWith('application/problem+json')) problems.push('a 431 without a problem body');
    return problems;
  }
  if (request.method === 'HEAD' || status < 400 || (status === 404 && request.method === 'OPTIONS'))
    return problems;
  if (request.graphql) {
    // Server-sent events (Accept: text/event-stream): the errors come as a `data:` line.
    if (contentType?.startsWith('text/event-stream')) {
      if (!/^data: .*"errors"/m.test(text)) problems.push('an event stream without errors');
      return problems;
    }
    let body: any;
    try {
      body = JSON.parse(text);
    } catch {
      problems.push('a GraphQL error that is not JSON');
      return problems;
    }
    if (!Array.isArray(body?.errors) || body.errors.length === 0)
      problems.push('a GraphQL error without errors');
    return problems;
  }
  if (!/^application\/problem\+json(;|$)/.test(contentType ?? ''))
    problems.push(`content type ${contentType}`);
  try {
    const body = JSON.parse(text);
    if (
      body.status !== status ||
      typeof body.title !== 'string' ||
      typeof body.detail !== 'string' ||
      typeof body.type !== 'string'
    )
      problems.push('a problem body of the wrong shape');
  } catch {
    problems.push('a problem body that is not JSON');
  }
  return problems;
}

/** A short description of a request for failure messages. */
export function describeRequest(request: WireRequest): string {
  const body = request.body ? Buffer.from(request.body).toString('utf8') : '';
  return JSON.stringify({
    method: request.method,
    path: request.path.length > 200 ? `${request.path.slice(0, 200)}…` : request.path,
    headers: request.headers,
    body: body.length > 300 ? `${body.slice(0, 300)}…(${body.length} bytes)` : body,
  });
}
