// A museum per test file: the real app over a real database with the real migrations. Embedded PGlite in
// memory by default; with TEST_DATABASE_URL=postgres://… a fresh database on that server, dropped after.
// With TEST_DATABASE_DIRECT_URL too, TEST_DATABASE_URL is a transaction pooler in front of that server:
// databases are created and dropped on the server, and the museums reach them through the pooler.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { type AppOptions, type Museum, openMuseum } from '../../src/app.ts';
import { addDays, type Clock, isoWeekday } from '../../src/common/dates.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import { createLogger, type Logger } from '../../src/logger.ts';
import { insertAccount } from './db.ts';
import { recordedLogger, recordMetrics } from './leak-recording.ts';
import { type Listening, listen } from './listening.ts';

export const STAFF = { name: 'curator', password: 'curator-password' } as const;
export const VISITOR = { name: 'visitor', password: 'visitor-password' } as const;
export const OTHER_VISITOR = { name: 'other', password: 'other-password' } as const;

/** A door scanner's account (role gate); a test that needs it adds it with addGateAccount. */
export const GATE = { name: 'door1', password: 'door1-password' } as const;

export type Caller = 'staff' | 'visitor' | 'other' | 'gate' | 'anonymous' | { authorization: string };

export const basic = (name: string, password: string) =>
  `Basic ${Buffer.from(`${name}:${password}`).toString('base64')}`;

function authorizationOf(caller: Caller): string | undefined {
  if (caller === 'anonymous') return undefined;
  if (typeof caller === 'object') return caller.authorization;
  const account =
    caller === 'staff' ? STAFF : caller === 'visitor' ? VISITOR : caller === 'gate' ? GATE : OTHER_VISITOR;
  return basic(account.name, account.password);
}

export interface TestResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** A museum listening on 127.0.0.1 (test/support/listening.ts): `fetch` reaches it over a socket. */
export interface ListeningMuseum extends Museum, Pick<Listening, 'url' | 'fetch'> {}

export interface TestMuseum extends ListeningMuseum {
  /** Where the test database lives, for tests that start a server process on it. */
  databaseUrl: string | undefined;
  /**
   * The variables that reach the test database (DATABASE_URL, and DATABASE_DIRECT_URL behind a pooler),
   * for another instance or a server process over it; `{}` on the embedded database.
   */
  databaseEnv: Record<string, string>;
  /**
   * Closes the museum and drops its database, leaving its server listening: a database gone under a running
   * server. `close` then only stops the server.
   */
  closeBehindServer(): Promise<void>;
  request(method: string, path: string, options?: RequestOptions): Promise<TestResponse>;
  rest(method: string, path: string, options?: RequestOptions): Promise<TestResponse>;
  graphql(
    query: string,
    variables?: Record<string, unknown>,
    options?: { as?: Caller },
  ): Promise<TestResponse>;
}

export interface RequestOptions {
  as?: Caller;
  body?: unknown;
  /** Sent as it is, instead of JSON-encoding `body`. */
  rawBody?: string;
  headers?: Record<string, string>;
}

/** The test server's URL for the database `name` (its own `postgres` when unnamed), without any pooler. */
export function directTestUrl(name?: string): string | undefined {
  const server = process.env.TEST_DATABASE_DIRECT_URL || process.env.TEST_DATABASE_URL;
  if (!server) return undefined;
  const url = new URL(server);
  if (name) url.pathname = `/${name}`;
  return url.toString();
}

/**
 * A new database on the PostgreSQL server of TEST_DATABASE_URL (created and dropped on
 * TEST_DATABASE_DIRECT_URL when that is set: a pooler cannot), dropped by `drop`. `env` reaches it.
 */
