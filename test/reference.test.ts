// The Redocly Museum API 1.2.1 reference document as a compatibility test: every response of the
// implemented operations validates against the reference's own schemas, the reference's request examples
// (dates moved to upcoming days) are accepted, and every implemented operationId answers.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { addDays } from '../src/common/dates.ts';
import { routes } from '../src/rest/routes.ts';
import { eventBody, type TestResponse, upcoming, upcomingOpenDay } from './support/museum.ts';
import { useMuseum } from './support/use-museum.ts';

type Json = any;

const reference: Json = parse(
  readFileSync(new URL('./fixtures/museum-openapi.yaml', import.meta.url), 'utf8'),
);
const REFERENCE_ID = 'https://museum.test/reference/openapi.json';

// Both are CommonJS whose `module.exports` is also their `default`, however the importer interops.
const Ajv2020 = Ajv2020Module.default;
const addFormats = addFormatsModule.default;

// 2020-12 with formats; `example` siblings of `$ref` are annotations, so unknown keywords are tolerated.
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema({ $id: REFERENCE_ID, components: { schemas: reference.components.schemas } });

function validatorFor(name: string) {
  const validate = ajv.getSchema(`${REFERENCE_ID}#/components/schemas/${name}`);
  if (!validate) throw new Error(`The reference has no schema ${name}`);
  return validate;
}

/** Asserts `value` validates against the reference's component schema `name`, showing Ajv's errors if not. */
function expectReferenceSchema(name: string, value: unknown) {
  const validate = validatorFor(name);
  const ok = validate(value);
  expect(ok ? [] : validate.errors, `${name}: ${JSON.stringify(value)}`).toEqual([]);
}

/** The component schema named by a `$ref` of the operation's `status` response (after response refs). */
function responseSchemaName(path: string, method: string, status: string): string {
  let response = reference.paths[path][method].responses[status];
  if (response.$ref) response = reference.components.responses[response.$ref.split('/').pop()];
  const content = response.content['application/json'] ?? response.content['application/problem+json'];
  return content.schema.$ref.split('/').pop();
}

const example = (name: string): Json => structuredClone(reference.components.examples[name].value);
const parameterExample = (name: string): Json => reference.components.parameters[name].schema.example;

const PROBLEM_KEYS = ['detail', 'status', 'title', 'type'];
const TITLES: Record<number, string> = {
  400: 'Validation failed',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not found',
};

/** An error answer: problem+json, the reference `Error` schema, and the contract's C5 shape. */
function expectProblem(response: TestResponse, status: number) {
  expect(response.status, response.text).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json(;|$)/);
  expectReferenceSchema('Error', response.body);
  const { body } = response;
  expect(Object.keys(body).sort()).toEqual(
    status === 400 ? [...PROBLEM_KEYS, 'errors'].sort() : PROBLEM_KEYS,
  );
  expect(typeof body.type).toBe('string');
  expect(body.type.length).toBeGreaterThan(0);
  expect(body.title).toBe(TITLES[status]);
  expect(body.status).toBe(status);
  expect(typeof body.detail).toBe('string');
  expect(body.detail.length).toBeGreaterThan(0);
  if (status === 400) {
    expect(Array.isArray(body.errors)).toBe(true);
    expect(body.errors.length).toBeGreaterThan(0);
    for (const issue of body.errors) {
      expect(Object.keys(issue).sort()).toEqual(['message', 'path']);
      expect(typeof issue.path).toBe('string');
      expect(typeof issue.message).toBe('string');
      expect(issue.message.length).toBeGreaterThan(0);
    }
  }
}

const sortedKeys = (value: object) => Object.keys(value).sort();

/** An event of our own, on two upcoming open days. */
let event: Json;

const museum = useMuseum();
beforeAll(async () => {
  const created = await museum.rest('POST', '/special-events', {
    as: 'staff',
    body: eventBody({ name: 'Reference fixture event', dates: [upcomingOpenDay(1), upcomingOpenDay(2)] }),
  });
  expect(created.status, created.text).toBe(201);
  event = created.body;
});

