// `npm run db:migrate`: applies pending migrations to the configured database and exits.
// (The server also does this at start-up; this is for deploy pipelines that migrate first.)
import { ConfigError, loadConfig } from '../config.ts';
import { migrate, openDatabase } from '../db/database.ts';

try {
  const config = loadConfig();
  const db = await openDatabase(config.database);
  try {
    const applied = await migrate(db);
    console.log(applied.length > 0 ? `applied: ${applied.join(', ')}` : 'the database is up to date');
  } finally {
    await db.close();
  }
} catch (error) {
  console.error(
    error instanceof ConfigError ? error.message : `migration failed: ${(error as Error).message}`,
  );
  process.exit(1);
}
