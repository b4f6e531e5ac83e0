// The event lists: one page of the events with a date in a range and their total, read as rows
// (EVENT_COLUMNS), with each event's availability when the query asks for it.
import { addDays } from '../common/dates.ts';
import { invalidField } from '../common/errors.ts';
import { offsetOf, type Page } from '../common/pagination.ts';
import type { Queryable } from '../db/sql.ts';
import {
  EVENT_TOTAL,
  type EventDateAvailability,
  type EventRow,
  eventPage,
  type PageReading,
} from './events.list.queries.ts';
import { DEFAULT_EVENT_RANGE_DAYS } from './events.rules.ts';
import type { EventView } from './events.service.ts';

export const eventOfRow = (row: EventRow): EventView => ({
  eventId: row.eventId,
  name: row.name,
  location: row.location,
  eventDescription: row.eventDescription,
  dates: row.dates.split(','),
  price: row.price,
  capacity: row.capacity,
  version: row.version,
});

export interface DateRange {
  startDate: string;
  endDate: string;
}

/** The range an event list asks for; each end may be left out. */
export interface RangeArgs {
  startDate?: string | null;
  endDate?: string | null;
}

/** The range a list covers: startDate defaults to today, endDate to a week after startDate. */
export function resolveRange(today: string, { startDate, endDate }: RangeArgs): DateRange {
  const start = startDate ?? today;
  const end = endDate ?? addDays(start, DEFAULT_EVENT_RANGE_DAYS);
  if (end < start) throw invalidField('endDate', `must not be before startDate (${start})`);
  return { startDate: start, endDate: end };
}

/** An event of a page, with its availability when the query asked for it (read in the same statement). */
export interface ListedEvent extends EventView {
  availability?: EventDateAvailability[];
}

// By [total][availability].
const PAGE_STATEMENTS = [false, true].map((total) =>
  [false, true].map((availability) => eventPage({ availability, total })),
);
const pageStatement = ({ availability, total }: PageReading) => PAGE_STATEMENTS[+total]![+availability]!;

/** How many events have a date in the range. */
async function countEvents(sql: Queryable, range: DateRange): Promise<number> {
  const [row] = await sql.query(EVENT_TOTAL, [range.startDate, range.endDate]);
  return row?.total ?? 0;
}

/** A page of events, and their total when the reading asks for it (else null). */
export interface PageRead {
  items: ListedEvent[];
  total: number | null;
}

/** Events with a date in the range, ordered by their first date in it, then name, then id. */
async function readEventPage(
  sql: Queryable,
  range: DateRange,
  page: Page,
  reading: PageReading,
): Promise<PageRead> {
  const rows = await sql.query(pageStatement(reading), [
    range.startDate,
    range.endDate,
    page.limit,
    offsetOf(page),
  ]);
  const items: ListedEvent[] = [];
  for (const row of rows) {
    if (row.eventId === null) continue;
    const event: ListedEvent = eventOfRow(row);
    if (reading.availability) {
      const remaining = row.remaining?.split(',') ?? null;
      event.availability = event.dates.map((date, index) => ({
        eventId: event.eventId,
        date,
        capacity: event.capacity,
        remaining: remaining ? Number(remaining[index]) : null,
      }));
    }
    items.push(event);
  }
  return { items, total: reading.total ? (rows[0]?.total ?? 0) : null };
}

// The pages one request asked for, in what its reads share (`RequestContext.shared`). A page read with its
// range's total also answers a count of the same range asked beside it (the REST list asks for both).
const PAGES = 'events.pages';
const pagesOf = (shared: Map<string, unknown>) => {
  const pages = (shared.get(PAGES) as Map<string, Promise<PageRead>> | undefined) ?? new Map();
  shared.set(PAGES, pages);
  return pages;
};

const rangeKey = (range: DateRange) => `${range.startDate}/${range.endDate}`;
const WITH_TOTAL = '/total';

/**
 * One page of the events with a date in the range `args` ask for (startDate defaults to `today`, endDate to a
 * week after startDate), read once per request (`shared`) however often it is asked for; with the range's
 * total when `reading.total` (else null), and each event's availability when `reading.availability`, both
 * read in the same statement.
 */
export function listEvents(
  sql: Queryable,
  shared: Map<string, unknown>,
  today: string,
  args: RangeArgs,
  page: Page,
  reading: PageReading,
): Promise<PageRead> {
  const range = resolveRange(today, args);
  const pages = pagesOf(shared);
  const key = `${rangeKey(range)}/${page.page}/${page.limit}${reading.availability ? '/availability' : ''}${reading.total ? WITH_TOTAL : ''}`;
  const loaded = pages.get(key) ?? readEventPage(sql, range, page, reading);
  pages.set(key, loaded);
  return loaded;
}

/** How many events listEvents lists over all its pages for the range `args` ask for. */
export async function countEventsInRange(
  sql: Queryable,
  shared: Map<string, unknown>,
  today: string,
  args: RangeArgs,
): Promise<number> {
  const range = resolveRange(today, args);
  // Sibling fields have all started once the current microtasks have run.
  await new Promise<void>((resolve) => process.nextTick(resolve));
  const prefix = `${rangeKey(range)}/`;
  for (const [key, loaded] of pagesOf(shared)) {
    if (key.startsWith(prefix) && key.endsWith(WITH_TOTAL)) return (await loaded).total ?? 0;
  }
  return countEvents(sql, range);
}
