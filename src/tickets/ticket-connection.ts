// An account's own tickets as a keyset connection (myTicketsConnection): the rows after or before a cursor's
// (ticket date, purchase time, ticketId), in myTickets' order, read with the range's total in one statement.
import { z } from 'zod';
import type { CursorKey, Keyed, KeysetPage, KeysetWindow } from '../common/cursors.ts';
import type { Queryable } from '../db/sql.ts';
import { checkTicketRange, type TicketRange } from './ticket-loads.ts';
import { toTicketView } from './ticket-view.ts';
import { type TicketKey, type TicketView, ticketWindow } from './tickets.views.queries.ts';

export const ticketKeySchema: z.ZodType<TicketKey> = z.tuple([
  z.iso.date(),
  z.iso.datetime({ precision: 6 }),
  z.guid(),
]);

/**
 * The list, owner and range a ticket cursor belongs to: another account's cursor, or one of another range, is
 * refused. An end before the start is refused as myTickets refuses it.
 */
export function ticketRangeScope(accountId: string, range: TicketRange): string {
  checkTicketRange(range);
  return `myTickets/${accountId}/${range.startDate ?? ''}/${range.endDate ?? ''}`;
}

// Keys before and after every ticket: where a window without `after` or `before` is bounded.
const NIL_UUID = '00000000-0000-0000-0000-000000000000';
const BEFORE_ALL: TicketKey = ['-infinity', '-infinity', NIL_UUID];
const AFTER_ALL: TicketKey = ['infinity', 'infinity', NIL_UUID];

const FORWARDS = ticketWindow(false);
const BACKWARDS = ticketWindow(true);

/** The tickets of an account in `range` and `window`, in the window's reading order, and their total. */
export async function readTicketWindow(
  sql: Queryable,
  accountId: string,
  { startDate = null, endDate = null }: TicketRange,
  window: KeysetWindow<TicketKey>,
): Promise<KeysetPage<TicketView>> {
  const rows = await sql.query(window.backwards ? BACKWARDS : FORWARDS, [
    accountId,
    startDate,
    endDate,
    ...(window.after ?? BEFORE_ALL),
    ...(window.before ?? AFTER_ALL),
    window.limit,
  ]);
  const keyed: Keyed<TicketView>[] = [];
  for (const { total: _total, keyDate, keyCreatedAt, ...row } of rows) {
    if (row.ticketId === null) continue;
    const key: CursorKey = [keyDate, keyCreatedAt, row.ticketId];
    keyed.push({ node: toTicketView(row), key });
  }
  return { rows: keyed, total: rows[0]?.total ?? 0 };
}
