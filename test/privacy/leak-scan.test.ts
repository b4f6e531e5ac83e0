// Nothing personal escapes (issue 39, point 6). The scan of a whole run (test/support/leak-scan.ts) finds what
// it should; and the paths where a buyer's address, an account name that is an address or a password meet
// the service (an invalid purchase, a failed login, a sale and its mail, input the API repeats in an error)
// leave none of them in a log line at debug level, a span, the metrics or an error the client is shown.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { startTracing } from '../../src/tracing.ts';
import { insertAccount } from '../support/db.ts';
import { stopRecordedTracing } from '../support/leak-recording.ts';
import { ALLOWED_ADDRESSES, FIXTURE_PASSWORDS, scanLine } from '../support/leak-scan.ts';
import {
  basic,
  GATE,
  OTHER_VISITOR,
  STAFF,
  startMuseum,
  type TestMuseum,
  upcomingOpenDay,
  VISITOR,
} from '../support/museum.ts';
import { eventually } from '../support/receiver.ts';

describe('the leak scan', () => {
  it('finds an address, an Authorization value and a fixture password, and shows each masked', () => {
    const credential = basic('todd', 'secret');
    const line = `{"message":"oops","to":"todd@example.com","header":"${credential}","p":"${VISITOR.password}"}`;
    const finding = scanLine(line, 'logs-1.ndjson:7');
    expect(finding).toMatchObject({
      where: 'logs-1.ndjson:7',
      kinds: ['address', 'authorization', 'password'],
    });
    expect(finding!.excerpt).toBe(
      '{"message":"oops","to":"t***@example.com","header":"Basic ***","p":"***"}',
    );
    expect(scanLine('a span: {"url.path":"/tickets/Todd@Example.COM"}', 'spans')?.kinds).toEqual(['address']);
  });

  it("lets the museum's own addresses, a Basic challenge and masked addresses pass", () => {
    for (const address of Object.keys(ALLOWED_ADDRESSES)) expect(scanLine(`from ${address}`, 'x')).toBeNull();
    expect(scanLine('WWW-Authenticate: Basic realm="Museum API", charset="UTF-8"', 'x')).toBeNull();
    expect(scanLine('send HTTP Basic credentials of an account', 'x')).toBeNull();
    expect(scanLine('{"account":"<address>","message":"login failed"}', 'x')).toBeNull();
    expect(scanLine('@opentelemetry/api@1.10.0 and node_modules/pg@8', 'x')).toBeNull();
  });

  it("knows every fixture's password", () => {
    expect(FIXTURE_PASSWORDS.toSorted()).toEqual(
      [STAFF, VISITOR, OTHER_VISITOR, GATE].map((account) => account.password).toSorted(),
    );
  });
});

