import type { Queryable } from '../db/sql.ts';
import { SALES, type SalesRow } from './reports.queries.ts';
import type { SalesReportArgs } from './sales.rules.ts';

/** What was sold per visit date, ticket type, event and category in [startDate, endDate]: general first. */
export async function salesReport(sql: Queryable, range: SalesReportArgs): Promise<SalesRow[]> {
  const rows = await sql.query(SALES, [range.startDate, range.endDate]);
  return rows.map((row) => ({ ...row, revenue: Number(row.revenue) }));
}
