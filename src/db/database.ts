import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { DeadlockException } from '@mikro-orm/core';
import type { EntityManager, PostgreSqlConnection } from '@mikro-orm/postgresql';
import { MikroORM } from '@mikro-orm/postgresql';
import { type Connection, ormConfig } from '../../mikro-orm.config.ts';
import type { Config } from '../config.ts';
import { createSql, type Sql } from './sql.ts';

export interface Database {
  kind: Config['database']['kind'];
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
  if (database.kind === 'postgres') {
    const orm = await initOrm({ url: database.url });
    const sql = await sqlOver(orm);
    return {
      kind: 'postgres',
      orm,
      fork: () => orm.em.fork(),
      sql,
      async close() {
        await sql.stopListening();
        await orm.close(true);
      },
    };
  }

  // Loaded only for the embedded database: a server on PostgreSQL never pays for PGlite's modules.
  const [{ PGlite }, { PGLiteSocketServer }] = await Promise.all([
    import('@electric-sql/pglite'),
    import('@electric-sql/pglite-socket'),
  ]);
  const releaseLock = database.dataDir ? await lockDataDir(resolve(database.dataDir)) : async () => {};
  let pglite: PGlite;
  try {
    pglite = await PGlite.create(database.dataDir ? resolve(database.dataDir) : undefined);
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

async function sqlOver(orm: MikroORM): Promise<Sql> {
  const pool = await (orm.em.getConnection() as PostgreSqlConnection).getNativeClient();
  return createSql(pool, (error) => orm.em.getDriver().convertException(error));
}

export class DatabaseInUseError extends Error {}

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
  const run = async () => {
    const applied = (await db.orm.migrator.up()).map((migration) => migration.name);
    if (afterMigrate) await db.fork().transactional((em) => afterMigrate(em, applied));
    return applied;
  };
  if (db.kind === 'embedded') return run();
  return db.fork().transactional(async (em) => {
    await em.execute('select pg_advisory_xact_lock(?)', [MIGRATION_LOCK]);
    return run();
  });
}