describe('the paths personal data takes, at debug level and traced', () => {
  const logged: string[] = [];
  const exported: string[] = [];
  /** Every address and secret this file sends: none may come back out. */
  const used: string[] = [];
  const address = (name: string) => {
    const made = `${name}-${Date.now()}@example.com`;
    used.push(made);
    return made;
  };
  const accountName = address('account-holder');
  const accountPassword = 'account-holder-password-7';
  let museum: TestMuseum;
  let collector: Server;
  let stopTracing: (() => Promise<void>) | null = null;

  beforeAll(async () => {
    // Traced to a collector of this file's own (the leak scan's tracing of this process ends first).
    await stopRecordedTracing();
    collector = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => {
        body += chunk;
      });
      req.on('end', () => {
        exported.push(body);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    stopTracing = await startTracing(`http://127.0.0.1:${(collector.address() as { port: number }).port}`);
    museum = await startMuseum(
      {},
      { logger: createLogger('debug', { write: (line: string) => void logged.push(line) }) },
    );
    // An account name may be an address (names allow `@`).
    await insertAccount(museum.deps.db, { name: accountName, role: 'visitor', password: accountPassword });
    used.push(accountPassword);
  });
  afterAll(async () => {
    await museum?.close();
    await stopTracing?.();
    collector?.close();
  });

  /** No address this file used, no password, no Authorization value in `text`. */
  const expectNothingPersonal = (text: string, what: string) => {
    for (const secret of used) expect(text, what).not.toContain(secret);
    for (const line of text.split('\n')) expect(scanLine(line, what), what).toBeNull();
  };

  it('an invalid purchase is refused without its address in the answer (REST and GraphQL)', async () => {
    const rest = await museum.rest('POST', '/tickets', {
      body: { email: address('invalid-rest'), ticketType: 'bogus', ticketDate: upcomingOpenDay(0) },
    });
    expect(rest.status).toBe(400);
    expect(rest.body.errors).toEqual([{ path: 'ticketType', message: 'must be one of: event, general' }]);
    expectNothingPersonal(rest.text, 'REST problem');

    const order = await museum.rest('POST', '/orders', {
      body: {
        email: address('invalid-order'),
        lines: [{ ticketType: 'general', ticketDate: 'soon', quantity: 1 }],
      },
    });
    expect(order.status).toBe(400);
    expectNothingPersonal(order.text, 'REST problem');

    const graphql = await museum.graphql(
      'mutation($input: BuyMuseumTicketsInput!) { buyMuseumTickets(input: $input) { __typename } }',
      {
        input: { email: address('invalid-graphql'), ticketType: address('in-a-wrong-field'), ticketDate: 5 },
      },
    );
    expect(graphql.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expectNothingPersonal(graphql.text, 'GraphQL errors');
  });

  it('input the API repeats in an error shows an address as <address>: a literal, a key, a path', async () => {
    const literal = await museum.graphql(`{ specialEvents(limit: "${address('literal')}") { name } }`);
    expect(literal.body.errors[0].message).toBe('Int cannot represent non-integer value: "<address>"');

    const key = address('key');
    const unknown = await museum.rest('POST', '/tickets', {
      body: {
        email: address('beside-a-key'),
        ticketType: 'general',
        ticketDate: upcomingOpenDay(0),
        [key]: 1,
      },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors).toEqual([{ path: '<address>', message: 'is not a known field' }]);

    const twice = await museum.rest('POST', '/tickets', {
      rawBody: `{"${key}":1,"${key}":2}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(twice.body.errors).toEqual([{ path: '<address>', message: 'is given more than once' }]);

    const path = await museum.rest('GET', `/${address('in-a-path')}`);
    expect(path.status).toBe(404);
    expect(path.body.detail).toBe('There is no resource at <address>');

    for (const answer of [literal, unknown, twice, path]) expectNothingPersonal(answer.text, 'error');
  });

  it('a failed login logs its account name without the address, and never the password', async () => {
    const wrong = basic(address('guesser'), 'a-wrong-password-3');
    used.push('a-wrong-password-3', wrong.slice('Basic '.length));
    const refused = await museum.request('GET', '/museum-hours', { as: { authorization: wrong } });
    expect(refused.status).toBe(401);
    expectNothingPersonal(refused.text, '401');
    const line = await eventually(async () => logged.find((text) => text.includes('"login failed"')));
    expect(JSON.parse(line)).toMatchObject({ level: 'warn', account: '<address>', message: 'login failed' });

    // The account holder whose name is an address: its request line names it masked.
    const signedIn = await museum.request('GET', '/museum-hours', {
      as: { authorization: basic(accountName, accountPassword) },
    });
    expect(signedIn.status).toBe(200);
    const requests = logged
      .filter((text) => text.includes('"message":"request"'))
      .map((text) => JSON.parse(text));
    expect(requests.at(-1)).toMatchObject({ route: '/museum-hours', status: 200, account: '<address>' });
  });

  it('a sale and its mail log and trace nothing of the buyer', async () => {
    const buyer = address('buyer');
    const sale = await museum.rest('POST', '/tickets', {
      body: { email: buyer, ticketType: 'general', ticketDate: upcomingOpenDay(1) },
    });
    expect(sale.status).toBe(201);
    await eventually(async () => logged.some((text) => text.includes('"mail sent"')), 15_000);
  });

  it('leaves no address, password or Authorization value in any log line, span or metric', async () => {
    const metrics = await museum.request('GET', '/metrics');
    expect(metrics.status).toBe(200);
    museum.deps.logger.flush();
    // Every span out to the collector.
    await stopTracing?.();
    stopTracing = null;
    const spans = exported.join('\n');
    expect(spans).toContain('"POST /tickets"');
    expectNothingPersonal(logged.join(''), 'logs');
    expectNothingPersonal(spans, 'spans');
    expectNothingPersonal(metrics.text, 'metrics');
  });
});
