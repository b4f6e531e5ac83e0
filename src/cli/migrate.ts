// `npm run db:migrate`: applies pending migrations to the configured database and exits.
// (The server also does this at start-up; this is for deploy pipelines that migrate first.)

import { prepareDatabase } from '../app.ts';
import { ConfigError, loadConfig } from '../config.ts';
import { openDatabase } from '../db/database.ts';
import { createLogger } from '../logger.ts';

try {
  const config = loadConfig();
  const db = await openDatabase(config.database);
  try {
    await prepareDatabase(db, config, createLogger(config.logLevel));
    console.log('the database is up to date');
  } finally {
    await db.close();
  }
} catch (error) {
  console.error(
    error instanceof ConfigError ? error.message : `migration failed: ${(error as Error).message}`,
  );
  process.exit(1);
}
