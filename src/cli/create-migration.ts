// Writes a migration for whatever the entities declare beyond the existing migrations:
// `npm run db:migration:create`. Review the file before committing it.
import { migrate, openDatabase } from '../db/database.ts';
import { runCli, UsageError } from './cli.ts';

const USAGE = `usage: npm run db:migration:create
Compares the entities with the migrations (on a scratch in-memory database) and writes a migration for the
difference to src/db/migrations/. Review the file before committing it.`;

await runCli('db:migration:create', USAGE, async (args) => {
  if (args.length > 0) throw new UsageError(`unexpected argument "${args[0]}"`);
  const db = await openDatabase({ kind: 'embedded', dataDir: null });
  try {
    await migrate(db);
    const result = await db.orm.migrator.create();
    console.log(
      result.fileName ? `wrote src/db/migrations/${result.fileName}` : 'entities and migrations agree',
    );
  } finally {
    await db.close();
  }
});
