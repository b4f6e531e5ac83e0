// Property-based robustness of the five REST operations (contract C5: no input, however malformed,
// produces a 5xx). Every answer is either a success of the documented shape or an RFC 9457 problem whose
// `status` is the response status.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { addDays } from '../src/common/dates.ts';
import { eventBody, type TestResponse, upcomingOpenDay } from './support/museum.ts';
import { useMuseum } from './support/use-museum.ts';

type Json = any;

interface FuzzRequest {
  method: string;
  path: string;
  as?: 'staff' | 'visitor' | 'anonymous' | { authorization: string };
  rawBody?: string;
  headers?: Record<string, string>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** A real event, so near-valid event tickets reach the purchase rules. */
let event: Json;

const museum = useMuseum();
beforeAll(async () => {
  const created = await museum.rest('POST', '/special-events', {
    as: 'staff',
    body: eventBody({ dates: [upcomingOpenDay(0), upcomingOpenDay(1), upcomingOpenDay(2)] }),
  });
  expect(created.status, created.text).toBe(201);
  event = created.body;
});

/** A short, reproducible description of a request for failure messages (long values cut). */
function describeRequest(request: FuzzRequest): string {
  const cut = (s: string) => (s.length > 300 ? `${s.slice(0, 300)}…(${s.length} chars)` : s);
  return JSON.stringify({
    ...request,
    path: cut(request.path),
    rawBody: request.rawBody && cut(request.rawBody),
  });
}

/** Sends the request and checks what every answer must satisfy; returns the response for further checks. */
async function send(request: FuzzRequest): Promise<TestResponse> {
  const response = await museum.request(request.method, request.path, {
    as: request.as ?? 'visitor',
    rawBody: request.rawBody,
    headers: request.headers,
  });
  const where = `${describeRequest(request)} → ${response.status} ${response.text.slice(0, 500)}`;
  expect(response.status, where).toBeLessThan(500);
  if (response.status >= 400) {
    expect(response.headers.get('content-type'), where).toMatch(/^application\/problem\+json(;|$)/);
    const body = response.body;
    expect(typeof body, where).toBe('object');
    expect(body, where).not.toBeNull();
    expect(typeof body.type, where).toBe('string');
    expect(typeof body.title, where).toBe('string');
    expect(typeof body.detail, where).toBe('string');
    expect(body.status, where).toBe(response.status);
    if (response.status === 400) {
      expect(Array.isArray(body.errors), where).toBe(true);
      for (const issue of body.errors) {
        expect(typeof issue.path, where).toBe('string');
        expect(typeof issue.message, where).toBe('string');
      }
    }
  }
  statuses.add(response.status);
  return response;
}

/** Statuses the current property has seen: each property asserts it reached both successes and rejections. */
const statuses = new Set<number>();
beforeEach(() => statuses.clear());
function expectReached(...expected: number[]) {
  expect([...statuses].sort(), 'statuses the property reached').toEqual(expect.arrayContaining(expected));
  statuses.clear();
}

function expectEvent(body: Json, where: string) {
  expect(body.eventId, where).toMatch(UUID);
  for (const field of ['name', 'location', 'eventDescription'])
    expect(typeof body[field], where).toBe('string');
  expect(Array.isArray(body.dates), where).toBe(true);
  for (const date of body.dates) expect(date, where).toMatch(DATE);
  expect(typeof body.price, where).toBe('number');
}

// ---------------------------------------------------------------------------------------------------------
// Value generators

/** Printable ASCII: what an HTTP header value may hold. */
const headerText = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
});
const controlChars = fc.string({
  unit: fc.integer({ min: 0, max: 0x1f }).map((c) => String.fromCharCode(c)),
  minLength: 1,
});
const loneSurrogates = fc.constantFrom('\ud800', '\udfff', 'a\ud83dz', '\udc00\ud800');
const hugeString = fc
  .tuple(fc.constantFrom('x', '🦀', ' ', '\u0000', 'é'), fc.constantFrom(201, 5_001, 70_000))
  .map(([char, length]) => char.repeat(length));
