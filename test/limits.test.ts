// The limits the OpenAPI document declares are the ones the service enforces (issue 41): each value one over
// the declared maxLength or maxItems is refused over REST (400 problem+json naming the field) and over GraphQL
// (BAD_USER_INPUT naming the argument path), and a value at the limit is taken. Problems stay within the bounds
// declared for them, and Spectral's OWASP rules find nothing in the document but the listed exceptions.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../src/openapi/document.ts';
import { BUY_TICKETS, CREATE_EVENT } from './support/documents.ts';
import { eventBody, type TestResponse, upcomingOpenDay } from './support/museum.ts';
import { useMuseum } from './support/use-museum.ts';

type Json = any;

const document: Json = buildOpenApiDocument();
const property = (schema: string, name: string): Json => document.components.schemas[schema].properties[name];
/** The non-null branch of a nullable property. */
const nonNull = (schema: Json): Json =>
  schema.anyOf?.find((branch: Json) => branch.type !== 'null') ?? schema;

/** An e-mail address of `length` characters. */
const addressOf = (length: number) => {
  const domain = `${'d'.repeat(60)}.${'e'.repeat(60)}.example`;
  return `${'a'.repeat(length - domain.length - 1)}@${domain}`;
};

const expectRefusal = (response: TestResponse, path: string) => {
  expect(response.status, response.text).toBe(400);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(response.body.errors.map((issue: Json) => issue.path)).toContain(path);
};

const expectGraphqlRefusal = (response: TestResponse, path: string) => {
  const [error] = response.body.errors;
  expect(error.extensions.code, response.text).toBe('BAD_USER_INPUT');
  expect(error.extensions.errors.map((issue: Json) => issue.path)).toContain(path);
};

describe('limits, as declared and enforced', () => {
  const museum = useMuseum();

  describe.each([
    ['name', 'name'],
    ['location', 'location'],
    ['eventDescription', 'eventDescription'],
  ])('an event’s %s', (field) => {
    const max: number = property('CreateSpecialEvent', field).maxLength;

    it('takes the declared maxLength and refuses one more, over REST and GraphQL', async () => {
      expect(max).toBeGreaterThan(0);
      const atLimit = await museum.rest('POST', '/special-events', {
        as: 'staff',
        body: eventBody({ [field]: '🦀'.repeat(max) }),
      });
      expect(atLimit.status, atLimit.text).toBe(201);
      const over = eventBody({ [field]: 'x'.repeat(max + 1) });
      expectRefusal(await museum.rest('POST', '/special-events', { as: 'staff', body: over }), field);
      expectGraphqlRefusal(
        await museum.graphql(CREATE_EVENT, { input: over }, { as: 'staff' }),
        `input.${field}`,
      );
    });
  });

  it("a buyer's e-mail address over 254 characters", async () => {
    const max: number = property('BuyMuseumTickets', 'email').maxLength;
    expect(max).toBe(254);
    const ticket = (email: string) => ({ ticketType: 'general', ticketDate: upcomingOpenDay(1), email });
    const atLimit = await museum.rest('POST', '/tickets', { as: 'visitor', body: ticket(addressOf(max)) });
    expect(atLimit.status, atLimit.text).toBe(201);
    const over = ticket(addressOf(max + 1));
    expectRefusal(await museum.rest('POST', '/tickets', { as: 'visitor', body: over }), 'email');
    expectGraphqlRefusal(
      await museum.graphql(BUY_TICKETS, { input: over }, { as: 'visitor' }),
      'input.email',
    );
  });

  it("an account's name and password over their maximum (GraphQL: accounts have no REST route)", async () => {
    const CREATE_ACCOUNT = 'mutation($input: CreateAccountInput!) { createAccount(input: $input) { name } }';
    const account = (name: string, password: string) => ({ input: { name, role: 'visitor', password } });
    const ok = await museum.graphql(CREATE_ACCOUNT, account('n'.repeat(64), 'p'.repeat(1024)), {
      as: 'staff',
    });
    expect(ok.body.errors, ok.text).toBeUndefined();
    const longName = await museum.graphql(CREATE_ACCOUNT, account('n'.repeat(65), 'p'.repeat(8)), {
      as: 'staff',
    });
    expectGraphqlRefusal(longName, 'input.name');
    const longPassword = await museum.graphql(CREATE_ACCOUNT, account('other', 'p'.repeat(1025)), {
      as: 'staff',
    });
    expectGraphqlRefusal(longPassword, 'input.password');
  });

  it('an order of more lines than maxItems', async () => {
    const lines = nonNull(property('PlaceOrder', 'lines'));
    const line = { ticketType: 'general', ticketDate: upcomingOpenDay(2), quantity: 1 };
    const body = { email: 'todd@example.com', lines: Array.from({ length: lines.maxItems + 1 }, () => line) };
    expectRefusal(await museum.rest('POST', '/orders', { as: 'visitor', body }), 'lines');
  });

  it("a webhook subscription's description with the NUL character, which its pattern excludes", async () => {
    expect(nonNull(property('CreateWebhookSubscription', 'description')).pattern).toBe('^[^\\u0000]*$');
    const body = { url: 'https://partner.example.com/hooks', description: 'new\u0000events' };
    expectRefusal(await museum.rest('POST', '/webhook-subscriptions', { as: 'staff', body }), 'description');
  });

  it('a problem lists at most the declared number of issues, its detail within its maxLength', async () => {
    const problem = document.components.schemas.Problem.properties;
    const dates = Array.from({ length: 400 }, (_, i) => `not a date ${i}`);
    const response = await museum.rest('POST', '/special-events', {
      as: 'staff',
      body: eventBody({ dates }),
    });
    expect(response.status).toBe(400);
    expect(response.body.errors).toHaveLength(problem.errors.maxItems);
    expect(response.body.errors[0]).toEqual({ path: 'dates[0]', message: expect.any(String) });
    expect([...response.body.detail].length).toBeLessThanOrEqual(problem.detail.maxLength);
    expect(response.body.detail).toMatch(/…$/);
  });
});

describe('npm run openapi:lint', () => {
  it('finds nothing in schema/openapi.json under the OWASP rules but the exceptions .spectral.yaml lists', async () => {
    const root = fileURLToPath(new URL('..', import.meta.url));
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        'node_modules/@stoplight/spectral-cli/dist/index.js',
        'lint',
        'schema/openapi.json',
        '--format',
        'json',
        '--quiet',
      ],
      { cwd: root, timeout: 60_000 },
    ).catch((error: { stdout: string; stderr: string }) => {
      throw new Error(`spectral lint failed:\n${error.stdout}\n${error.stderr}`);
    });
    expect(JSON.parse(stdout || '[]')).toEqual([]);
  });
});
