// Behind a transaction pooler (issue 26): DATABASE_URL names PgBouncer in transaction mode and
// DATABASE_DIRECT_URL the server itself. Request traffic then holds nothing beyond a transaction (no named
// statement, no session SET); migrations, their lock and LISTEN use the direct connection; start-up says
// which mode it is in, in one line, and a configuration under which live events would be lost is one clear
// start-up error. The whole suite also runs through the pooler in CI (.ci/run: TEST_DATABASE_URL names
// PgBouncer, TEST_DATABASE_DIRECT_URL the server).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import type { PostgresSettings } from '../../src/db/settings.ts';
import { createLogger } from '../../src/logger.ts';
import { documentedEnv } from '../support/docs.ts';
import { basic, createPostgresDatabase, eventBody, STAFF, upcomingOpenDay } from '../support/museum.ts';
import { loggedLines, logLines, spawnServer } from '../support/server.ts';
import { useMuseum } from '../support/use-museum.ts';

const poolerUrl = process.env.TEST_DATABASE_DIRECT_URL ? process.env.TEST_DATABASE_URL : undefined;
const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

/** A logger whose lines are kept, to read the start-up line. */
function keptLogger() {
  const lines: { message: string; fields?: Record<string, unknown> }[] = [];
  const base = createLogger('silent');
  const keep = (message: string, fields?: Record<string, unknown>) => {
    lines.push({ message, fields });
  };
  return { lines, logger: { ...base, info: keep, warn: keep, error: keep, debug: () => {} } };
}

/** Every statement config the `pg` clients are handed while `send` runs. */
async function configsSentBy(send: () => Promise<unknown>): Promise<Array<{ name?: string; text: string }>> {
  const sent: Array<{ name?: string; text: string }> = [];
  const query = pg.Client.prototype.query;
  const spy = vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (
    this: pg.Client,
    ...args: unknown[]
  ) {
    const config = args[0] as string | { name?: string; text: string };
    sent.push(typeof config === 'string' ? { text: config } : config);
    return (query as (...args: unknown[]) => unknown).apply(this, args);
  } as typeof query);
  try {
    await send();
    return sent;
  } finally {
    spy.mockRestore();
  }
}

