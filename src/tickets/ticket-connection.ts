// An account's own tickets as a keyset connection (myTicketsConnection): the rows after or before a cursor's
// (ticket date, purchase time, ticketId), in myTickets' order, read with the range's total in one statement.
import { z } from 'zod';
import type { CursorKey, Keyed, KeysetPage, KeysetWindow } from '../common/cursors.ts';
import { type Queryable, rfc3339Micros, statement } from '../db/sql.ts';
import { checkTicketRange, type TicketRange } from './ticket-loads.ts';
import { TICKET_VIEW_COLUMNS, type TicketView, toTicketView } from './ticket-view.ts';

/** A ticket's place in its owner's list: its date, when it was bought (to the microsecond), its ticketId. */
export type TicketKey = readonly [ticketDate: string, createdAt: string, ticketId: string];

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

const IN_RANGE = `t.account_id = $1::uuid
  and ($2::date is null or t.ticket_date >= $2::date) and ($3::date is null or t.ticket_date <= $3::date)`;

interface TicketWindowRow extends Omit<TicketView, 'message'> {
  total: number;
  keyDate: string;
  keyCreatedAt: string;
}

/** The owner, the range's ends (null: open), the keys the window lies after and before, and its size. */
type TicketWindowParams = [
  accountId: string,
  startDate: string | null,
  endDate: string | null,
  ...after: TicketKey,
  ...before: TicketKey,
  limit: number,
];

// A window past the end is one row with the total and no ticket.
const ticketWindow = (backwards: boolean) => {
  const order = backwards ? 'desc' : 'asc';
  return statement<TicketWindowRow, TicketWindowParams>(
    `ticket_window_${backwards ? 'backwards' : 'forwards'}`,
    `select n.total, page.* from (select count(*)::int as total from ticket t where ${IN_RANGE}) n
     left join lateral (
       select ${TICKET_VIEW_COLUMNS}, to_char(t.ticket_date, 'YYYY-MM-DD') as "keyDate",
         ${rfc3339Micros('t.created_at')} as "keyCreatedAt"
       from ticket t left join special_event e on e.id = t.event_id
       where ${IN_RANGE}
         and (t.ticket_date, t.created_at, t.id) > ($4::date, $5::timestamptz, $6::uuid)
         and (t.ticket_date, t.created_at, t.id) < ($7::date, $8::timestamptz, $9::uuid)
       order by t.ticket_date ${order}, t.created_at ${order}, t.id ${order}
       limit $10::int
     ) page on true
     order by page."keyDate" ${order}, page."keyCreatedAt" ${order}, page."ticketId" ${order}`,
    { mayBeStale: true },
  );
};

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
