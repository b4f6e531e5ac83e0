// The OpenAPI document (C7): generated from the rules that validate requests, kept in schema/openapi.json,
// clean under `redocly lint`, faithful to the reference's paths and operationIds, and describing request
// bodies exactly as the API judges them. /openapi.json and /docs are open and served from this origin.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { STRIPE_WEBHOOK_PATH } from '../src/http/stripe-webhook.ts';
import { buildOpenApiDocument, printedOpenApiDocument } from '../src/openapi/document.ts';
import { routes } from '../src/rest/routes.ts';
import { eventBody, upcomingOpenDay } from './support/museum.ts';
import { useMuseum } from './support/use-museum.ts';

type Json = any;

const root = new URL('..', import.meta.url);
const reference: Json = parse(readFileSync(new URL('fixtures/museum-openapi.yaml', import.meta.url), 'utf8'));
const document: Json = buildOpenApiDocument();
const METHODS = ['get', 'put', 'post', 'patch', 'delete'];

// Both are CommonJS whose `module.exports` is also their `default`, however the importer interops.
const Ajv2020 = Ajv2020Module.default;
const addFormats = addFormatsModule.default;
// `multipleOfPrecision`: 0.01 is not exact in binary, and 19.99 / 0.01 is not quite an integer.
const ajv = new Ajv2020({ strict: false, allErrors: true, multipleOfPrecision: 9 });
addFormats(ajv);
ajv.addSchema({ $id: 'https://museum.test/openapi.json', components: document.components });

function requestValidator(operationId: string) {
  const operation = Object.values(document.paths as Record<string, Json>)
    .flatMap((item) => Object.values(item))
    .find((op: Json) => op.operationId === operationId) as Json;
  const ref: string = operation.requestBody.content['application/json'].schema.$ref;
  return ajv.getSchema(`https://museum.test/openapi.json${ref}`)!;
}

describe('schema/openapi.json', () => {
  it('is the generated document (run `npm run openapi:print` after changing routes or rules)', async () => {
    const committed = await readFile(new URL('schema/openapi.json', root), 'utf8');
    expect(committed).toBe(printedOpenApiDocument());
  });

  it('passes `redocly lint` with the recommended rules, without a warning and without network', async () => {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      [
        fileURLToPath(new URL('node_modules/@redocly/cli/bin/cli.js', root)),
        'lint',
        '--config',
        'test/redocly.yaml',
        '--format',
        'stylish',
        'schema/openapi.json',
      ],
      {
        cwd: fileURLToPath(root),
        env: {
          ...process.env,
          REDOCLY_TELEMETRY: 'off',
          REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
          NO_COLOR: '1',
        },
        timeout: 60_000,
      },
    ).catch((error: { stdout: string; stderr: string }) => {
      throw new Error(`redocly lint failed:\n${error.stdout}\n${error.stderr}`);
    });
    expect(`${stdout}${stderr}`).toContain('Your API description is valid');
    expect(`${stdout}${stderr}`).not.toMatch(/\bwarning\b/);
  });

  it('keeps every path, method and operationId of the reference that routes.ts implements', () => {
    const implemented = new Set(routes.map((route) => route.operationId));
    const expected = Object.entries(reference.paths as Record<string, Json>).flatMap(([path, item]) =>
      METHODS.filter((method) => item[method] && implemented.has(item[method].operationId)).map(
        (method) => `${method.toUpperCase()} ${path} ${item[method].operationId}`,
      ),
    );
    expect(expected.length).toBeGreaterThanOrEqual(5);
    for (const line of expected) {
      const [method, path, operationId] = line.split(' ');
      expect(document.paths[path!]?.[method!.toLowerCase()]?.operationId, line).toBe(operationId);
    }
  });

  it("documents every route of routes.ts and Stripe's webhook, and nothing else", () => {
    const documented = Object.entries(document.paths as Record<string, Json>).flatMap(([path, item]) =>
      Object.entries(item).map(
        ([method, op]: [string, Json]) => `${method.toUpperCase()} ${path} ${op.operationId}`,
      ),
    );
    const actual = routes.map(
      (route) => `${route.method} ${route.path.replace(/:(\w+)/g, '{$1}')} ${route.operationId}`,
    );
    // A route of the HTTP lane (src/http/stripe-webhook.ts), not of routes.ts.
    actual.push(`POST ${STRIPE_WEBHOOK_PATH} receiveStripeEvent`);
    expect(documented.sort()).toEqual(actual.sort());
    for (const route of routes) {
      const op = document.paths[route.path.replace(/:(\w+)/g, '{$1}')][route.method.toLowerCase()];
      expect(Object.keys(op.responses), route.operationId).toContain(String(route.status));
      if (route.location) expect(op.responses[String(route.status)].headers.Location).toBeDefined();
      if (route.paged) expect(op.responses[String(route.status)].headers.Link).toBeDefined();
    }
  });

  it('keeps the reference shape: basic auth everywhere, tags, shared parameters, problem+json errors', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.servers).toEqual([{ url: '/', description: expect.any(String), 'x-internal': false }]);
    expect(document.security).toEqual([{ MuseumPlaceholderAuth: [] }]);
    expect(document.components.securitySchemes.MuseumPlaceholderAuth).toMatchObject({
      type: 'http',
      scheme: 'basic',
    });
    expect(document.tags.map((t: Json) => t.name)).toEqual(
      expect.arrayContaining(['Operations', 'Events', 'Tickets']),
    );
    expect(Object.keys(document.components.parameters)).toEqual(
      expect.arrayContaining(['StartDate', 'EndDate', 'PaginationPage', 'PaginationLimit', 'EventId']),
    );
    expect(Object.keys(document.components.schemas)).toEqual(
      expect.arrayContaining([
        'MuseumHours',
        'SpecialEvent',
        'SpecialEventCollection',
        'MuseumTicketsConfirmation',
        'Problem',
      ]),
    );
    const listEvents = document.paths['/special-events'].get.responses['200'];
    expect(Object.keys(listEvents.headers)).toEqual([
      'Link',
      'X-Total-Count',
      'ETag',
      'Access-Control-Allow-Origin',
    ]);
    const badRequest = document.components.responses.BadRequest;
    expect(Object.keys(badRequest.content)).toEqual(['application/problem+json']);
    expect(badRequest.content['application/problem+json'].example).toMatchObject({
      status: 400,
      title: 'Validation failed',
    });
    expect(document.paths['/special-events'].post.responses['403']).toEqual({
      $ref: '#/components/responses/Forbidden',
    });
    expect(document.paths['/tickets'].post.responses['403']).toBeUndefined();
  });
});

