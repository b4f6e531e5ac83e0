// What the graph reads of days by date, batched per request (src/common/batch.ts, by dataloader).
import { loadBatched } from '../common/batch.ts';
import type { Queryable } from '../db/sql.ts';
import { OPEN_DAYS } from './hours.queries.ts';
import type { MuseumDay } from './hours.service.ts';

/** The day `date` with its hours, as museumHours lists it, or null when the museum is closed then. */
export async function loadOpenDay(
  sql: Queryable,
  shared: Map<string, unknown>,
  date: string,
): Promise<MuseumDay | null> {
  const day = await loadBatched(shared, 'hours.openDay', date, async (dates) => {
    const rows = await sql.query(OPEN_DAYS, [dates]);
    return new Map(rows.map((row) => [row.date, row]));
  });
  return day ?? null;
}