describe('the reference document', () => {
  it('is the Redocly Museum API 1.2.1 and its schemas compile', () => {
    expect(reference.openapi).toBe('3.1.0');
    expect(reference.info.version).toBe('1.2.1');
    for (const name of Object.keys(reference.components.schemas))
      expect(validatorFor(name)).toBeTypeOf('function');
    // The validators really validate: the reference's own examples pass, and a wrong value fails.
    expectReferenceSchema('MuseumHours', example('GetMuseumHoursResponseExample'));
    expectReferenceSchema('SpecialEventCollection', example('ListSpecialEventsResponseExample'));
    expectReferenceSchema('SpecialEvent', example('GetSpecialEventResponseExample'));
    expectReferenceSchema('MuseumTicketsConfirmation', example('BuyEventTicketsResponseExample'));
    expect(validatorFor('MuseumHours')([{ date: '2023-09-11', timeOpen: '9am', timeClose: '18:00' }])).toBe(
      false,
    );
    expect(validatorFor('SpecialEvent')({ ...example('GetSpecialEventResponseExample'), price: '60' })).toBe(
      false,
    );
    expect(
      validatorFor('MuseumTicketsConfirmation')({ ticketType: 'general', ticketDate: '2023-09-07' }),
    ).toBe(false);
  });
});