export async function createPostgresDatabase(
  adminUrl: string,
): Promise<{ url: string; env: Record<string, string>; drop(): Promise<void> }> {
  const name = `museum_test_${randomBytes(6).toString('hex')}`;
  const server = process.env.TEST_DATABASE_DIRECT_URL || adminUrl;
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const direct = new URL(server);
  direct.pathname = `/${name}`;
  return {
    url: url.toString(),
    env: {
      DATABASE_URL: url.toString(),
      ...(process.env.TEST_DATABASE_DIRECT_URL ? { DATABASE_DIRECT_URL: direct.toString() } : {}),
    },
    async drop() {
      const client = new pg.Client({ connectionString: server });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

/**
 * A test's requests stand for many clients (50 buyers at once) but come from one address: the per-client
 * in-flight cap is lifted for them (test/security/ checks the cap on servers of its own).
 */
const MANY_CLIENTS = { MAX_CONCURRENT_REQUESTS_PER_CLIENT: '10000' };

/**
 * Opens a museum on a fresh database with a staff account and two visitors (`logger`: to read its lines;
 * `envFor`: more variables that depend on the database's name, such as replicas' URLs).
 */
export async function startMuseum(
  env: Record<string, string> = {},
  options: {
    logger?: Logger;
    envFor?: (databaseName: string) => Record<string, string>;
    clock?: Clock;
    /** More engine plugins (src/app.ts). */
    plugins?: AppOptions['plugins'];
  } = {},
): Promise<TestMuseum> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  const database = adminUrl ? await createPostgresDatabase(adminUrl) : undefined;
  const config: Config = loadConfig({
    MUSEUM_DATA_DIR: TEST_DATA_DIR,
    DATABASE_URL: 'memory://',
    ...database?.env,
    ...(database && options.envFor?.(new URL(database.url).pathname.slice(1))),
    MUSEUM_ADMIN_USER: STAFF.name,
    MUSEUM_ADMIN_PASSWORD: STAFF.password,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    ...MANY_CLIENTS,
    ...env,
  });
  const museum = await openMuseum(config, {
    logger: recordedLogger(options.logger ?? createLogger(config.logLevel)),
    clock: options.clock,
    plugins: options.plugins,
  });
  const listening = await listen(museum);
  for (const account of [VISITOR, OTHER_VISITOR])
    await insertAccount(museum.deps.db, { name: account.name, role: 'visitor', password: account.password });

  async function request(method: string, path: string, options: RequestOptions = {}): Promise<TestResponse> {
    const headers: Record<string, string> = { ...options.headers };
    const authorization = authorizationOf(options.as ?? 'anonymous');
    if (authorization) headers.authorization = authorization;
    let body: string | undefined = options.rawBody;
    if (body === undefined && options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await listening.fetch(path, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {}
    return { status: response.status, headers: response.headers, body: parsed, text };
  }

  let closing: Promise<void> | undefined;
  let closedBehindServer = false;
  return {
    ...museum,
    url: listening.url,
    fetch: listening.fetch,
    databaseUrl: database?.url,
    databaseEnv: database?.env ?? {},
    request,
    rest: (method, path, options) => request(method, path, { as: 'visitor', ...options }),
    graphql: (query, variables, options) =>
      request('POST', '/graphql', { as: options?.as ?? 'visitor', body: { query, variables } }),
    // Once: a second close after the database was dropped would wait on a pooler still trying to log in
    // to it (PgBouncer holds a client's login until client_login_timeout).
    async closeBehindServer() {
      closedBehindServer = true;
      await museum.close();
      await database?.drop();
    },
    close() {
      closing ??= (async () => {
        if (!closedBehindServer) await recordMetrics(listening.fetch);
        await listening.stop();
        if (closedBehindServer) return;
        await museum.close();
        await database?.drop();
      })();
      return closing;
    },
  };
}

/**
 * A database of its own for server processes a test starts and kills (no other instance may work on it
 * meanwhile): a fresh PostgreSQL database with TEST_DATABASE_URL, else an embedded one on disk. As server
 * settings, and how to drop it.
 */
export async function ownDatabase(): Promise<{ env: Record<string, string>; drop(): Promise<void> }> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (adminUrl) {
    const postgres = await createPostgresDatabase(adminUrl);
    return { env: postgres.env, drop: () => postgres.drop() };
  }
  const dataDir = await mkdtemp(join(tmpdir(), 'museum-own-'));
  return { env: { MUSEUM_DATA_DIR: dataDir }, drop: () => rm(dataDir, { recursive: true, force: true }) };
}

/**
 * Where test museums on a database of their own (in memory, or PostgreSQL) write what they keep on disk: the
 * `.eml` files of their mail, when a test gives no SMTP_URL.
 */
export const TEST_DATA_DIR = join(tmpdir(), 'museum-tests');

/** Adds the GATE account (role gate) to a test museum. */
export async function addGateAccount(museum: Museum): Promise<void> {
  await insertAccount(museum.deps.db, { name: GATE.name, role: 'gate', password: GATE.password });
}

/** Today in the test museum's time zone (UTC unless a test sets MUSEUM_TIMEZONE). */
export const todayUtc = () => new Date().toISOString().slice(0, 10);

/** The first day of far-future window `n` (100 days each, years ahead), for a listing test of its own. */
export const farWindow = (n: number) => addDays(todayUtc(), 3000 + 100 * n);

/** The n-th (0-based) upcoming date, from tomorrow, whose ISO weekday is in `weekdays` (1 = Monday). */
export function upcoming(weekdays: number[], n = 0, from = addDays(todayUtc(), 1)): string {
  let date = from;
  for (let found = -1; ; date = addDays(date, 1)) {
    if (weekdays.includes(isoWeekday(date)) && ++found === n) return date;
  }
}

/** Open under the regular schedule (Monday to Friday). */
export const upcomingOpenDay = (n = 0) => upcoming([1, 2, 3, 4, 5], n);
/** Closed under the regular schedule (Saturday, Sunday). */
export const upcomingClosedDay = (n = 0) => upcoming([6, 7], n);

export function eventBody(overrides: Record<string, unknown> = {}) {
  return {
    name: 'Mermaid Treasure Identification and Analysis',
    location: 'Under the seaaa 🦀 🎶 🌊.',
    eventDescription:
      'Join us as we review and classify a rare collection of 20 thingamabobs, gadgets, gizmos.',
    dates: [upcomingOpenDay(0), upcomingOpenDay(3)],
    price: 30,
    ...overrides,
  };
}

/** Prices an event may not have, as create and update both refuse them (with the field `price`). */
export const REFUSED_PRICES: Array<[string, Record<string, unknown>, string]> = [
  ['a negative price', { price: -1 }, 'price'],
  ['a price with 3 decimals', { price: 1.234 }, 'price'],
  ['a price over 1 000 000', { price: 1000000.01 }, 'price'],
  ['a price as a string', { price: '10' }, 'price'],
  ['a null price', { price: null }, 'price'],
];

/** Another instance of the app over the same PostgreSQL database, as a second server behind a balancer. */
export async function openSecondInstance(
  museum: TestMuseum,
  env: Record<string, string> = {},
): Promise<ListeningMuseum> {
  const config = loadConfig({ ...museum.databaseEnv, LOG_LEVEL: 'silent', ...MANY_CLIENTS, ...env });
  return served(
    await openMuseum(config, { logger: recordedLogger(createLogger('silent')), announce: () => {} }),
  );
}

/** `museum`, listening: closing it stops the server first. */
export async function served(museum: Museum): Promise<ListeningMuseum> {
  const server = await listen(museum);
  return {
    ...museum,
    url: server.url,
    fetch: server.fetch,
    async close() {
      await server.stop();
      await museum.close();
    },
  };
}
