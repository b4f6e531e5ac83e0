import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import type { EntityManager } from '@mikro-orm/postgresql';
import { MikroORM } from '@mikro-orm/postgresql';
import { ormConfig } from '../../mikro-orm.config.ts';
import type { Config } from '../config.ts';

export interface Database {
  kind: Config['database']['kind'];
  orm: MikroORM;
  /** A fresh EntityManager for one unit of work (one request); never share the global one. */
  fork(): EntityManager;
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
    const orm = await MikroORM.init(ormConfig({ url: database.url }));
    return { kind: 'postgres', orm, fork: () => orm.em.fork(), close: () => orm.close(true) };
  }

  if (database.dataDir) await mkdir(database.dataDir, { recursive: true });
  const pglite = await PGlite.create(database.dataDir ? resolve(database.dataDir) : undefined);
  // A folder only this process can read: the socket accepts any client that can reach it.
  const socketDir = await mkdtemp(join(tmpdir(), 'museum-pg-'));
  const server = new PGLiteSocketServer({
    db: pglite,
    path: join(socketDir, '.s.PGSQL.5432'),
    maxConnections: 1,
  });
  await server.start();
  try {
    const orm = await MikroORM.init(ormConfig({ socketDir }));
    return {
      kind: 'embedded',
      orm,
      fork: () => orm.em.fork(),
      async close() {
        await orm.close(true);
        await server.stop();
        await pglite.close();
        await rm(socketDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await server.stop();
    await pglite.close();
    await rm(socketDir, { recursive: true, force: true });
    throw error;
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