describe('request body schemas judge bodies as the API does', () => {
  let eventId: string;
  let eventDate: string;
  const museum = useMuseum();
  beforeAll(async () => {
    const created = await museum.rest('POST', '/special-events', { as: 'staff', body: eventBody() });
    expect(created.status).toBe(201);
    eventId = created.body.eventId;
    eventDate = created.body.dates[0];
  });

  async function compare(
    operationId: string,
    method: string,
    path: string,
    bodies: Record<string, unknown>[],
  ) {
    const validate = requestValidator(operationId);
    const verdicts = [];
    for (const body of bodies) {
      const response = await museum.rest(method, path, { as: 'staff', body });
      expect([200, 201, 400], JSON.stringify(response.body)).toContain(response.status);
      verdicts.push({ body, api: response.status !== 400, schema: validate(body) });
    }
    expect(verdicts.filter((v) => v.api !== v.schema)).toEqual([]);
    return verdicts;
  }

  it('createSpecialEvent', async () => {
    const verdicts = await compare('createSpecialEvent', 'POST', '/special-events', [
      eventBody(),
      eventBody({ price: 19.99, name: '🦀'.repeat(200), dates: [upcomingOpenDay(5)] }),
      eventBody({ price: 0, location: ' Hall 1 ' }),
      eventBody({ price: 1.234 }),
      eventBody({ price: -1 }),
      eventBody({ price: 1_000_001 }),
      eventBody({ price: '30' }),
      eventBody({ name: '   ' }),
      eventBody({ name: 'x'.repeat(201) }),
      eventBody({ name: 'a\u0000b' }),
      eventBody({ dates: [] }),
      eventBody({ dates: ['2030-02-30'] }),
      eventBody({ dates: [upcomingOpenDay(1), upcomingOpenDay(1)] }),
      eventBody({ eventId: '3be6453c-03eb-4357-ae5a-984a0e574a54' }),
      eventBody({ color: 'blue' }),
      { name: 'No dates', location: 'Hall', eventDescription: 'Missing fields', price: 1 },
    ]);
    expect(verdicts.filter((v) => v.api)).toHaveLength(3);
  });

  it('buyMuseumTickets', async () => {
    const general = { ticketType: 'general', ticketDate: upcomingOpenDay(2), email: 'todd@example.com' };
    const event = { ticketType: 'event', eventId, ticketDate: eventDate, email: 'todd@example.com' };
    const verdicts = await compare('buyMuseumTickets', 'POST', '/tickets', [
      general,
      { ...general, eventId: null },
      event,
      { ...general, eventId },
      { ...event, eventId: undefined },
      { ...event, eventId: null },
      { ...event, eventId: 'not-a-uuid' },
      { ...general, email: 'not-an-email' },
      { ...general, email: `${'a'.repeat(250)}@example.com` },
      { ...general, ticketType: 'vip' },
      { ...general, ticketDate: '2030-02-30' },
      { ...general, ticketId: '382c0820-0530-4f4b-99af-13811ad0f17a' },
      { ticketType: 'general', email: 'todd@example.com' },
    ]);
    expect(verdicts.filter((v) => v.api)).toHaveLength(3);
  });

  it('placeOrder', async () => {
    const general = { ticketType: 'general', ticketDate: upcomingOpenDay(2), quantity: 2 };
    const event = { ticketType: 'event', eventId, ticketDate: eventDate, quantity: 1 };
    const order = (...lines: unknown[]) => ({ email: 'todd@example.com', lines });
    const verdicts = await compare('placeOrder', 'POST', '/orders', [
      order(general),
      order(general, event),
      order({ ...general, eventId: null }),
      order(),
      order({ ...general, quantity: 0 }),
      order({ ...general, quantity: 1.5 }),
      order({ ...general, eventId }),
      order({ ...event, eventId: undefined }),
      order({ ...general, ticketDate: '2030-02-30' }),
      order({ ...general, price: 1 }),
      { ...order(general), orderId: eventId },
      { ...order(general), email: 'nobody' },
      { lines: [general] },
    ]);
    expect(verdicts.filter((v) => v.api)).toHaveLength(3);
  });

  it.runIf(routes.some((route) => route.operationId === 'updateSpecialEvent'))(
    'updateSpecialEvent',
    async () => {
      const verdicts = await compare('updateSpecialEvent', 'PATCH', `/special-events/${eventId}`, [
        { location: 'On the beach.', price: 15 },
        { price: 12.5 },
        {},
        { price: 1.001 },
        { name: '' },
        { eventId },
        { dates: [] },
      ]);
      expect(verdicts.filter((v) => v.api)).toHaveLength(2);
    },
  );
});

