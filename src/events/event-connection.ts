// The events of a range as a keyset connection (specialEventsConnection): the rows after or before a cursor's
// (first date in the range, name, eventId), in specialEvents' order, read with the range's total in one
// statement. special_event_date_listing_idx is walked from the cursor's key, never from the range's start.
import { z } from 'zod';
import type { CursorKey, Keyed, KeysetPage, KeysetWindow } from '../common/cursors.ts';
import type { Queryable } from '../db/sql.ts';
import { type DateRange, eventOfRow } from './event-list.ts';
import { eventWindow } from './events.list.queries.ts';
import type { EventView } from './events.service.ts';

/** An event's place in a range's list: its first date in the range, its name, its eventId. */
export type EventKey = readonly [date: string, name: string, eventId: string];

export const eventKeySchema: z.ZodType<EventKey> = z.tuple([z.iso.date(), z.string().max(200), z.guid()]);

/** The list and range an event cursor belongs to. */
export const eventRangeScope = (range: DateRange) => `specialEvents/${range.startDate}/${range.endDate}`;

// Keys before and after every row of any range: where a window without `after` or `before` is bounded.
const NIL_UUID = '00000000-0000-0000-0000-000000000000';
const BEFORE_ALL: EventKey = ['-infinity', '', NIL_UUID];
const AFTER_ALL: EventKey = ['infinity', '', NIL_UUID];

const FORWARDS = eventWindow(false);
const BACKWARDS = eventWindow(true);

/** The events of `range` in `window`, in the window's reading order, and how many the range has. */
export async function readEventWindow(
  sql: Queryable,
  range: DateRange,
  window: KeysetWindow<EventKey>,
): Promise<KeysetPage<EventView>> {
  const rows = await sql.query(window.backwards ? BACKWARDS : FORWARDS, [
    range.startDate,
    range.endDate,
    ...(window.after ?? BEFORE_ALL),
    ...(window.before ?? AFTER_ALL),
    window.limit,
  ]);
  const keyed: Keyed<EventView>[] = [];
  for (const row of rows) {
    if (row.eventId === null) continue;
    const key: CursorKey = [row.keyDate, row.keyName, row.eventId];
    keyed.push({ node: eventOfRow(row), key });
  }
  return { rows: keyed, total: rows[0]?.total ?? 0 };
}
