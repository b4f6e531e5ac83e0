// The event lists: one page of the events with a date in a range and their total, read as rows
// (EVENT_COLUMNS), with each event's availability when the query asks for it.
import { addDays } from '../common/dates.ts';
import { invalidField } from '../common/errors.ts';
import { offsetOf, type Page } from '../common/pagination.ts';
import { type Queryable, statement } from '../db/sql.ts';
import { DEFAULT_EVENT_RANGE_DAYS } from './events.rules.ts';
import type { EventView } from './events.service.ts';

/**
 * The columns of an event, read from special_event `e`, that eventOfRow makes an EventView of: lists of
 * events are rows, not JSON (json_build_object and json_agg were half of PostgreSQL's time for a page of 30,
 * EXPLAIN ANALYZE). Dates as `YYYY-MM-DD` text, never a JS Date, joined by commas: pg parses a text[] one
 * character at a time in JavaScript (~1 µs an event), a split is native. The numeric price as a float8
 * (30.00 arrives as 30).
 */
export const EVENT_COLUMNS = (e: string) => `${e}.id as "eventId", ${e}.name, ${e}.location,
  ${e}.event_description as "eventDescription",
  array_to_string(array(select to_char(x.date, 'YYYY-MM-DD') from special_event_date x
   where x.event_id = ${e}.id order by x.date), ',') as dates,
  ${e}.price::float8 as price, ${e}.capacity, ${e}.version`;

/** A row read with EVENT_COLUMNS. */
export interface EventRow extends Omit<EventView, 'dates'> {
  /** Comma-separated, ascending. */
  dates: string;
}

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

// How many events have a date in the range, each counted at its first date inside it (its previous date
// lies before the range), from the counters the triggers keep: no walk over the range's rows.
export const TOTAL_OF_RANGE = `
  select coalesce(sum(row_count), 0)::int as total from special_event_date_count
  where date between $1::date and $2::date and previous_date < $1::date`;

const EVENT_TOTAL = statement<{ total: number }, [startDate: string, endDate: string]>(
  'event_total',
  TOTAL_OF_RANGE,
  { mayBeStale: true },
);

/** How many tickets one date of an event has left. */
export interface EventDateAvailability {
  eventId: string;
  date: string;
  /** Tickets per event date; null: unlimited. */
  capacity: number | null;
  /** capacity − sold (never below 0); null: unlimited. */
  remaining: number | null;
}

/** An event of a page, with its availability when the query asked for it (read in the same statement). */
export interface ListedEvent extends EventView {
  availability?: EventDateAvailability[];
}

/**
 * What date `date` of event `e` has left under its capacity: the capacity less the ticket_sales counter that
 * purchases and cancellations keep (src/tickets), or, before the first sale under it, less the tickets not
 * cancelled, as a purchase would count them. Only meaningful while `e.capacity` is not null.
 */
export const REMAINING = (e: string, date: string) => `greatest(${e}.capacity - coalesce(
  (select c.sold from ticket_sales c where c.scope = ${e}.id::text and c.date = ${date}),
  (select count(*)::int from ticket t
   where t.event_id = ${e}.id and t.ticket_date = ${date} and t.cancelled_at is null)), 0)`;

interface EventPageRow extends EventRow {
  /** Only when the read asked for the total. */
  total?: number;
  /** Per date, in the order of `dates`, comma-separated; null: unlimited. Only with availability. */
  remaining?: string | null;
}

// One page as rows: special_event_date_listing_idx walked in order up to the page's end, keeping each event's
// first date inside the range, then the page's events. With the total, a page past the end is one row with
// the total and no event; a read that does not need the total leaves it out (it was a quarter of PostgreSQL's
// time for a page of 10, pgbench). With availability, each event also brings what its dates have left, in
// the dates' order: a page with its availability is one round trip.
const eventPage = ({ availability, total }: PageReading) => {
  const availabilityColumn = `,
    case when e.capacity is not null then array_to_string(array(
      select ${REMAINING('e', 'x.date')} from special_event_date x
      where x.event_id = e.id order by x.date), ',') end as remaining`;
  const page = `select d.event_id, d.date, d.name from special_event_date d
       where d.listed and d.date between $1::date and $2::date
         and (d.previous_date is null or d.previous_date < $1::date)
       order by d.date, d.name, d.event_id
       limit $3::int offset $4::bigint`;
  return statement<EventPageRow, [startDate: string, endDate: string, limit: number, offset: number]>(
    `event_page${total ? '' : '_items'}${availability ? '_with_availability' : ''}`,
    total
      ? `select t.total, ${EVENT_COLUMNS('e')}${availability ? availabilityColumn : ''}
   from (${TOTAL_OF_RANGE}) t
   left join lateral (
     select e.*, page.date as page_date, page.name as page_name from (${page}) page
     join special_event e on e.id = page.event_id and e.deleted_at is null
   ) e on true
   order by e.page_date, e.page_name, e.id`
      : `select ${EVENT_COLUMNS('e')}${availability ? availabilityColumn : ''}
   from (${page}) page
   join special_event e on e.id = page.event_id and e.deleted_at is null
   order by page.date, page.name, e.id`,
    { mayBeStale: true },
  );
};

/** What a read of a page brings besides its events. */
export interface PageReading {
  /** Each event's availability. */
  availability: boolean;
  /** How many events the range has over all pages. */
  total: boolean;
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
