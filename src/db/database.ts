import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import pg, { type Pool } from 'pg';
import { type Connection, createPool } from './connection.ts';
import { freshCluster } from './fresh-cluster.ts';
import { createReplicas, type Replicas } from './replicas.ts';
import type { DatabaseSettings, PostgresSettings } from './settings.ts';
import { createSql, type Sql, statement } from './sql.ts';

export interface Database {
  kind: DatabaseSettings['kind'];
  /** How it is reached, for the start-up line: `embedded`, `direct`, `transaction pooler`, each `+ replicas`. */
  mode: { mode: string; description: string };
  /** How `pool` connects: the migrations (src/db/migrate.ts) run over it. */
  connection: Connection;
  /** The server itself when `pool` reaches it through a transaction pooler: migrations and their lock use it. */
  directUrl: string | null;
  /** Read replicas (DATABASE_READ_URLS), when there are any. */
  replicas?: Replicas;
  /** The one way to the database: typed statements and transactions (src/db/sql.ts). */
  sql: Sql;
  /** The primary's connections, which `sql` uses: their counts for /metrics, and the migrations' turn. */
  pool: Pool;
  /** Resolves when the primary answers a statement (the readiness check). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

const PING = statement<{ one: number }>('ping', 'select 1 as one');

/**
 * Opens the configured database: the embedded PGlite (on disk or in memory) behind a private Unix socket,
 * or a PostgreSQL server. Either way pg talks the same wire protocol to it.
 */
export async function openDatabase(database: DatabaseSettings): Promise<Database> {
  if (database.kind === 'postgres') return openPostgres(database);

  // Loaded only for the embedded database: a server on PostgreSQL never pays for PGlite's modules.
  const [{ PGlite }, { PGLiteSocketServer }] = await Promise.all([
    import('@electric-sql/pglite'),
    import('@electric-sql/pglite-socket'),
  ]);
  const releaseLock = database.dataDir ? await lockDataDir(resolve(database.dataDir)) : async () => {};
  let pglite: PGlite;
  try {
    pglite = database.dataDir
      ? await PGlite.create(resolve(database.dataDir))
      : await freshCluster(PGlite, database.cacheDir ?? null);
  } catch (error) {
    await releaseLock();
    throw error;
  }
  // A folder only this process can read: the socket accepts any client that can reach it.
  const socketDir = await mkdtemp(join(tmpdir(), 'museum-pg-'));
  const server = new PGLiteSocketServer({
    db: pglite,
    path: join(socketDir, '.s.PGSQL.5432'),
    // The pool holds one connection; a second slot lets it reconnect while a broken one is still closing.
    maxConnections: 2,
  });
  await server.start();
  try {
    const connection = { socketDir };
    const pool = createPool(connection);
    const sql = createSql(pool);
    return {
      kind: 'embedded',
      mode: {
        mode: 'embedded',
        description: `embedded PostgreSQL (PGlite) ${database.dataDir ? `in ${resolve(database.dataDir)}` : 'in memory'}`,
      },
      connection,
      directUrl: null,
      sql,
      pool,
      ping: () => sql.query(PING, []).then(() => {}),
      async close() {
        await pool.end();
        await server.stop();
        await pglite.close();
        await rm(socketDir, { recursive: true, force: true });
        await releaseLock();
      },
    };
  } catch (error) {
    await server.stop();
    await pglite.close();
    await rm(socketDir, { recursive: true, force: true });
    await releaseLock();
    throw error;
  }
}

/** Where a URL points, without its credentials: `host:port/database`. */
export const serverName = (url: string) => {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
};

/** A configuration that cannot work (LISTEN through a pooler, say): start-up stops with its message. */
export class DatabaseSetupError extends Error {}

/** How long start-up waits for its own NOTIFY to come back over the LISTEN connection. */
const LISTEN_CHECK_MS = 5_000;

/**
 * A PostgreSQL server, directly or behind a transaction pooler (`directUrl` set), with read replicas or not.
 * Before anything else, start-up checks that LISTEN works where it will be held: a NOTIFY sent through the
 * request pool must be heard on the LISTEN connection. Through a transaction pooler it is not (the LISTEN
 * stays on whichever server session ran it), and live events would silently stop: that is one clear error.
 */
async function openPostgres(database: PostgresSettings): Promise<Database> {
  const pooler = database.directUrl !== null;
  const connection = { url: database.url, pooler, statementTimeoutMs: database.statementTimeoutMs };
  const pool = createPool(connection);
  let replicas: Replicas | undefined;
  try {
    replicas =
      database.readUrls.length > 0
        ? createReplicas({
            urls: database.readUrls,
            primary: pool,
            maxLagSeconds: database.replicaMaxLagSeconds,
            // pg sends it as a startup parameter, which a pooler refuses: there the pooler sets it.
            statementTimeoutMs: pooler ? undefined : database.statementTimeoutMs,
          })
        : undefined;
    const sql = createSql(pool, {
      pooler,
      listenUrl: database.directUrl ?? undefined,
      replicas,
    });
    await checkListen(pool, database);
    await replicas?.poll();
    // Behind a pooler the statements' time limit is the pooler's to set: start-up says which one holds.
    const poolerTimeout = pooler
      ? ((await pool.query<{ statement_timeout: string }>('show statement_timeout')).rows[0]
          ?.statement_timeout ?? '0')
      : null;
    const mode = [pooler ? 'transaction pooler' : 'direct', ...(replicas ? ['replicas'] : [])].join(' + ');
    const description = [
      pooler
        ? `PostgreSQL behind a transaction pooler at ${serverName(database.url)} (unnamed statements, no session state, ${poolerTimeout === '0' ? "no statement_timeout: set one in the pooler's connect_query, docs/operations.md" : `statement_timeout ${poolerTimeout} from the pooler`}); migrations and LISTEN direct to ${serverName(database.directUrl!)}`
        : `PostgreSQL at ${serverName(database.url)}, direct (statement_timeout ${database.statementTimeoutMs} ms)`,
      ...(replicas
        ? [
            `${database.readUrls.length} read replica${database.readUrls.length > 1 ? 's' : ''} (${database.readUrls.map(serverName).join(', ')}) for reads that may be stale, read-your-writes per account, skipped beyond ${database.replicaMaxLagSeconds} s of lag`,
          ]
        : []),
    ].join('; ');
    return {
      kind: 'postgres',
      mode: { mode, description },
      connection,
      directUrl: database.directUrl,
      replicas,
      sql,
      pool,
      ping: () => sql.query(PING, []).then(() => {}),
      async close() {
        await sql.stopListening();
        await replicas?.close();
        await pool.end();
      },
    };
  } catch (error) {
    await replicas?.close();
    await pool.end();
    throw error;
  }
}

async function checkListen(pool: Pool, database: PostgresSettings): Promise<void> {
  const channel = `museum_check_${randomBytes(6).toString('hex')}`;
  const listener = new pg.Client(
    database.directUrl ? { connectionString: database.directUrl } : pool.options,
  );
  // A failure to connect is the database being unreachable, which start-up retries.
  listener.on('error', () => {});
  await listener.connect();
  try {
    let timer: NodeJS.Timeout | undefined;
    // A connection that breaks meanwhile is the database going away (start-up tries again), not a verdict.
    const heard = new Promise<boolean>((resolve, reject) => {
      listener.on('notification', (message) => message.channel === channel && resolve(true));
      listener.on('error', reject);
      timer = setTimeout(resolve, LISTEN_CHECK_MS, false);
    });
    heard.catch(() => {});
    await listener.query(`listen ${channel}`);
    await pool.query('select pg_notify($1, $2)', [channel, 'check']);
    const ok = await heard.finally(() => clearTimeout(timer));
    if (ok) return;
  } finally {
    await listener.end().catch(() => {});
  }
  throw new DatabaseSetupError(
    database.directUrl
      ? `LISTEN on DATABASE_DIRECT_URL (${serverName(database.directUrl)}) did not hear a NOTIFY sent through DATABASE_URL (${serverName(database.url)}) within ${LISTEN_CHECK_MS / 1000} s: DATABASE_DIRECT_URL must name the same database on the PostgreSQL server itself, not a pooler`
      : `LISTEN through DATABASE_URL (${serverName(database.url)}) did not hear its own NOTIFY within ${LISTEN_CHECK_MS / 1000} s, so live events would be lost: behind a transaction pooler (PgBouncer), set DATABASE_DIRECT_URL to the PostgreSQL server itself (docs/operations.md, "Behind a transaction pooler")`,
  );
}

export class DatabaseInUseError extends Error {}

/**
 * An embedded database on disk belongs to one process: a second one (a server, `npm run users`) would
 * corrupt it. The lock file holds the owner's pid; a lock whose process is gone is taken over.
 */
async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  await mkdir(dataDir, { recursive: true });
  const lockFile = join(dataDir, 'museum.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await writeFile(lockFile, String(process.pid), { flag: 'wx' });
      return () => rm(lockFile, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number(await readFile(lockFile, 'utf8').catch(() => ''));
      if (owner && owner !== process.pid && isAlive(owner)) {
        throw new DatabaseInUseError(
          `The embedded database in ${dataDir} is in use by process ${owner}; stop that process first`,
        );
      }
      await rm(lockFile, { force: true });
    }
  }
  throw new DatabaseInUseError(`Could not lock the embedded database in ${dataDir}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