const weirdString = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.string({ unit: 'grapheme' }),
  controlChars,
  loneSurrogates,
  hugeString,
  fc.constantFrom('', ' ', '\t\n', 'null', 'undefined', '[]', '{}', '0', '-1', 'NaN', 'Infinity', '1e309'),
);
const weirdNumber = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
  fc.constantFrom(
    0,
    -0,
    -1,
    0.1 + 0.2,
    1.005,
    1_000_000,
    1_000_000.01,
    1e21,
    1e308,
    -1e308,
    5e-324,
    2 ** 31,
    -(2 ** 31) - 1,
    2 ** 53 + 2,
  ),
);
const dateLike = fc.oneof(
  fc
    .date({
      min: new Date('0001-01-01T00:00:00Z'),
      max: new Date('9999-12-31T00:00:00Z'),
      noInvalidDate: true,
    })
    .map((d) => d.toISOString().slice(0, 10)),
  fc.constantFrom(
    '0000-01-01',
    '0001-01-01',
    '9999-12-31',
    '9999-12-25',
    '2023-02-30',
    '2024-02-29',
    '2023-13-01',
    '2023-00-10',
    '2023-1-1',
    '20230101',
    '2023-01-01T00:00:00Z',
    ' 2030-01-01',
    '2030-01-01\u0000',
    '+002030-01-01',
    '-2030-01-01',
    '10000-01-01',
  ),
  fc.integer({ min: -400, max: 400 }).map((n) => upcomingOpenDay(Math.abs(n))),
);
const deepArray = fc.integer({ min: 50, max: 3_000 }).map((depth) => {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
});
const deepObject = fc.integer({ min: 50, max: 3_000 }).map((depth) => {
  let value: unknown = 'bottom';
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
});
const longArray = fc
  .tuple(
    fc.constantFrom(367, 5_000, 20_000),
    fc.oneof(fc.constant(upcomingOpenDay(0)), fc.constant(1), fc.constant(null), fc.constant('x')),
  )
  .map(([length, item]) => Array.from({ length }, () => item));
const distinctDates = fc
  .integer({ min: 1, max: 400 })
  .map((n) => Array.from({ length: n }, (_, i) => upcomingOpenDay(i)));

/** Any value a JSON field could hold, from the plausible to the hostile. */
const weirdValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: weirdString },
  { weight: 3, arbitrary: weirdNumber },
  { weight: 2, arbitrary: dateLike },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, [], {}, [null], ['']) },
  { weight: 1, arbitrary: fc.array(dateLike, { maxLength: 5 }) },
  { weight: 1, arbitrary: deepArray },
  { weight: 1, arbitrary: deepObject },
  { weight: 1, arbitrary: longArray },
  { weight: 1, arbitrary: fc.uuid() },
);

const extraKey = fc.oneof(
  fc.constantFrom(
    'eventId',
    'ticketId',
    'confirmationCode',
    '__proto__',
    'constructor',
    'toString',
    '',
    'input',
  ),
  fc.string(),
);

/** A valid body with one field replaced, removed, or one key added. */
function mutated(valid: Record<string, unknown>, fields: string[]): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.tuple(fc.constantFrom(...fields), weirdValue).map(([field, value]) => ({ ...valid, [field]: value })),
    fc.constantFrom(...fields).map((field) => {
      const { [field]: _, ...rest } = valid;
      return rest;
    }),
    fc.tuple(extraKey, weirdValue).map(([key, value]) => {
      // JSON.parse makes `__proto__` an own key, so build it the same way.
      const body = JSON.parse(JSON.stringify(valid));
      Object.defineProperty(body, key, { value, enumerable: true, writable: true, configurable: true });
      return body;
    }),
  );
}