describe('the database variables', () => {
  it('DATABASE_DIRECT_URL and DATABASE_READ_URLS need a PostgreSQL DATABASE_URL', () => {
    expect(() => loadConfig({ DATABASE_DIRECT_URL: 'postgres://db/museum' })).toThrow(
      /DATABASE_DIRECT_URL needs DATABASE_URL=postgres:\/\//,
    );
    expect(() =>
      loadConfig({ DATABASE_URL: 'memory://', DATABASE_READ_URLS: 'postgres://replica/museum' }),
    ).toThrow(/DATABASE_READ_URLS needs DATABASE_URL=postgres:\/\//);
  });

  it('refuses a DATABASE_DIRECT_URL that is the pooler itself, and URLs that are not postgres://', () => {
    expect(() =>
      loadConfig({ DATABASE_URL: 'postgres://pool/museum', DATABASE_DIRECT_URL: 'postgres://pool/museum' }),
    ).toThrow(/DATABASE_DIRECT_URL must name the PostgreSQL server itself/);
    expect(() =>
      loadConfig({ DATABASE_URL: 'postgres://db/museum', DATABASE_DIRECT_URL: 'mysql://db/museum' }),
    ).toThrow(/DATABASE_DIRECT_URL must be a postgres:\/\/ connection URL/);
    expect(() =>
      loadConfig({ DATABASE_URL: 'postgres://db/museum', DATABASE_READ_URLS: 'postgres://r1/m, http://r2' }),
    ).toThrow(/DATABASE_READ_URLS must be comma-separated postgres:\/\/ connection URLs/);
  });

  it('reads the pooler, its server and the replicas', () => {
    expect(
      loadConfig({
        DATABASE_URL: 'postgres://pool:6432/museum',
        DATABASE_DIRECT_URL: 'postgres://db:5432/museum',
        DATABASE_READ_URLS: 'postgres://r1/museum, postgres://r2/museum',
        DATABASE_REPLICA_MAX_LAG: '5',
      }).database,
    ).toEqual({
      kind: 'postgres',
      url: 'postgres://pool:6432/museum',
      directUrl: 'postgres://db:5432/museum',
      readUrls: ['postgres://r1/museum', 'postgres://r2/museum'],
      replicaMaxLagSeconds: 5,
      statementTimeoutMs: 15_000,
    });
  });
});

describe('statement_timeout', () => {
  it('is REQUEST_TIMEOUT_MS, at least a second (start-up runs its own statements on the same connections)', () => {
    const timeoutOf = (REQUEST_TIMEOUT_MS?: string) =>
      (
        loadConfig({ DATABASE_URL: 'postgres://db:5432/museum', REQUEST_TIMEOUT_MS })
          .database as PostgresSettings
      ).statementTimeoutMs;
    expect(timeoutOf()).toBe(15_000);
    expect(timeoutOf('30000')).toBe(30_000);
    expect(timeoutOf('1')).toBe(1_000);
  });
});

describe.skipIf(!onPostgres)('start-up on PostgreSQL', () => {
  const { lines, logger } = keptLogger();
  const museum = useMuseum({ LOG_LEVEL: 'info' }, { logger });

  it('says in one line how the database is reached', () => {
    const said = lines.filter((line) => line.message.startsWith('database: '));
    expect(said).toHaveLength(1);
    if (poolerUrl) {
      expect(said[0]!.fields).toEqual({ databaseMode: 'transaction pooler' });
      expect(said[0]!.message).toMatch(
        /^database: PostgreSQL behind a transaction pooler at 127\.0\.0\.1:\d+\/museum_test_\w+ \(unnamed statements, no session state, statement_timeout 15s from the pooler\); migrations and LISTEN direct to 127\.0\.0\.1:\d+\/museum_test_\w+$/,
      );
    } else {
      expect(said[0]!.fields).toEqual({ databaseMode: 'direct' });
      expect(said[0]!.message).toMatch(
        /^database: PostgreSQL at 127\.0\.0\.1:\d+\/museum_test_\w+, direct \(statement_timeout 15000 ms\)$/,
      );
    }
  });

  it(
    poolerUrl ? 'sends every statement unnamed through the pooler' : 'sends its statements by name',
    async () => {
      const made = await museum.rest('POST', '/special-events', { as: 'staff', body: eventBody() });
      expect(made.status).toBe(201);
      const sent = await configsSentBy(async () => {
        for (const path of ['/special-events', `/special-events/${made.body.eventId}`, '/museum-hours'])
          expect((await museum.rest('GET', path)).status).toBe(200);
      });
      const named = sent.filter((config) => config.name !== undefined);
      if (poolerUrl) expect(named).toEqual([]);
      else expect(named.length).toBeGreaterThan(0);
    },
  );

  it.skipIf(!poolerUrl)('leaves no session setting on the pooler’s server connections', async () => {
    for (let i = 0; i < 20; i++) expect((await museum.rest('GET', '/special-events')).status).toBe(200);
    // As many clients at once as the pool has server connections: each is handed one of them.
    const clients = Array.from({ length: 10 }, () => new pg.Client({ connectionString: museum.databaseUrl }));
    try {
      await Promise.all(clients.map((client) => client.connect()));
      await Promise.all(clients.map((client) => client.query('begin')));
      const modes = await Promise.all(clients.map((client) => client.query('show plan_cache_mode')));
      expect(new Set(modes.map((mode) => mode.rows[0].plan_cache_mode))).toEqual(new Set(['auto']));
    } finally {
      await Promise.all(clients.map((client) => client.end().catch(() => {})));
    }
  });

  it('stops with one line when DATABASE_DIRECT_URL reaches another database than DATABASE_URL', async () => {
    // The test server's own `postgres` database: LISTEN there never hears what the museum's database notifies.
    const elsewhere = new URL(museum.databaseEnv.DATABASE_DIRECT_URL ?? museum.databaseUrl!);
    elsewhere.pathname = '/postgres';
    const server = spawnServer({
      ...museum.databaseEnv,
      DATABASE_DIRECT_URL: elsewhere.toString(),
      MUSEUM_ADMIN_USER: STAFF.name,
      MUSEUM_ADMIN_PASSWORD: STAFF.password,
    });
    const error = await server.then(
      () => null,
      (failed: Error) => failed.message,
    );
    expect(error).toMatch(
      /Start-up failed: LISTEN on DATABASE_DIRECT_URL \(127\.0\.0\.1:\d+\/postgres\) did not hear a NOTIFY sent through DATABASE_URL \(127\.0\.0\.1:\d+\/museum_test_\w+\) within 5 s: DATABASE_DIRECT_URL must name the same database on the PostgreSQL server itself, not a pooler\n/,
    );
  });
});

describe.skipIf(!poolerUrl)('docs/operations.md, "Behind a transaction pooler"', () => {
  let database: Awaited<ReturnType<typeof createPostgresDatabase>>;
  beforeAll(async () => {
    database = await createPostgresDatabase(process.env.TEST_DATABASE_URL!);
  });
  afterAll(() => database?.drop());

  it('starts as pasted (the pooler and server of this run for 6432 and 5432), and sells a ticket', async () => {
    const name = new URL(database.url).pathname.slice(1);
    const env = documentedEnv(
      'docs/operations.md',
      'Behind a transaction pooler',
      {
        '127.0.0.1:6432': new URL(poolerUrl!).host,
        '127.0.0.1:5432': new URL(process.env.TEST_DATABASE_DIRECT_URL!).host,
      },
      { user: 'postgres', database: name },
    );
    expect(Object.keys(env).sort()).toEqual([
      'DATABASE_DIRECT_URL',
      'DATABASE_URL',
      'MUSEUM_ADMIN_PASSWORD',
      'MUSEUM_ADMIN_USER',
    ]);
    const server = await spawnServer(env);
    try {
      const said = await loggedLines(server, 'database: ');
      expect(said).toEqual([expect.objectContaining({ databaseMode: 'transaction pooler' })]);
      const bought = await fetch(`${server.url}/tickets`, {
        method: 'POST',
        headers: {
          authorization: basic(env.MUSEUM_ADMIN_USER!, env.MUSEUM_ADMIN_PASSWORD!),
          'content-type': 'application/json',
        },
        body: JSON.stringify({
          ticketType: 'general',
          ticketDate: upcomingOpenDay(0),
          email: 'a@example.com',
        }),
      });
      expect(bought.status).toBe(201);
    } finally {
      await server.stop();
    }
  });
});

describe.skipIf(!poolerUrl)('a pooler without DATABASE_DIRECT_URL', () => {
  let database: Awaited<ReturnType<typeof createPostgresDatabase>>;
  beforeAll(async () => {
    database = await createPostgresDatabase(process.env.TEST_DATABASE_URL!);
  });
  afterAll(() => database?.drop());

  it('is one start-up error naming DATABASE_DIRECT_URL, not a silent loss of live events', async () => {
    const error = await spawnServer({ DATABASE_URL: database.url }).then(
      (server) => {
        void server.stop();
        return `started: ${JSON.stringify(logLines(server))}`;
      },
      (failed: Error) => failed.message,
    );
    const lines = error.split('\n').filter((line) => line.trim() !== '');
    expect(lines).toEqual([
      'server did not start:',
      expect.stringMatching(
        /^Start-up failed: LISTEN through DATABASE_URL \(127\.0\.0\.1:\d+\/museum_test_\w+\) did not hear its own NOTIFY within 5 s, so live events would be lost: behind a transaction pooler \(PgBouncer\), set DATABASE_DIRECT_URL to the PostgreSQL server itself \(docs\/operations\.md, "Behind a transaction pooler"\)$/,
      ),
    ]);
    // Nothing was migrated through the pooler: start-up stopped before.
    const direct = new pg.Client({ connectionString: database.env.DATABASE_DIRECT_URL });
    await direct.connect();
    try {
      const { rows } = await direct.query(`select to_regclass('public.special_event') as table`);
      expect(rows[0].table).toBeNull();
    } finally {
      await direct.end();
    }
  });
});
