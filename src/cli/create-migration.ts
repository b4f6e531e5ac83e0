// Writes a migration for whatever the entities declare beyond the existing migrations:
// `npm run db:migration:create`. Review the file before committing it.
import { migrate, openDatabase } from '../db/database.ts';

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