describe('responses validate against the reference schemas', () => {
  it('GET /museum-hours 200 is MuseumHours', async () => {
    expect(responseSchemaName('/museum-hours', 'get', '200')).toBe('MuseumHours');
    const response = await museum.rest('GET', '/museum-hours');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.body.length).toBeGreaterThan(0);
    expectReferenceSchema('MuseumHours', response.body);
  });

  it('GET /special-events 200 is SpecialEventCollection', async () => {
    expect(responseSchemaName('/special-events', 'get', '200')).toBe('SpecialEventCollection');
    const response = await museum.rest('GET', `/special-events?startDate=${upcomingOpenDay(1)}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.body.map((e: Json) => e.eventId)).toContain(event.eventId);
    expectReferenceSchema('SpecialEventCollection', response.body);
  });

  it('POST /special-events 201 and GET /special-events/{eventId} 200 are SpecialEvent', async () => {
    expect(responseSchemaName('/special-events', 'post', '201')).toBe('SpecialEvent');
    expect(responseSchemaName('/special-events/{eventId}', 'get', '200')).toBe('SpecialEvent');
    const created = await museum.rest('POST', '/special-events', {
      as: 'staff',
      body: eventBody({ price: 12.5 }),
    });
    expect(created.status, created.text).toBe(201);
    expect(created.headers.get('content-type')).toMatch(/^application\/json/);
    expectReferenceSchema('SpecialEvent', created.body);
    expect(created.headers.get('location')).toBe(`/special-events/${created.body.eventId}`);
    const read = await museum.rest('GET', `/special-events/${created.body.eventId}`);
    expect(read.status).toBe(200);
    expectReferenceSchema('SpecialEvent', read.body);
    expect(read.body).toEqual(created.body);
  });

  it('POST /tickets 201 is MuseumTicketsConfirmation, for general and event tickets', async () => {
    expect(responseSchemaName('/tickets', 'post', '201')).toBe('MuseumTicketsConfirmation');
    const general = await museum.rest('POST', '/tickets', {
      body: { ticketType: 'general', ticketDate: upcomingOpenDay(0), email: 'general@example.com' },
    });
    expect(general.status, general.text).toBe(201);
    expectReferenceSchema('MuseumTicketsConfirmation', general.body);
    const forEvent = await museum.rest('POST', '/tickets', {
      body: {
        ticketType: 'event',
        eventId: event.eventId,
        ticketDate: event.dates[0],
        email: 'event@example.com',
      },
    });
    expect(forEvent.status, forEvent.text).toBe(201);
    expectReferenceSchema('MuseumTicketsConfirmation', forEvent.body);
  });
});

describe('error responses are problem+json, the reference Error schema and the contract shape', () => {
  it('the reference names Error for 400, 401 and 404', () => {
    expect(responseSchemaName('/museum-hours', 'get', '400')).toBe('Error');
    expect(responseSchemaName('/special-events/{eventId}', 'get', '404')).toBe('Error');
    expect(responseSchemaName('/special-events/{eventId}', 'delete', '401')).toBe('Error');
  });

  it.each([
    ['GET', '/museum-hours?limit=31', undefined],
    ['GET', '/museum-hours?startDate=2023-02-30', undefined],
    ['GET', '/special-events?page=0', undefined],
    ['GET', '/special-events?startDate=2030-01-10&endDate=2030-01-01', undefined],
    ['GET', '/special-events/not-a-uuid', undefined],
    ['POST', '/special-events', {}],
    ['POST', '/special-events', { ...eventBody(), price: -1 }],
    ['POST', '/tickets', {}],
    ['POST', '/tickets', { ticketType: 'general', ticketDate: '2023-09-07', email: 'todd@example.com' }],
  ])('400 for %s %s %j', async (method, path, body) => {
    expectProblem(await museum.rest(method, path, { as: 'staff', body }), 400);
  });

  it('400 for malformed JSON', async () => {
    const response = await museum.rest('POST', '/tickets', {
      rawBody: '{"ticketType": "general",',
      headers: { 'content-type': 'application/json' },
    });
    expectProblem(response, 400);
  });

  it.each([
    ['GET', '/museum-hours'],
    ['GET', '/special-events'],
    ['POST', '/special-events'],
    ['GET', '/special-events/dad4bce8-f5cb-4078-a211-995864315e39'],
    ['POST', '/tickets'],
  ])('401 for an anonymous %s %s', async (method, path) => {
    const response = await museum.rest(method, path, {
      as: 'anonymous',
      body: method === 'POST' ? {} : undefined,
    });
    expectProblem(response, 401);
    expect(response.headers.get('www-authenticate')).toBe('Basic realm="Museum API", charset="UTF-8"');
  });

  it('401 for wrong credentials', async () => {
    const response = await museum.rest('GET', '/museum-hours', {
      as: { authorization: `Basic ${Buffer.from('visitor:wrong').toString('base64')}` },
    });
    expectProblem(response, 401);
  });

  it('403 for a visitor creating an event', async () => {
    expectProblem(await museum.rest('POST', '/special-events', { as: 'visitor', body: eventBody() }), 403);
  });

  it('404 for an unknown event, an unknown event ticket and an unknown path', async () => {
    expectProblem(await museum.rest('GET', `/special-events/${randomUUID()}`), 404);
    expectProblem(
      await museum.rest('POST', '/tickets', {
        body: {
          ticketType: 'event',
          eventId: randomUUID(),
          ticketDate: upcomingOpenDay(0),
          email: 'a@example.com',
        },
      }),
      404,
    );
    expectProblem(await museum.rest('GET', '/no-such-thing'), 404);
  });
});

describe('the reference request examples are accepted', () => {
  it('CreateSpecialEventRequestExample → 201 shaped like CreateSpecialEventResponseExample', async () => {
    const body = example('CreateSpecialEventRequestExample');
    // A Tuesday and the Friday after it, as the reference's 2023-09-05 and 2023-09-08: in the order the dates
    // come back (whatever today's weekday; the next Friday can come before the next Tuesday).
    const tuesday = upcoming([2], 0);
    body.dates = [tuesday, upcoming([5], 0, tuesday)];
    const response = await museum.rest('POST', '/special-events', { as: 'staff', body });
    expect(response.status, response.text).toBe(201);
    expect(sortedKeys(response.body)).toEqual(sortedKeys(example('CreateSpecialEventResponseExample')));
    expectReferenceSchema('SpecialEvent', response.body);
    // Values are ours: everything sent comes back as sent (the reference's sample price changes; ours never does).
    expect(response.body).toEqual({ ...body, eventId: response.body.eventId });
    expect(response.body.price).toBe(0);
  });

  it('BuyGeneralTicketsRequestExample → 201 shaped like BuyGeneralTicketsResponseExample', async () => {
    const body = example('BuyGeneralTicketsRequestExample');
    body.ticketDate = upcoming([4], 0); // a Thursday, as 2023-09-07 was
    const response = await museum.rest('POST', '/tickets', { body });
    expect(response.status, response.text).toBe(201);
    expect(sortedKeys(response.body)).toEqual(sortedKeys(example('BuyGeneralTicketsResponseExample')));
    expectReferenceSchema('MuseumTicketsConfirmation', response.body);
    expect(response.body).toMatchObject({
      message: 'Museum general entry ticket purchased',
      ticketType: 'general',
      ticketDate: body.ticketDate,
    });
    expect(response.body.confirmationCode).toMatch(/^ticket-general-[0-9a-f]{6}-[0-9a-f]{5}$/);
    expect(response.headers.get('location')).toBe(`/tickets/${response.body.ticketId}`);
  });

  it('BuyEventTicketsRequestExample (with our own event) → 201 shaped like BuyEventTicketsResponseExample', async () => {
    const body = example('BuyEventTicketsRequestExample');
    const mermaid = await museum.rest('POST', '/special-events', {
      as: 'staff',
      body: { ...example('CreateSpecialEventRequestExample'), dates: [upcoming([2], 1), upcoming([5], 1)] },
    });
    expect(mermaid.status, mermaid.text).toBe(201);
    body.eventId = mermaid.body.eventId;
    body.ticketDate = mermaid.body.dates[0];
    const response = await museum.rest('POST', '/tickets', { body });
    expect(response.status, response.text).toBe(201);
    // The reference's example leaves eventId out of the response; the contract (C4) adds it for event tickets.
    expect(sortedKeys(response.body)).toEqual(
      [...sortedKeys(example('BuyEventTicketsResponseExample')), 'eventId'].sort(),
    );
    expectReferenceSchema('MuseumTicketsConfirmation', response.body);
    expect(response.body).toMatchObject({
      message: 'Museum special event ticket purchased',
      ticketType: 'event',
      ticketDate: body.ticketDate,
      eventId: mermaid.body.eventId,
      eventName: 'Mermaid Treasure Identification and Analysis',
    });
    expect(response.body.confirmationCode).toMatch(/^ticket-event-[0-9a-f]{6}-[0-9a-f]{5}$/);
  });

  it('the parameter examples (page 2, limit 15, upcoming startDate) on GET /museum-hours', async () => {
    const page = parameterExample('PaginationPage');
    const limit = parameterExample('PaginationLimit');
    expect([page, limit]).toEqual([2, 15]);
    const startDate = upcoming([1], 0);
    const response = await museum.rest(
      'GET',
      `/museum-hours?startDate=${startDate}&page=${page}&limit=${limit}`,
    );
    expect(response.status, response.text).toBe(200);
    expect(response.body).toHaveLength(limit);
    expectReferenceSchema('MuseumHours', response.body);
    const itemKeys = sortedKeys(example('GetMuseumHoursResponseExample')[0]);
    for (const day of response.body) expect(sortedKeys(day)).toEqual(itemKeys);
    // Page 2 of 15 open days from a Monday starts three weeks on (15 weekdays = 3 weeks).
    expect(response.body[0].date).toBe(addDays(startDate, 21));
  });

  it('the parameter examples (startDate, endDate, page 2, limit 15) on GET /special-events', async () => {
    const page = parameterExample('PaginationPage');
    const limit = parameterExample('PaginationLimit');
    // The reference's range is 54 days long (2023-02-23 … 2023-04-18); keep its length, moved ahead.
    const startDate = upcoming([1], 40);
    const endDate = addDays(startDate, 54);
    expect(addDays(parameterExample('StartDate'), 54)).toBe(parameterExample('EndDate'));
    const names: string[] = [];
    for (let i = 0; i < limit + 2; i++) {
      const name = `Range event ${String(i).padStart(2, '0')}`;
      names.push(name);
      const created = await museum.rest('POST', '/special-events', {
        as: 'staff',
        body: eventBody({ name, dates: [addDays(startDate, 1)] }),
      });
      expect(created.status, created.text).toBe(201);
    }
    const response = await museum.rest(
      'GET',
      `/special-events?startDate=${startDate}&endDate=${endDate}&page=${page}&limit=${limit}`,
    );
    expect(response.status, response.text).toBe(200);
    expectReferenceSchema('SpecialEventCollection', response.body);
    expect(response.body.map((e: Json) => e.name)).toEqual(names.slice(limit));
    const itemKeys = sortedKeys(example('ListSpecialEventsResponseExample')[0]);
    for (const item of response.body) expect(sortedKeys(item)).toEqual(itemKeys);
  });

  it('the EventId parameter example is a well-formed id: 404 here (no demo events), 200 once it is ours', async () => {
    const eventId = parameterExample('EventId');
    expectProblem(await museum.rest('GET', `/special-events/${eventId}`), 404);
    const response = await museum.rest('GET', `/special-events/${event.eventId}`);
    expect(response.status).toBe(200);
    expect(sortedKeys(response.body)).toEqual(sortedKeys(example('GetSpecialEventResponseExample')));
    expectReferenceSchema('SpecialEvent', response.body);
  });
});

describe('every implemented reference operation answers for staff', () => {
  const operations: { operationId: string; method: string; path: string }[] = [];
  for (const [path, item] of Object.entries<Json>(reference.paths)) {
    for (const [method, operation] of Object.entries<Json>(item)) {
      operations.push({ operationId: operation.operationId, method: method.toUpperCase(), path });
    }
  }
  const implemented = new Set(routes.map((route) => route.operationId));

  it('the five operations are in the reference with the same method and path', () => {
    for (const operationId of [
      'getMuseumHours',
      'listSpecialEvents',
      'createSpecialEvent',
      'getSpecialEvent',
      'buyMuseumTickets',
    ]) {
      expect(implemented.has(operationId), operationId).toBe(true);
      const route = routes.find((r) => r.operationId === operationId)!;
      const documented = operations.find((o) => o.operationId === operationId);
      expect(documented, operationId).toBeDefined();
      expect(route.method).toBe(documented!.method);
      expect(route.path.replace(/:(\w+)/g, '{$1}')).toBe(documented!.path);
    }
  });

  /** A request that should succeed for each reference operation, as it would be sent. */
  async function requestFor(operationId: string): Promise<{ path: string; body?: unknown }> {
    switch (operationId) {
      case 'getMuseumHours':
        return { path: '/museum-hours' };
      case 'listSpecialEvents':
        return { path: '/special-events' };
      case 'createSpecialEvent':
        return { path: '/special-events', body: eventBody() };
      case 'getSpecialEvent':
      case 'updateSpecialEvent':
      case 'deleteSpecialEvent': {
        const created = await museum.rest('POST', '/special-events', { as: 'staff', body: eventBody() });
        return {
          path: `/special-events/${created.body.eventId}`,
          body: operationId === 'updateSpecialEvent' ? { price: 15 } : undefined,
        };
      }
      case 'buyMuseumTickets':
        return {
          path: '/tickets',
          body: { ticketType: 'general', ticketDate: upcomingOpenDay(0), email: 'staff@example.com' },
        };
      case 'getTicketCode': {
        const ticket = await museum.rest('POST', '/tickets', {
          as: 'staff',
          body: { ticketType: 'general', ticketDate: upcomingOpenDay(0), email: 'staff@example.com' },
        });
        return { path: `/tickets/${ticket.body.ticketId}/qr` };
      }
      default:
        throw new Error(`No request for ${operationId}`);
    }
  }

  // Routes beyond the reference (getTicket) are covered by their own tests.
  const fromReference = routes.filter((route) => operations.some((o) => o.operationId === route.operationId));
  it('covers every operation of the reference', () => {
    expect(fromReference.map((route) => route.operationId).sort()).toEqual(
      operations.map((o) => o.operationId).sort(),
    );
  });

  it.each(fromReference.map((route) => route.operationId).sort())(
    '%s answers its reference method and path (not 404/405)',
    async (operationId) => {
      const operation = operations.find((o) => o.operationId === operationId);
      expect(operation, `${operationId} is not in the reference`).toBeDefined();
      const { path, body } = await requestFor(operationId);
      const response = await museum.rest(operation!.method, path, { as: 'staff', body });
      expect([404, 405], `${operation!.method} ${path}: ${response.text}`).not.toContain(response.status);
      expect(response.status, response.text).toBeLessThan(300);
    },
  );
});
