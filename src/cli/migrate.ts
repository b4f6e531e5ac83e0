// `npm run db:migrate`: applies pending migrations to the configured database and exits; nothing else
// (accounts and demo data are the server's start-up work). The server also migrates at start-up; this is
// for deploy pipelines that migrate first.
import { loadConfig } from '../config.ts';
import { openDatabase } from '../db/database.ts';
import { migrate } from '../db/migrate.ts';
import { runCli, UsageError } from './cli.ts';

const USAGE = `usage: npm run db:migrate
Applies pending migrations to the database that DATABASE_URL names (default: the embedded database in
MUSEUM_DATA_DIR) and exits. Run it while the server is stopped when the database is the embedded one.`;

await runCli('db:migrate', USAGE, async (args) => {
  if (args.length > 0) throw new UsageError(`unexpected argument "${args[0]}"`);
  const config = loadConfig();
  const db = await openDatabase(config.database);
  try {
    const applied = await migrate(db);
    console.log(
      applied.length > 0
        ? `applied ${applied.length} migration(s): ${applied.join(', ')}`
        : 'the database is up to date',
    );
  } finally {
    await db.close();
  }
});
