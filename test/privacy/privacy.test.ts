// Buyers' personal data (issue 39): staff export and erase an address, an account holder exports and deletes
// their own, each request is recorded without the address, and the service erases visits past the retention
// period on its own. Over REST and GraphQL, against the real database and its migrations.
import { copyFile, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMuseum } from '../../src/app.ts';
import { addDays } from '../../src/common/dates.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { MAIL_QUEUE_LOCK } from '../../src/mail/mail.queries.ts';
import { boughtTicket } from '../support/actions.ts';
import { type SetClock, setClock } from '../support/clock.ts';
import { execute, insertAccount } from '../support/db.ts';
import {
  addGateAccount,
  basic,
  ownDatabase,
  STAFF,
  served,
  startMuseum,
  type TestMuseum,
  upcomingOpenDay,
} from '../support/museum.ts';
import { eventually } from '../support/receiver.ts';
import { openToday } from '../support/visit.ts';

let museum: TestMuseum;
const dataDir = join(process.env.TMPDIR ?? '/tmp', `museum-privacy-${process.pid}`);

beforeAll(async () => {
  // .eml files in a directory of this file's own, to see an erasure remove them.
  museum = await startMuseum({ MUSEUM_DATA_DIR: dataDir });
  await addGateAccount(museum);
});
afterAll(() => museum?.close());

let buyers = 0;
const newAddress = () => `privacy-${++buyers}-${Date.now()}@example.org`;

const REQUEST_FIELDS = `requestId kind requestedBy accountId requestedAt retentionDate
  counts { orders tickets mails idempotencyRecords accounts }`;
const DATA_FIELDS = `exportedAt email currency account { accountId name role createdAt }
  orders { orderId email status createdAt total ticketIds }
  tickets { ticketId orderId email ticketType ticketDate entryTime eventId eventName category price confirmationCode
    status createdAt checkedInAt cancelledAt cancelledBy cancellationReason }
  mails { mailId kind orderId ticketIds recipient status attempts createdAt lastAttemptAt sentAt }
  privacyRequests { ${REQUEST_FIELDS} }`;
const BUYER_DATA = `query($input: BuyerInput!) { buyerData(input: $input) { ${DATA_FIELDS} } }`;
const ERASE = `mutation($input: BuyerInput!) { eraseBuyerData(input: $input) { ${REQUEST_FIELDS} } }`;

/** What a buyer does: a ticket on its own, an order of two, and (today) a ticket checked in at the door. */
async function buyAs(email: string, as: 'visitor' | 'other' = 'visitor') {
  const date = upcomingOpenDay(1);
  const alone = await museum.rest('POST', '/tickets', {
    as,
    body: { ticketType: 'general', ticketDate: date, email },
  });
  expect(alone.status).toBe(201);
  const order = await museum.rest('POST', '/orders', {
    as,
    body: { email, lines: [{ ticketType: 'general', ticketDate: date, quantity: 2 }] },
    // Its stored answer names the address.
    headers: { 'idempotency-key': `privacy-${email}` },
  });
  expect(order.status).toBe(201);
  const today = await openToday(museum);
  const used = await museum.rest('POST', '/tickets', {
    as,
    body: { ticketType: 'general', ticketDate: today, email },
  });
  expect(used.status).toBe(201);
  const checkedIn = await museum.rest('POST', '/check-ins', {
    as: 'gate',
    body: { confirmationCode: used.body.confirmationCode },
  });
  expect(checkedIn.status).toBe(201);
  return {
    date,
    today,
    ticketIds: [
      alone.body.ticketId,
      ...order.body.tickets.map((t: { ticketId: string }) => t.ticketId),
      used.body.ticketId,
    ],
    orderId: order.body.orderId as string,
    aloneCode: alone.body.confirmationCode as string,
  };
}