/** JSON text that is not quite JSON, or JSON of the wrong kind. */
function malformedText(valid: unknown): fc.Arbitrary<string> {
  const text = JSON.stringify(valid);
  return fc.oneof(
    fc.string(),
    fc.string({ unit: 'binary' }),
    fc.nat({ max: text.length - 1 }).map((n) => text.slice(0, n)),
    fc.constantFrom(
      '',
      ' ',
      'null',
      '[]',
      '"just a string"',
      '42',
      'NaN',
      'undefined',
      '{,}',
      '{"a":1,}',
      "{'name':'x'}",
      '\u0000',
      `\ufeff${text}`,
      `${text}${text}`,
      `${text} trailing`,
      text.replace(/"/g, "'"),
      '['.repeat(100_000),
      `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`,
      `${'['.repeat(5_000)}${']'.repeat(5_000)}`,
    ),
  );
}

const contentType = fc.oneof(
  { weight: 15, arbitrary: fc.constant<string | undefined>('application/json') },
  {
    weight: 3,
    arbitrary: fc.constantFrom<string | undefined>(
      undefined,
      '',
      'application/json; charset=utf-8',
      'APPLICATION/JSON',
      'application/json;charset=UTF-16',
      'application/json; boundary=--',
      'text/plain',
      'text/json',
      'application/problem+json',
      'application/merge-patch+json',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=xyz',
      '*/*',
      ';',
    ),
  },
  { weight: 1, arbitrary: headerText },
);

/** A body as it goes on the wire: JSON of a value, or malformed text; with a random content type. */
function wireBody(values: fc.Arbitrary<unknown>, valid: unknown) {
  return fc.tuple(
    fc.oneof(
      { weight: 4, arbitrary: values.map((value) => JSON.stringify(value)) },
      { weight: 1, arbitrary: malformedText(valid) },
    ),
    contentType,
  );
}

const callers = fc.oneof(
  { weight: 12, arbitrary: fc.constant<FuzzRequest['as']>('visitor') },
  { weight: 1, arbitrary: fc.constant<FuzzRequest['as']>('anonymous') },
  { weight: 1, arbitrary: headerText.map<FuzzRequest['as']>((authorization) => ({ authorization })) },
);

/** Percent-encoded garbage: invalid escapes, invalid UTF-8, encoded NUL and slashes. */
const percentGarbage = fc
  .array(
    fc.oneof(
      fc.integer({ min: 0, max: 255 }).map((b) => `%${b.toString(16).padStart(2, '0')}`),
      fc.constantFrom(
        '%',
        '%z',
        '%zz',
        '%C3%28',
        '%E2%82',
        '%F0%9F%A6',
        '%00',
        '%2F',
        '%2e%2e',
        '%25',
        '%u0041',
      ),
      fc.string({ unit: fc.constantFrom('a', '-', '.', '_', '~', '0', 'F') }),
    ),
    { minLength: 1, maxLength: 12 },
  )
  .map((parts) => parts.join(''));

const queryName = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('page', 'limit', 'startDate', 'endDate') },
  { weight: 1, arbitrary: fc.constantFrom('PAGE', 'page[]', 'limit ', 'eventId', '') },
  { weight: 1, arbitrary: fc.string() },
);
const queryValue = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  controlChars,
  loneSurrogates.map((s) => s.replace(/[\ud800-\udfff]/g, '?')),
  fc.integer().map(String),
  fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }).map(String),
  fc.double().map(String),
  dateLike,
  fc.constantFrom(
    '',
    '1',
    '30',
    '31',
    '0',
    '-1',
    '1.5',
    '1e3',
    '0x10',
    '+1',
    ' 1',
    '1 ',
    '١',
    '２',
    '99999999999',
  ),
  fc.constantFrom('x'.repeat(10_000)),
);
/** Query strings: encoded pairs, raw percent garbage, repeated names. */
const queryString = fc
  .array(
    fc.oneof(
      {
        weight: 4,
        arbitrary: fc
          .tuple(queryName, queryValue)
          .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`),
      },
      {
        weight: 1,
        arbitrary: fc.tuple(queryName, percentGarbage).map(([k, v]) => `${encodeURIComponent(k)}=${v}`),
      },
      { weight: 1, arbitrary: fc.constantFrom('page', 'limit=', '=', '&', 'startDate', '==1') },
    ),
    { maxLength: 6 },
  )
  .map((pairs) => pairs.join('&'));

const eventIdSegment = fc.oneof(
  fc.uuid(),
  fc.constant(() => event.eventId).map((f) => f() as string),
  fc.uuid().map((id) => id.toUpperCase()),
  fc.uuid().map((id) => `${id}x`),
  fc.uuid().map((id) => id.replace(/-/g, '')),
  fc.uuid().map((id) => `{${id}}`),
  fc.string().map(encodeURIComponent),
  fc.string({ unit: 'binary' }).map(encodeURIComponent),
  percentGarbage,
  fc.constantFrom(
    '..',
    '.',
    '%2e%2e',
    '..%2f..%2fetc%2fpasswd',
    '%00',
    '',
    'null',
    'undefined',
    '00000000-0000-0000-0000-000000000000',
    'ffffffff-ffff-ffff-ffff-ffffffffffff',
  ),
  fc.constantFrom(1_000, 10_000, 60_000).map((n) => 'a'.repeat(n)),
  fc
    .tuple(fc.uuid(), fc.constantFrom('/', '/x', '/..', '?page=0', '#frag', '%2Fqr'))
    .map(([id, s]) => `${id}${s}`),
);

// ---------------------------------------------------------------------------------------------------------

describe('fuzzing the five operations never produces a 5xx', () => {
  it('GET /museum-hours and GET /special-events with random query strings', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/museum-hours', '/special-events'),
        queryString,
        callers,
        async (path, query, as) => {
          const response = await send({ method: 'GET', path: `${path}?${query}`, as });
          if (response.status === 200) expect(Array.isArray(response.body)).toBe(true);
        },
      ),
      {
        numRuns: 1_000,
        // Always tried, so each outcome is reached: defaults, a bad limit, no credentials.
        examples: [
          ['/museum-hours', '', 'visitor'],
          ['/special-events', 'limit=31', 'visitor'],
          ['/museum-hours', 'page=1', 'anonymous'],
        ],
      },
    );
    expectReached(200, 400, 401);
  }, 60_000);

  it('/special-events/{eventId} with random path segments', async () => {
    await fc.assert(
      fc.asyncProperty(
        eventIdSegment,
        fc.constantFrom('GET', 'GET', 'GET', 'PUT', 'POST'),
        async (segment, method) => {
          const response = await send({ method, path: `/special-events/${segment}`, as: 'staff' });
          // A client resolves dot segments before sending (`/special-events/..` is `/`, the front page).
          const sent = new URL(`http://museum.test/special-events/${segment}`).pathname;
          if (response.status === 200 && sent.startsWith('/special-events/'))
            expectEvent(response.body, segment);
        },
      ),
      {
        numRuns: 600,
        examples: [
          [event.eventId, 'GET'],
          ['not-a-uuid', 'GET'],
          [randomUUID(), 'GET'],
          [event.eventId, 'PUT'],
        ],
      },
    );
    expectReached(200, 400, 404, 405);
  }, 60_000);

  it('POST /special-events with random and near-valid bodies', async () => {
    const valid = eventBody();
    const bodies = fc.oneof(
      { weight: 1, arbitrary: fc.jsonValue() },
      { weight: 1, arbitrary: fc.anything().map((v) => (v === undefined ? {} : v)) },
      { weight: 5, arbitrary: mutated(valid, ['name', 'location', 'eventDescription', 'dates', 'price']) },
      { weight: 1, arbitrary: distinctDates.map((dates) => ({ ...valid, dates })) },
    );
    await fc.assert(
      fc.asyncProperty(wireBody(bodies, valid), async ([rawBody, type]) => {
        const request: FuzzRequest = {
          method: 'POST',
          path: '/special-events',
          as: 'staff',
          rawBody,
          headers: type === undefined ? {} : { 'content-type': type },
        };
        const response = await send(request);
        if (response.status === 201) {
          const where = describeRequest(request);
          expectEvent(response.body, where);
          const sent = JSON.parse(rawBody);
          for (const field of ['name', 'location', 'eventDescription', 'price'])
            expect(response.body[field], where).toStrictEqual(sent[field]);
          expect([...response.body.dates].sort(), where).toEqual([...sent.dates].sort());
          expect(response.headers.get('location'), where).toBe(`/special-events/${response.body.eventId}`);
          // What the 201 promised is what was stored.
          const read = await send({
            method: 'GET',
            path: `/special-events/${response.body.eventId}`,
            as: 'staff',
          });
          expect(read.status, where).toBe(200);
          expect(read.body, `${where}: read back`).toStrictEqual(response.body);
        }
      }),
      {
        numRuns: 600,
        // Always tried: text that is not valid Unicode (lone UTF-16 surrogates) and NUL.
        examples: [
          [[JSON.stringify(valid), 'application/json']],
          [[JSON.stringify(valid), 'text/plain']],
          [[JSON.stringify(eventBody({ name: 'a\ud800b' })), 'application/json']],
          [[JSON.stringify(eventBody({ location: 'x\udc00' })), 'application/json']],
          [[JSON.stringify(eventBody({ eventDescription: 'nul \u0000 inside' })), 'application/json']],
        ],
      },
    );
    expectReached(201, 400, 415);
  }, 60_000);

  it('POST /tickets with random and near-valid bodies', async () => {
    const general = { ticketType: 'general', ticketDate: upcomingOpenDay(0), email: 'todd@example.com' };
    const forEvent = () => ({
      ticketType: 'event',
      eventId: event.eventId,
      ticketDate: event.dates[0],
      email: 'todd@example.com',
    });
    const fields = ['ticketType', 'ticketDate', 'email', 'eventId'];
    const bodies = fc.oneof(
      { weight: 1, arbitrary: fc.jsonValue() },
      { weight: 1, arbitrary: fc.anything().map((v) => (v === undefined ? {} : v)) },
      { weight: 3, arbitrary: mutated(general, fields) },
      { weight: 3, arbitrary: fc.constant(null).chain(() => mutated(forEvent(), fields)) },
    );
    await fc.assert(
      fc.asyncProperty(wireBody(bodies, general), callers, async ([rawBody, type], as) => {
        const request: FuzzRequest = {
          method: 'POST',
          path: '/tickets',
          as,
          rawBody,
          headers: type === undefined ? {} : { 'content-type': type },
        };
        const response = await send(request);
        if (response.status === 201) {
          const where = describeRequest(request);
          const body = response.body;
          expect(body.ticketId, where).toMatch(UUID);
          expect(['general', 'event'], where).toContain(body.ticketType);
          expect(body.ticketDate, where).toMatch(DATE);
          expect(body.confirmationCode, where).toMatch(/^ticket-(general|event)-[0-9a-f]{6}-[0-9a-f]{5}$/);
          expect(typeof body.message, where).toBe('string');
          if (body.ticketType === 'event') {
            expect(body.eventId, where).toMatch(UUID);
            expect(typeof body.eventName, where).toBe('string');
          }
          expect(response.headers.get('location'), where).toBe(`/tickets/${body.ticketId}`);
        }
      }),
      {
        numRuns: 800,
        examples: [
          [[JSON.stringify(general), 'application/json'], 'visitor'],
          [[JSON.stringify(general), undefined], 'visitor'],
          [[JSON.stringify({ ...forEvent(), eventId: randomUUID() }), 'application/json'], 'visitor'],
          [[JSON.stringify(forEvent()), 'application/json'], 'anonymous'],
        ],
      },
    );
    expectReached(201, 400, 401, 404, 415);
  }, 60_000);

  const calendarDate = fc
    .date({
      min: new Date('0001-01-01T00:00:00Z'),
      max: new Date('9999-12-31T00:00:00Z'),
      noInvalidDate: true,
    })
    .map((d) => d.toISOString().slice(0, 10));
  const calendarEdges: [string][] = [['0001-01-01'], ['9999-12-20'], ['9999-12-25'], ['9999-12-31']];

  it('GET /museum-hours: any calendar date, to the ends of the calendar, is a startDate', async () => {
    await fc.assert(
      fc.asyncProperty(calendarDate, async (startDate) => {
        const where = `GET /museum-hours?startDate=${startDate}&limit=1`;
        const hours = await send({ method: 'GET', path: `/museum-hours?startDate=${startDate}&limit=1` });
        expect(hours.status, where).toBe(200);
        // The regular schedule: the first Monday-to-Friday on or after startDate, if the calendar has one.
        let first: string | undefined = startDate;
        while (first && [0, 6].includes(new Date(`${first}T00:00:00Z`).getUTCDay())) {
          first = first === '9999-12-31' ? undefined : addDays(first, 1);
        }
        expect(
          hours.body.map((day: Json) => day.date),
          where,
        ).toEqual(first ? [first] : []);
      }),
      { numRuns: 100, examples: calendarEdges },
    );
    expectReached(200);
  }, 60_000);

  it('GET /special-events: any calendar date is a startDate, and without endDate the range is never reversed', async () => {
    await fc.assert(
      fc.asyncProperty(calendarDate, async (startDate) => {
        const events = await send({ method: 'GET', path: `/special-events?startDate=${startDate}` });
        expect(events.status, `GET /special-events?startDate=${startDate} → ${events.text}`).toBe(200);
        expect(Array.isArray(events.body)).toBe(true);
      }),
      { numRuns: 100, examples: calendarEdges },
    );
    expectReached(200);
  }, 60_000);

  it('is still ready afterwards', async () => {
    const response = await museum.request('GET', '/health/ready');
    expect(response.status).toBe(200);
  });
});

