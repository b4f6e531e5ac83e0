import { join } from 'node:path';
import { type AnyEntity, type EntityClass, type EntitySchema, MikroORM } from '@mikro-orm/core';
import { Migrator } from '@mikro-orm/migrations';
import { defineConfig } from '@mikro-orm/postgresql';
import { CompiledQuery, Kysely, PostgresDialect, type Transaction } from 'kysely';
import type { Pool } from 'pg';
import { type Connection, createPool, databaseNameOf } from './connection.ts';
import type { Database } from './database.ts';
import { type Queryable, toDriverError } from './sql.ts';

// The migrations are MikroORM's (src/db/migrations, written by `npm run db:migration:create` from the
// entities, which mikro-orm.config.ts lists). The running service does not need the entities: it applies the
// migrations with MikroORM's Migrator alone, over the service's own connections, and closes it.

export const migrationsPath = join(import.meta.dirname, 'migrations');

/** How the migrations are found and run, for the service and for mikro-orm.config.ts alike. */
export const migrationOptions = {
  path: migrationsPath,
  glob: '!(*.d).ts',
  emit: 'ts',
  snapshot: false,
  silent: true,
  transactional: true,
  allOrNothing: true,
} as const;

// Any constant will do: it only has to be the same for every instance migrating the same database.
const MIGRATION_LOCK = 0x6d757365;

/**
 * MikroORM with its Migrator over `pool`'s connections (Kysely's dialect over them, handed to MikroORM as
 * its `driverOptions`): the migrations, and `entities` for a tool that compares them with the database
 * (`npm run db:migration:create`, the schema test). Closing it leaves `pool` open.
 */
export function openMigrator(
  pool: Pool,
  connection: Connection,
  entities: (EntityClass<AnyEntity> | EntitySchema)[] = [],
): Promise<MikroORM> {
  return initMigrator(kyselyOver(pool), connection, entities);
}

function initMigrator(
  kysely: Kysely<unknown>,
  connection: Connection,
  entities: (EntityClass<AnyEntity> | EntitySchema)[] = [],
): Promise<MikroORM> {
  return MikroORM.init(
    defineConfig({
      driverOptions: kysely,
      dbName: databaseNameOf(connection),
      entities,
      discovery: { warnWhenNoEntities: false },
      extensions: [Migrator],
      migrations: migrationOptions,
      debug: false,
      allowGlobalContext: false,
    }),
  );
}

/** Kysely over `pool`'s connections; destroying it leaves `pool` open. */
const kyselyOver = (pool: Pool) =>
  new Kysely<unknown>({
    dialect: new PostgresDialect({
      pool: { connect: () => pool.connect(), end: async () => {}, options: pool.options },
    }),
  });

/** The typed statements within the migrations' transaction (Kysely's), failing as src/db/sql.ts's do. */
function statementsOf(trx: Transaction<unknown>): Queryable {
  return {
    async query(statement, values) {
      try {
        const result = await trx.executeQuery(CompiledQuery.raw(statement.text, [...values]));
        return result.rows as never[];
      } catch (error) {
        throw toDriverError(error as Error);
      }
    },
  };
}

/**
 * Applies pending migrations (up to `to`, when named), then runs `afterMigrate` (the start-up data). Over
 * PostgreSQL both run in one transaction, whose advisory lock makes instances that start together take
 * turns, free of the requests' statement_timeout: rewriting a large table may take longer than any request
 * may. The embedded database has one connection and one process, so it needs no lock (and could not take
 * one without starving the migrator of its only connection): the migrations run in their own transaction,
 * then the start-up data in another. Behind a transaction pooler, the migrations and their lock go to the server itself,
 * on connections of their own, closed once they are done.
 */
export async function migrate(
  db: Database,
  afterMigrate?: (tx: Queryable, applied: string[]) => Promise<void>,
  options: { to?: string } = {},
): Promise<string[]> {
  const connection: Connection = db.directUrl ? { url: db.directUrl, poolSize: 2 } : db.connection;
  const direct = db.directUrl ? createPool(connection) : undefined;
  const kysely = kyselyOver(direct ?? db.pool);
  const to = options.to ? { to: options.to } : {};
  let orm: MikroORM | undefined;
  try {
    orm = await initMigrator(kysely, connection);
    if (db.kind === 'embedded') {
      // Its one connection: the migrator's own transaction, then the start-up data's.
      const applied = (await orm.migrator.up(to)).map((migration) => migration.name);
      if (afterMigrate) await db.sql.transaction((tx) => afterMigrate(tx, applied));
      return applied;
    }
    // A controlled transaction: MikroORM runs each migration in a savepoint of it.
    const trx = await kysely.startTransaction().execute();
    try {
      await trx.executeQuery(CompiledQuery.raw('select pg_advisory_xact_lock($1)', [MIGRATION_LOCK]));
      await trx.executeQuery(CompiledQuery.raw('set local statement_timeout = 0'));
      const migrations = await orm.migrator.up({ transaction: trx, ...to });
      const applied = migrations.map((migration) => migration.name);
      await afterMigrate?.(statementsOf(trx), applied);
      await trx.commit().execute();
      return applied;
    } catch (error) {
      await trx
        .rollback()
        .execute()
        .catch(() => {});
      throw error;
    }
  } finally {
    await orm?.close(true);
    await direct?.end();
  }
}