/** Every text, character and JSON column of every table, searched for `needle` (case-insensitively). */
async function whereHeld(needle: string): Promise<string[]> {
  const columns = await execute<{ table_name: string; column_name: string }[]>(
    museum.deps.db,
    `select c.table_name, c.column_name from information_schema.columns c
     join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
     where c.table_schema = 'public' and t.table_type = 'BASE TABLE'
       and (c.data_type in ('text', 'character varying', 'character', 'json', 'jsonb', 'ARRAY'))`,
  );
  expect(columns.length).toBeGreaterThan(20);
  const found: string[] = [];
  for (const { table_name, column_name } of columns) {
    const [row] = await execute<{ count: number }[]>(
      museum.deps.db,
      `select count(*)::int as count from "${table_name}" where strpos(lower("${column_name}"::text), lower($1)) > 0`,
      [needle],
    );
    if (row!.count > 0) found.push(`${table_name}.${column_name}`);
  }
  return found;
}

const salesOf = async (startDate: string, endDate: string) =>
  (await museum.rest('GET', `/reports/sales?startDate=${startDate}&endDate=${endDate}`, { as: 'staff' }))
    .body;

describe('export', () => {
  it('lists exactly what was bought with an address, over REST and GraphQL alike, and nothing of another buyer', async () => {
    const email = newAddress();
    const other = newAddress();
    const bought = await buyAs(email);
    await buyAs(other, 'other');
    // The same buyer, however the address is written.
    const rest = await museum.rest('POST', '/privacy/exports', {
      as: 'staff',
      body: { email: email.toUpperCase() },
    });
    expect(rest.status).toBe(200);
    expect(rest.body.tickets.map((t: { ticketId: string }) => t.ticketId).sort()).toEqual(
      [...bought.ticketIds].sort(),
    );
    expect(rest.body.orders).toHaveLength(1);
    expect(rest.body.orders[0]).toMatchObject({
      orderId: bought.orderId,
      email,
      status: 'confirmed',
      total: 40,
    });
    const used = rest.body.tickets.find((t: { status: string }) => t.status === 'used');
    expect(used.checkedInAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(rest.body.tickets.every((t: { email: string }) => t.email === email)).toBe(true);
    // Its mails: the ticket bought alone, the order's, the one checked in (sent, or still owed).
    expect(rest.body.mails.length).toBe(3);
    expect(JSON.stringify(rest.body)).not.toContain(other);

    const graphql = await museum.graphql(
      BUYER_DATA,
      { input: { email: email.toUpperCase() } },
      { as: 'staff' },
    );
    const data = graphql.body.data.buyerData;
    const { exportedAt: _a, privacyRequests: before, ...restData } = rest.body;
    const { exportedAt: _b, privacyRequests: after, ...graphqlData } = data;
    // REST leaves nulls out; GraphQL has them: compare without the nulls.
    const withoutNulls = (value: unknown) =>
      JSON.parse(JSON.stringify(value, (_k, v) => (v === null ? undefined : v)));
    expect(withoutNulls(graphqlData)).toEqual(withoutNulls(restData));
    // The second export lists the first among the requests about the address.
    expect(after.length).toBe(before.length + 1);
    expect(after.at(-1)).toMatchObject({ kind: 'export', requestedBy: 'staff' });
  });

  it('says who cancelled a ticket and why: the museum, with the reason staff gave', async () => {
    const email = newAddress();
    const date = upcomingOpenDay(20);
    const bought = await museum.rest('POST', '/tickets', {
      as: 'visitor',
      body: { ticketType: 'general', ticketDate: date, email },
    });
    expect(bought.status).toBe(201);
    const closed = await museum.graphql(
      'mutation($input: SetDayHoursInput!) { setDayHours(input: $input) { closed } }',
      { input: { date, closed: true, cancelTickets: true, reason: 'A burst pipe.' } },
      { as: 'staff' },
    );
    expect(closed.body.errors).toBeUndefined();
    const rest = await museum.rest('POST', '/privacy/exports', { as: 'staff', body: { email } });
    const graphql = await museum.graphql(BUYER_DATA, { input: { email } }, { as: 'staff' });
    const calledOff = {
      ticketId: bought.body.ticketId,
      status: 'cancelled',
      cancelledBy: 'museum',
      cancellationReason: 'A burst pipe.',
    };
    expect(rest.body.tickets).toEqual([expect.objectContaining(calledOff)]);
    expect(graphql.body.data.buyerData.tickets).toEqual([expect.objectContaining(calledOff)]);
  });

  it('gives an account holder everything about their account (GET /me/data, myData), and refuses others', async () => {
    const email = newAddress();
    const bought = await buyAs(email, 'other');
    const mine = await museum.rest('GET', '/me/data', { as: 'other' });
    expect(mine.status).toBe(200);
    expect(mine.body.account).toMatchObject({ name: 'other', role: 'visitor' });
    const ids = mine.body.tickets.map((t: { ticketId: string }) => t.ticketId);
    for (const id of bought.ticketIds) expect(ids).toContain(id);
    expect(mine.body.tickets.every((t: { ticketId: string }) => ids.includes(t.ticketId))).toBe(true);
    const viaGraphql = await museum.graphql(
      `{ myData { account { name } tickets { ticketId } } }`,
      {},
      { as: 'other' },
    );
    expect(viaGraphql.body.data.myData.tickets.map((t: { ticketId: string }) => t.ticketId).sort()).toEqual(
      [...ids].sort(),
    );
    expect((await museum.rest('GET', '/me/data', { as: 'anonymous' })).status).toBe(401);
  });
});

describe('who may, and bad input', () => {
  it('refuses exports, erasures and the record to visitors and gates (403), and names a bad address (400)', async () => {
    for (const as of ['visitor', 'gate'] as const) {
      for (const path of ['/privacy/exports', '/privacy/erasures'])
        expect((await museum.rest('POST', path, { as, body: { email: 'a@example.org' } })).status).toBe(403);
      expect((await museum.rest('GET', '/privacy/requests', { as })).status).toBe(403);
      const graphql = await museum.graphql(ERASE, { input: { email: 'a@example.org' } }, { as });
      expect(graphql.body.errors[0].extensions.code).toBe('FORBIDDEN');
    }
    for (const body of [{ email: 'not an address' }, {}, { email: 42 }]) {
      const refused = await museum.rest('POST', '/privacy/erasures', { as: 'staff', body });
      expect(refused.status).toBe(400);
      expect(refused.headers.get('content-type')).toContain('application/problem+json');
      expect(JSON.stringify(refused.body)).toContain('email');
    }
    const graphql = await museum.graphql(ERASE, { input: { email: 'nope' } }, { as: 'staff' });
    expect(graphql.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });

  it('answers zeros for an address never used, and records it', async () => {
    const erased = await museum.rest('POST', '/privacy/erasures', {
      as: 'staff',
      body: { email: newAddress() },
    });
    expect(erased.status).toBe(200);
    expect(erased.body).toMatchObject({
      kind: 'erasure',
      requestedBy: 'staff',
      counts: { orders: 0, tickets: 0, mails: 0, idempotencyRecords: 0, accounts: 0 },
    });
  });
});

describe('erasure', () => {
  it('removes every copy of the address while tickets, check-ins and the sales report stay; a second erasure counts zeros', async () => {
    const email = newAddress();
    const bought = await buyAs(email);
    // Let the mail worker write its .eml files.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const report = await salesOf(bought.today, bought.date);
    const emlBefore = await emlFilesNaming(email);
    expect(emlBefore.length).toBeGreaterThan(0);
    // A file left half-written by a crash (written as `.part`, then renamed) names the address too.
    const mailDir = join(dataDir, 'mail');
    await copyFile(join(mailDir, emlBefore[0]!), join(mailDir, `${emlBefore[0]}.part`));
    expect(await whereHeld(email)).not.toEqual([]);

    const erased = await museum.graphql(ERASE, { input: { email } }, { as: 'staff' });
    expect(erased.body.errors).toBeUndefined();
    expect(erased.body.data.eraseBuyerData).toMatchObject({
      kind: 'erasure',
      counts: { orders: 1, tickets: 4, idempotencyRecords: 1, accounts: 0 },
    });
    expect(erased.body.data.eraseBuyerData.counts.mails).toBeGreaterThanOrEqual(1);
    expect(await whereHeld(email)).toEqual([]);
    expect(await emlFilesNaming(email)).toEqual([]);
    expect(await salesOf(bought.today, bought.date)).toEqual(report);

    // The ticket still admits; nothing more is mailed for it.
    const ticket = await museum.rest('GET', `/tickets/${bought.ticketIds[0]}`);
    expect(ticket.body.status).toBe('valid');
    expect((await museum.rest('POST', `/orders/${bought.orderId}/resend`)).status).toBe(409);
    expect((await museum.rest('GET', `/orders/${bought.orderId}`)).body.email).toBeUndefined();

    const again = await museum.rest('POST', '/privacy/erasures', { as: 'staff', body: { email } });
    expect(again.body.counts).toEqual({
      orders: 0,
      tickets: 0,
      mails: 0,
      idempotencyRecords: 0,
      accounts: 0,
    });
    // The record finds both by the address, and holds it nowhere in clear.
    const record = await museum.rest('GET', `/privacy/requests?email=${encodeURIComponent(email)}`, {
      as: 'staff',
    });
    expect(record.status).toBe(200);
    expect(record.body.map((r: { kind: string }) => r.kind)).toEqual(['erasure', 'erasure']);
    expect(record.headers.get('x-total-count')).toBe('2');
    const viaGraphql = await museum.graphql(
      `query($email: EmailAddress) { privacyRequests(email: $email) { total items { ${REQUEST_FIELDS} } } }`,
      { email: email.toUpperCase() },
      { as: 'staff' },
    );
    expect(viaGraphql.body.data.privacyRequests.total).toBe(2);
    expect(viaGraphql.body.data.privacyRequests.items[0]).toMatchObject(record.body[0]);
    const export_ = await museum.rest('POST', '/privacy/exports', { as: 'staff', body: { email } });
    expect(export_.body).toMatchObject({ orders: [], tickets: [], mails: [] });
    expect(export_.body.privacyRequests.map((r: { kind: string }) => r.kind)).toEqual(['erasure', 'erasure']);
  });
});

/** The `.eml` files of the test museum that name `address`. */
async function emlFilesNaming(address: string): Promise<string[]> {
  const dir = join(dataDir, 'mail');
  const names = await readdir(dir).catch(() => [] as string[]);
  const found: string[] = [];
  for (const name of names)
    if ((await readFile(join(dir, name), 'utf8').catch(() => '')).includes(address)) found.push(name);
  return found;
}

describe('deleting my account', () => {
  it('deletes the account and its data (DELETE /me); the credentials stop working; the tickets stay', async () => {
    await insertAccount(museum.deps.db, {
      name: 'leaving-account',
      role: 'visitor',
      password: 'leaving-password',
    });
    const leaving = { authorization: basic('leaving-account', 'leaving-password') };
    const email = newAddress();
    const date = upcomingOpenDay(2);
    const bought = await museum.request('POST', '/tickets', {
      as: leaving,
      body: { ticketType: 'general', ticketDate: date, email },
    });
    expect(bought.status).toBe(201);
    const deleted = await museum.request('DELETE', '/me', { as: leaving });
    expect(deleted.status).toBe(204);
    expect(await whereHeld(email)).toEqual([]);
    expect(await whereHeld('leaving-')).toEqual([]);
    expect((await museum.request('GET', '/me/data', { as: leaving })).status).toBe(401);
    const ticket = await museum.rest('GET', `/tickets/${bought.body.ticketId}`, { as: 'staff' });
    expect(ticket.body.status).toBe('valid');
    const record = await museum.rest('GET', '/privacy/requests?limit=5', { as: 'staff' });
    expect(record.body[0]).toMatchObject({
      kind: 'account_deletion',
      requestedBy: 'account_holder',
      counts: { tickets: 1, accounts: 1 },
    });
  });

  it('answers a page far past the end of the record empty (its offset past 32 bits), not a 500', async () => {
    // Found by test/fuzz.test.ts: (214748366 - 1) × 10 rows overflowed the statement's int offset.
    const far = await museum.rest('GET', '/privacy/requests?page=214748366', { as: 'staff' });
    expect(far.status).toBe(200);
    expect(far.body).toEqual([]);
  });

  it('deletes a gate account too (deleteMyAccount over GraphQL)', async () => {
    await insertAccount(museum.deps.db, { name: 'door-leaving', role: 'gate', password: 'door-password' });
    const door = { authorization: basic('door-leaving', 'door-password') };
    const deleted = await museum.request('POST', '/graphql', {
      as: door,
      body: { query: `mutation { deleteMyAccount { ${REQUEST_FIELDS} } }` },
    });
    expect(deleted.body.data.deleteMyAccount).toMatchObject({
      kind: 'account_deletion',
      requestedBy: 'account_holder',
      counts: { orders: 0, tickets: 0, accounts: 1 },
    });
    expect(await whereHeld('door-leaving')).toEqual([]);
  });

  it('keeps the last staff account (409)', async () => {
    const refused = await museum.graphql('mutation { deleteMyAccount { requestId } }', {}, { as: 'staff' });
    expect(refused.body.errors[0].extensions.code).toBe('CONFLICT');
    expect((await museum.rest('GET', '/me/data', { as: 'staff' })).status).toBe(200);
  });
});

describe('retention', () => {
  /** An instance over `env`'s database (kept between instances, unlike startMuseum's), its clock set. */
  async function openOn(env: Record<string, string>, clock?: SetClock) {
    const config = loadConfig({
      ...env,
      MUSEUM_ADMIN_USER: STAFF.name,
      MUSEUM_ADMIN_PASSWORD: STAFF.password,
      MUSEUM_RETENTION_DAYS: '30',
      LOG_LEVEL: 'silent',
    });
    const opened = await served(
      await openMuseum(config, { logger: createLogger('silent'), announce: () => {}, clock }),
    );
    const rest = async (method: string, path: string, body?: unknown) => {
      const response = await opened.fetch(`http://museum.test${path}`, {
        method,
        headers: { authorization: basic(STAFF.name, STAFF.password), 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, body: await response.json() };
    };
    return { ...opened, rest };
  }

  it('erases visits past MUSEUM_RETENTION_DAYS on its own, once a museum day, and records it', async () => {
    const own = await ownDatabase();
    const email = newAddress();
    const kept = newAddress();
    const date = upcomingOpenDay(0);
    const report = `/reports/sales?startDate=${date}&endDate=${date}`;
    try {
      const first = await openOn(own.env);
      let sales: unknown;
      try {
        for (const [address, ticketDate] of [
          [email, date],
          [kept, upcomingOpenDay(40)],
        ] as const) {
          const sold = await first.rest('POST', '/tickets', {
            ticketType: 'general',
            ticketDate,
            email: address,
          });
          expect(sold.status).toBe(201);
        }
        sales = (await first.rest('GET', report)).body;
      } finally {
        await first.close();
      }
      // 31 days after the first visit: its address goes, the later one's stays.
      const day = addDays(date, 31);
      const later = await openOn(own.env, setClock('03:00', day));
      try {
        const run = await eventuallyRetention(later.rest, day);
        expect(run).toMatchObject({ kind: 'retention', requestedBy: 'retention', retentionDate: day });
        expect(run.counts.tickets).toBeGreaterThanOrEqual(1);
        expect(run.accountId).toBeUndefined();
        expect((await later.rest('POST', '/privacy/exports', { email })).body.tickets).toEqual([]);
        expect((await later.rest('POST', '/privacy/exports', { email: kept })).body.tickets).toHaveLength(1);
        expect((await later.rest('GET', report)).body).toEqual(sales);
      } finally {
        await later.close();
      }
      // Once a day: another start that day records no second run.
      const again = await openOn(own.env, setClock('09:00', day));
      try {
        await new Promise((resolve) => setTimeout(resolve, 300));
        const runs = (await again.rest('GET', '/privacy/requests?limit=30')).body.filter(
          (r: { kind: string; retentionDate?: string }) => r.kind === 'retention' && r.retentionDate === day,
        );
        expect(runs).toHaveLength(1);
      } finally {
        await again.close();
      }
    } finally {
      await own.drop();
    }
  });

  it.skipIf(!process.env.TEST_DATABASE_URL)(
    'runs to its end past REQUEST_TIMEOUT_MS: its transaction is free of the statement timeout',
    async () => {
      const own = await ownDatabase();
      const date = upcomingOpenDay(0);
      const direct = new pg.Client({
        connectionString: own.env.DATABASE_DIRECT_URL ?? own.env.DATABASE_URL,
      });
      try {
        const first = await openOn(own.env);
        try {
          const sold = await first.rest('POST', '/tickets', {
            ticketType: 'general',
            ticketDate: date,
            email: newAddress(),
          });
          expect(sold.status).toBe(201);
        } finally {
          await first.close();
        }
        // The run's erasure waits 2.5 s for the tickets, longer than any request of this instance may run.
        await direct.connect();
        await direct.query('begin');
        await direct.query('lock table ticket in share mode');
        const day = addDays(date, 31);
        const later = await openOn({ ...own.env, REQUEST_TIMEOUT_MS: '1000' }, setClock('03:00', day));
        try {
          await new Promise((resolve) => setTimeout(resolve, 2_500));
          await direct.query('commit');
          const run = await eventuallyRetention(later.rest, day);
          expect(run.counts.tickets).toBe(1);
        } finally {
          await later.close();
        }
      } finally {
        await direct.query('rollback').catch(() => {});
        await direct.end().catch(() => {});
        await own.drop();
      }
    },
  );
});

async function eventuallyRetention(
  rest: (method: string, path: string) => Promise<{ body: any }>,
  day: string,
): Promise<any> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const page = await rest('GET', '/privacy/requests?limit=30');
    const run = page.body.find?.(
      (r: { kind: string; retentionDate?: string }) => r.kind === 'retention' && r.retentionDate === day,
    );
    if (run) return run;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('no retention run was recorded');
}

describe.skipIf(!process.env.TEST_DATABASE_URL)('an erasure and the mail worker (PostgreSQL)', () => {
  it('queues no owed mail while an erasure holds the mail queue, and queues it once the erasure is over', async () => {
    const erasure = new pg.Client({ connectionString: museum.databaseUrl });
    await erasure.connect();
    try {
      // What an erasure's transaction holds first (src/privacy/privacy.service.ts).
      await erasure.query('begin');
      await erasure.query('select pg_advisory_xact_lock($1)', [MAIL_QUEUE_LOCK]);
      const ticket = await boughtTicket(museum, { ticketDate: upcomingOpenDay(2), email: newAddress() });
      const queued = async () =>
        (await erasure.query('select 1 from mail where $1::uuid = any(ticket_ids)', [ticket.ticketId]))
          .rowCount;
      // The worker runs at once after a sale, and again each second: still nothing queued.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(await queued()).toBe(0);
      await erasure.query('commit');
      await eventually(async () => (await queued()) === 1);
    } finally {
      await erasure.end();
    }
  });
});