describe('/openapi.json and /docs', () => {
  const museum = useMuseum();

  it('serve the generated document without credentials', async () => {
    const response = await museum.request('GET', '/openapi.json');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.body).toEqual(document);
  });

  it('serve an API reference without credentials, from this origin only', async () => {
    const page = await museum.request('GET', '/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    // The browser itself refuses any other origin (the bundle's built-in web fonts, telemetry, proxies).
    expect(page.headers.get('content-security-policy')).toContain("connect-src 'self'");
    expect(page.headers.get('content-security-policy')).toContain("font-src 'self' data:");
    const urls = [...page.text.matchAll(/\b(?:src|href)\s*=\s*["']([^"']+)["']/g)].map((m) => m[1]!);
    expect(urls.length).toBeGreaterThan(0);
    expect(page.text).not.toMatch(/<(?:script|link)\b[^>]*\b(?:src|href)\s*=\s*["']?(?:https?:)?\/\//i);
    for (const url of urls) {
      expect(url, url).toMatch(/^\/(?!\/)/);
      const asset = await museum.request('GET', url);
      expect(asset.status, url).toBe(200);
    }
    const bundle = await museum.request('GET', '/docs/assets/scalar-standalone.js');
    expect(bundle.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(bundle.text.length).toBeGreaterThan(100_000);
    const init = await museum.request('GET', '/docs/assets/docs.js');
    expect(init.text).toContain("'/openapi.json'".replace(/'/g, '"'));
  });

  it('answer other methods 405 and unknown assets 404, as problems', async () => {
    const post = await museum.request('POST', '/openapi.json', { body: {} });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    const missing = await museum.request('GET', '/docs/assets/nothing.js');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toBe('application/problem+json');
  });
});

describe('conditional requests and limits in the document', () => {
  it('declares ETag, If-None-Match and 304 on reads, If-Match and 412 on event edits, RateLimit on 429', () => {
    const getEvent = document.paths['/special-events/{eventId}'].get;
    expect(getEvent.parameters).toContainEqual({ $ref: '#/components/parameters/If-None-Match' });
    expect(getEvent.responses['200'].headers.ETag).toEqual({ $ref: '#/components/headers/ETag' });
    expect(getEvent.responses['304'].headers.ETag).toEqual({ $ref: '#/components/headers/ETag' });
    for (const method of ['patch', 'delete']) {
      const edit = document.paths['/special-events/{eventId}'][method];
      expect(edit.parameters, method).toContainEqual({ $ref: '#/components/parameters/If-Match' });
      expect(edit.responses['412'], method).toEqual({ $ref: '#/components/responses/PreconditionFailed' });
    }
    expect(document.paths['/tickets'].post.parameters ?? []).not.toContainEqual({
      $ref: '#/components/parameters/If-Match',
    });
    expect(Object.keys(document.components.responses.TooManyRequests.headers)).toEqual([
      'Retry-After',
      'RateLimit-Policy',
      'RateLimit',
      'Access-Control-Allow-Origin',
    ]);
  });
});