// ---------------------------------------------------------------------------------------------------------
// Hardening (issue 5): every REST operation and every GraphQL root field, with raw bytes on the wire.

describe('fuzzing every REST operation and GraphQL field never produces a 5xx', () => {
  it('hostile requests (invalid UTF-8, deep JSON, odd types, duplicate parameters, path tricks) get 4xx answers of the right shape', async () => {
    const { fuzzRequest, checkAnswer, describeRequest } = await import('./support/fuzz-requests.ts');
    const { basic, STAFF, VISITOR } = await import('./support/museum.ts');
    const ticket = await museum.rest('POST', '/tickets', {
      body: { ticketType: 'general', ticketDate: upcomingOpenDay(0), email: 'fuzz@example.com' },
    });
    expect(ticket.status).toBe(201);
    const context = {
      visitor: basic(VISITOR.name, VISITOR.password),
      staff: basic(STAFF.name, STAFF.password),
      eventId: event.eventId as string,
      ticketId: ticket.body.ticketId as string,
    };
    let sent = 0;
    await fc.assert(
      fc.asyncProperty(fuzzRequest(context), async (request) => {
        // Each from an address of its own: garbled credentials would otherwise throttle the rest (429).
        const address = `127.77.${(sent >> 8) & 255}.${sent++ & 255}`;
        const response = await museum.fetch(
          `http://museum.test${request.path}`,
          { method: request.method, headers: request.headers, body: request.body },
          { from: address },
        );
        const text = await response.text();
        const problems = checkAnswer(request, response.status, response.headers.get('content-type'), text);
        expect(problems, `${describeRequest(request)} → ${response.status} ${text.slice(0, 300)}`).toEqual(
          [],
        );
        statuses.add(response.status);
      }),
      { numRuns: 800 },
    );
    expectReached(200, 400, 401, 404);
    expect((await museum.request('GET', '/health/ready')).status).toBe(200);
  }, 180_000);
});
