import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { DeadlockException } from '@mikro-orm/core';
import type { EntityManager, PostgreSqlConnection } from '@mikro-orm/postgresql';
import { MikroORM } from '@mikro-orm/postgresql';
import { CompiledQuery, type Kysely } from 'kysely';
import pg, { type Pool } from 'pg';
import { type Connection, ormConfig } from '../../mikro-orm.config.ts';
import type { Config, PostgresSettings } from '../config.ts';
import { freshCluster } from './fresh-cluster.ts';
import { createReplicas, type Replicas } from './replicas.ts';
import { createSql, type Queryable, type Sql } from './sql.ts';

export interface Database {
  kind: Config['database']['kind'];
  /** How it is reached, for the start-up line: `embedded`, `direct`, `transaction pooler`, each `+ replicas`. */
  mode: { mode: string; description: string };
  /** The server itself when `orm` reaches it through a transaction pooler: migrations and their lock use it. */
  directUrl: string | null;
  /** Read replicas (DATABASE_READ_URLS), when there are any. */
  replicas?: Replicas;
  orm: MikroORM;
  /** A fresh EntityManager for one unit of work (one request); never share the global one. */
  fork(): EntityManager;
  /** Prepared statements over the ORM's own connection pool, for reads and writes that need no entities. */
  sql: Sql;
  close(): Promise<void>;
}

// Any constant will do: it only has to be the same for every instance migrating the same database.
const MIGRATION_LOCK = 0x6d757365;

/**
 * Opens the configured database: the embedded PGlite (on disk or in memory) behind a private Unix socket,
 * or a PostgreSQL server. Either way MikroORM talks the same wire protocol through the same driver.
 */
export async function openDatabase(database: Config['database']): Promise<Database> {
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
    const orm = await initOrm({ socketDir });
    return {
      kind: 'embedded',
      mode: {
        mode: 'embedded',
        description: `embedded PostgreSQL (PGlite) ${database.dataDir ? `in ${resolve(database.dataDir)}` : 'in memory'}`,
      },
      directUrl: null,
      orm,
      fork: () => orm.em.fork(),
      sql: await sqlOver(orm),
      async close() {
        await orm.close(true);
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

function initOrm(connection: Connection): Promise<MikroORM> {
  return MikroORM.init(ormConfig(connection));
}

const nativePool = (orm: MikroORM): Promise<Pool> =>
  (orm.em.getConnection() as PostgreSqlConnection).getNativeClient();

async function sqlOver(orm: MikroORM): Promise<Sql> {
  return createSql(await nativePool(orm), (error) => orm.em.getDriver().convertException(error));
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
  const orm = await initOrm({ url: database.url, pooler, statementTimeoutMs: database.statementTimeoutMs });
  let replicas: Replicas | undefined;
  try {
    const pool = await nativePool(orm);
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
    const sql = createSql(pool, (error) => orm.em.getDriver().convertException(error), {
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
      directUrl: database.directUrl,
      replicas,
      orm,
      fork: () => orm.em.fork(),
      sql,
      async close() {
        await sql.stopListening();
        await replicas?.close();
        await orm.close(true);
      },
    };
  } catch (error) {
    await replicas?.close();
    await orm.close(true);
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
 * The typed statements of src/db/sql.ts inside a MikroORM transaction, on its connection: for a change that
 * writes entities and rows of the other domains in one transaction (an event's dates dropped, and their
 * tickets called off). Failures are MikroORM's exceptions, as the entities' are, so retryOnDeadlock sees them.
 */
export function statementsIn(tx: EntityManager): Queryable {
  const context = tx.getTransactionContext<Kysely<unknown>>();
  if (!context) throw new Error('statementsIn needs an EntityManager inside a transaction');
  return {
    async query(statement, values) {
      try {
        const result = await context.executeQuery(CompiledQuery.raw(statement.text, [...values]));
        return result.rows as never[];
      } catch (error) {
        throw tx.getDriver().convertException(error as Error);
      }
    },
  };
}

/**
 * Runs a transaction again when PostgreSQL aborted it to break a deadlock (40P01): writers of the shared
 * counter rows can meet in opposite orders, and one of them is chosen to fail. Three tries at most.
 */
export async function retryOnDeadlock<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof DeadlockException) || attempt >= 3) throw error;
    }
  }
}

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

/**
 * Applies pending migrations, then runs `afterMigrate` (the start-up data). Over PostgreSQL an advisory
 * lock, held by a transaction on a connection of its own, makes instances that start together take turns.
 * The embedded database has one connection and one process, so it needs no lock (and could not take one
 * without starving the migrator of its only connection).
 */
export async function migrate(
  db: Database,
  afterMigrate?: (em: EntityManager, applied: string[]) => Promise<void>,
): Promise<string[]> {
  /** In `locked`'s transaction when there is one; else (the embedded database's one connection) in its own. */
  const run = async (orm: MikroORM, locked?: EntityManager) => {
    const migrations = await orm.migrator.up(locked ? { transaction: locked.getTransactionContext() } : {});
    const applied = migrations.map((migration) => migration.name);
    if (afterMigrate)
      await (locked
        ? afterMigrate(locked, applied)
        : orm.em.fork().transactional((em) => afterMigrate(em, applied)));
    return applied;
  };
  if (db.kind === 'embedded') return run(db.orm);
  // The migrations and the start-up data run in the lock's transaction, free of the requests'
  // statement_timeout: rewriting a large table may take longer than any request may.
  const locked = (orm: MikroORM) =>
    orm.em.fork().transactional(async (em) => {
      await em.execute('select pg_advisory_xact_lock(?)', [MIGRATION_LOCK]);
      await em.execute('set local statement_timeout = 0');
      return run(orm, em);
    });
  if (!db.directUrl) return locked(db.orm);
  // Behind a transaction pooler, the migrations and their lock go to the server itself, on an ORM of their
  // own, closed once they are done.
  const direct = await initOrm({ url: db.directUrl, poolSize: 2 });
  try {
    return await locked(direct);
  } finally {
    await direct.close(true);
  }
}
