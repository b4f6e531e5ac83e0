// The events of a range as a keyset connection (specialEventsConnection): the rows after or before a cursor's
// (first date in the range, name, eventId), in specialEvents' order, read with the range's total in one
// statement. special_event_date_listing_idx is walked from the cursor's key, never from the range's start.
import { z } from 'zod';
import type { CursorKey, Keyed, KeysetPage, KeysetWindow } from '../common/cursors.ts';
import { type Queryable, statement } from '../db/sql.ts';
import { type DateRange, EVENT_COLUMNS, type EventRow, eventOfRow, TOTAL_OF_RANGE } from './event-list.ts';
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

interface EventWindowRow extends EventRow {
  total: number;
  keyDate: string;
  keyName: string;
}

/** The range, the keys the window lies strictly between (an EventKey each), and its size. */
type EventWindowParams = [
  startDate: string,
  endDate: string,
  afterDate: string,
  afterName: string,
  afterEventId: string,
  beforeDate: string,
  beforeName: string,
  beforeEventId: string,
  limit: number,
];

const eventWindow = (backwards: boolean) => {
  const order = backwards ? 'desc' : 'asc';
  const window = `select d.event_id, d.date, d.name from special_event_date d
       where d.listed and d.date between $1::date and $2::date
         and (d.previous_date is null or d.previous_date < $1::date)
         and (d.date, d.name, d.event_id) > ($3::date, $4::text, $5::uuid)
         and (d.date, d.name, d.event_id) < ($6::date, $7::text, $8::uuid)
       order by d.date ${order}, d.name ${order}, d.event_id ${order}
       limit $9::int`;
  // A window past the end is one row with the total and no event, as event_page's.
  return statement<EventWindowRow, EventWindowParams>(
    `event_window_${backwards ? 'backwards' : 'forwards'}`,
    `select t.total, to_char(e.page_date, 'YYYY-MM-DD') as "keyDate", e.page_name as "keyName",
       ${EVENT_COLUMNS('e')}
     from (${TOTAL_OF_RANGE}) t
     left join lateral (
       select e.*, page.date as page_date, page.name as page_name from (${window}) page
       join special_event e on e.id = page.event_id and e.deleted_at is null
     ) e on true
     order by e.page_date ${order}, e.page_name ${order}, e.id ${order}`,
    { mayBeStale: true },
  );
};

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
