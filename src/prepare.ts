import { bootstrapAdmin } from './accounts/accounts.service.ts';
import { museumClock } from './common/dates.ts';
import type { Config } from './config.ts';
import type { Database } from './db/database.ts';
import { migrate } from './db/migrate.ts';
import { seedDemoEvents } from './events/demo-events.ts';
import type { Logger } from './logger.ts';
import { GENERAL_ADMISSION } from './tickets/ticket-sales.entity.ts';
import { FORGET_SALES } from './tickets/tickets.queries.ts';

const INITIAL_MIGRATION = 'Migration20261122000000';

/**
 * Migrations, then the start-up data in the same turn: the configured (or a generated) admin, and on a
 * fresh embedded default database the demo events. The server and the command-line tools share it.
 */
export async function prepareDatabase(
  db: Database,
  config: Config,
  logger: Logger,
  announce?: (line: string) => void,
): Promise<void> {
  const applied = await migrate(db, async (tx, appliedNow) => {
    await bootstrapAdmin(tx, config.admin, logger, announce);
    const freshDatabase = appliedNow.includes(INITIAL_MIGRATION);
    if (freshDatabase && config.seedDemoEvents)
      await seedDemoEvents(tx, museumClock(config.timeZone).today());
    // Without a daily capacity, general sales are not counted; counts left from an earlier capacity
    // would be short the day one is set again. Dropped, they are recounted from the tickets when needed.
    if (config.dailyCapacity === null) await tx.query(FORGET_SALES, [GENERAL_ADMISSION]);
  });
  if (applied.length > 0) logger.info('applied migrations', { migrations: applied });
}
