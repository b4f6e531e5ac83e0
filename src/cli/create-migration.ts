// Writes a migration for whatever the entities declare beyond the existing migrations:
// `npm run db:migration:create`. Review the file before committing it.
import { entities } from '../../mikro-orm.config.ts';
import { openDatabase } from '../db/database.ts';
import { migrate, openMigrator } from '../db/migrate.ts';
import { runCli, UsageError } from './cli.ts';

const USAGE = `usage: npm run db:migration:create
Compares the entities with the migrations (on a scratch in-memory database) and writes a migration for the
difference to src/db/migrations/. Review the file before committing it.`;

await runCli('db:migration:create', USAGE, async (args) => {
  if (args.length > 0) throw new UsageError(`unexpected argument "${args[0]}"`);
  const db = await openDatabase({ kind: 'embedded', dataDir: null });
  try {
    await migrate(db);
    const orm = await openMigrator(db.pool, db.connection, entities);
    try {
      const result = await orm.migrator.create();
      console.log(
        result.fileName ? `wrote src/db/migrations/${result.fileName}` : 'entities and migrations agree',
      );
    } finally {
      await orm.close(true);
    }
  } finally {
    await db.close();
  }
});
