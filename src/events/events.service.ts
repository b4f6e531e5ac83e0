import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { addDays } from '../common/dates.ts';
import { ifMatchAllows } from '../common/entity-tags.ts';
import { conflict, invalidField, notFound, preconditionFailed } from '../common/errors.ts';
import { type ListPage, offsetOf, type Page } from '../common/pagination.ts';
import { retryOnDeadlock } from '../db/database.ts';
import { type Queryable, statement } from '../db/sql.ts';
import { queueEventMessages } from '../webhooks/outbox.ts';
import { EventDate, SpecialEvent } from './event.entity.ts';
import { DEFAULT_EVENT_RANGE_DAYS, type EventChanges, type EventFields } from './events.rules.ts';

/** A special event as both APIs show it. */
export interface EventView extends Omit<EventFields, 'capacity'> {
  eventId: string;
  capacity: number | null;
  /** Raised by every change: the event's entity tag is `versionTag(version)`. */
  version: number;
}

function toEventView(event: SpecialEvent): EventView {
  return {
    eventId: event.id,
    name: event.name,
    location: event.location,
    eventDescription: event.eventDescription,
    dates: event.dates.getItems().map((row) => row.date),
    // numeric(9,2) arrives as '30.00'; as a JSON number it is exactly the 30 that was sent.
    price: Number(event.price),
    capacity: event.capacity ?? null,
    version: event.version,
  };
}

/** Date rows of an event, ascending, each pointing at the event's previous date. */
export function dateRows(em: EntityManager, event: SpecialEvent, dates: readonly string[]): EventDate[] {
  const sorted = [...dates].sort();
  return sorted.map((date, index) =>
    em.create(EventDate, {
      event,
      date,
      name: event.name,
      previousDate: sorted[index - 1] ?? null,
      listed: true,
    }),
  );
}

/** Told of each event created or changed once its transaction has committed: the event feed (event-feed.ts). */
export interface CommittedEvents {
  committed(event: EventView): void;
}

/**
 * Creates an event; its webhook messages are queued and its announcement sent as it commits, then `feed` is
 * told.
 */
export async function createEvent(
  em: EntityManager,
  fields: EventFields,
  feed: CommittedEvents,
): Promise<EventView> {
  const created = await retryOnDeadlock(() =>
    em.transactional(async (tx) => {
      const event = tx.create(SpecialEvent, {
        name: fields.name,
        location: fields.location,
        eventDescription: fields.eventDescription,
        price: fields.price.toFixed(2),
        capacity: fields.capacity ?? null,
      });
      event.dates.set(dateRows(tx, event, fields.dates));
      await tx.flush();
      const view = toEventView(event);
      await queueEventMessages(tx, view);
      return view;
    }),
  );
  feed.committed(created);
  return created;
}

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

// One event as one JSON value built by PostgreSQL (dates as 'YYYY-MM-DD', the numeric price as a JSON
// number: 30.00 parses as the 30 that was sent). For a single row, pg's per-column work (it reads the row's
// description at every execution) costs Node more than JSON.parse of one column; lists of events are rows
// (EVENT_COLUMNS), where json_agg would cost PostgreSQL more.
const EVENT_BY_ID = statement(
  'event_by_id',
  `select json_build_object(
     'eventId', e.id, 'name', e.name, 'location', e.location, 'eventDescription', e.event_description,
     'dates', array(select x.date from special_event_date x where x.event_id = e.id order by x.date),
     'price', e.price, 'capacity', e.capacity, 'version', e.version) as event
   from special_event e where e.id = $1::uuid and e.deleted_at is null`,
  { mayBeStale: true },
);

/** A listed (not deleted) event, or null. */
export async function getEvent(sql: Queryable, eventId: string): Promise<EventView | null> {
  const [row] = await sql.query<{ event: EventView }>(EVENT_BY_ID, [eventId]);
  return row?.event ?? null;
}

/**
 * A capacity may not drop below the tickets sold (and not cancelled) for any date. Purchases count their
 * sales only while the event has a capacity, so the counts are taken from the tickets themselves and the
 * counters start from them (a date whose tickets were all cancelled has none left); purchases and
 * cancellations of the event wait on its lock meanwhile, so the counts are exact.
 */
async function checkCapacityCovers(tx: EntityManager, eventId: string, capacity: number): Promise<void> {
  await tx.execute('delete from ticket_sales where scope = ?', [eventId]);
  const [busiest] = await tx.execute<{ date: string; sold: number }[]>(
    `with sold as (
       select ticket_date as date, count(*)::int as sold from ticket
       where event_id = ? and cancelled_at is null group by ticket_date),
     recounted as (
       insert into ticket_sales (scope, date, sold) select ?, date, sold from sold
       on conflict (scope, date) do update set sold = excluded.sold)
     select date, sold from sold order by sold desc limit 1`,
    [eventId, eventId],
  );
  if (busiest && busiest.sold > capacity) {
    throw conflict(
      `capacity ${capacity} is below the ${busiest.sold} tickets already sold for ${busiest.date}`,
    );
  }
}

const noSuchEvent = (eventId: string) => notFound(`There is no special event ${eventId}`);

/** The listed event, locked for the transaction, if `ifMatch` lets a change of it go ahead. */
async function lockForChange(
  tx: EntityManager,
  eventId: string,
  ifMatch: string | null | undefined,
): Promise<SpecialEvent> {
  const event = await tx.findOne(
    SpecialEvent,
    { id: eventId, deletedAt: null },
    { lockMode: LockMode.PESSIMISTIC_WRITE },
  );
  if (!event) throw noSuchEvent(eventId);
  if (!ifMatchAllows(ifMatch, event.version))
    throw preconditionFailed(
      'The event has changed since you read it (its version is not the one in If-Match)',
    );
  return event;
}

/**
 * Changes some fields of a listed event. The event row is locked for the transaction, so concurrent
 * changes (and a concurrent delete) apply one after the other; with `ifMatch`, the change goes ahead only
 * if the event is still at that version, so of two changes made from one read, one wins. The date rows
 * carry a copy of the name and each date's predecessor: a new name is copied to them, new dates replace them all.
 * Once the change has committed, `feed` is told.
 */
export async function updateEvent(
  em: EntityManager,
  eventId: string,
  changes: EventChanges,
  ifMatch: string | null | undefined,
  feed: CommittedEvents,
): Promise<EventView> {
  const changed = await retryOnDeadlock(() =>
    em.transactional(async (tx) => {
      const event = await lockForChange(tx, eventId, ifMatch);
      event.version += 1;
      if (changes.name !== undefined) event.name = changes.name;
      if (changes.location !== undefined) event.location = changes.location;
      if (changes.eventDescription !== undefined) event.eventDescription = changes.eventDescription;
      if (changes.price !== undefined) event.price = changes.price.toFixed(2);
      if (changes.capacity !== undefined) {
        if (changes.capacity !== null) await checkCapacityCovers(tx, eventId, changes.capacity);
        event.capacity = changes.capacity;
      }
      if (changes.dates !== undefined) {
        await tx.nativeDelete(EventDate, { event: eventId });
        dateRows(tx, event, changes.dates);
      } else if (changes.name !== undefined) {
        await tx.nativeUpdate(EventDate, { event: eventId }, { name: changes.name });
      }
      await tx.flush();
      const refreshed = await tx.findOneOrFail(
        SpecialEvent,
        { id: eventId },
        { populate: ['dates'], refresh: true },
      );
      const view = toEventView(refreshed);
      await queueEventMessages(tx, view);
      return view;
    }),
  );
  feed.committed(changed);
  return changed;
}

/**
 * Soft delete: the event keeps its row (its sold tickets point at it and read as cancelled), and its date
 * rows leave the listing index, so the event is gone from every read and can no longer be bought.
 */
export async function deleteEvent(
  em: EntityManager,
  eventId: string,
  ifMatch?: string | null,
): Promise<boolean> {
  return retryOnDeadlock(() =>
    em.transactional(async (tx) => {
      if (ifMatch != null) await lockForChange(tx, eventId, ifMatch);
      // One statement: of two concurrent deletes, the second finds the row already deleted and answers 404.
      const deleted = await tx.nativeUpdate(
        SpecialEvent,
        { id: eventId, deletedAt: null },
        { deletedAt: new Date() },
      );
      if (deleted === 0) throw noSuchEvent(eventId);
      await tx.nativeUpdate(EventDate, { event: eventId }, { listed: false });
      return true;
    }),
  );
}

interface DateRange {
  startDate: string;
  endDate: string;
}

/** The range an event list asks for; each end may be left out. */
export interface RangeArgs {
  startDate?: string | null;
  endDate?: string | null;
}

/** The range a list covers: startDate defaults to today, endDate to a week after startDate. */
function resolveRange(today: string, { startDate, endDate }: RangeArgs): DateRange {
  const start = startDate ?? today;
  const end = endDate ?? addDays(start, DEFAULT_EVENT_RANGE_DAYS);
  if (end < start) throw invalidField('endDate', `must not be before startDate (${start})`);
  return { startDate: start, endDate: end };
}

export type EventPage = ListPage<ListedEvent>;

// How many events have a date in the range, each counted at its first date inside it (its previous date
// lies before the range), from the counters the triggers keep: no walk over the range's rows.
const TOTAL_OF_RANGE = `
  select coalesce(sum(row_count), 0)::int as total from special_event_date_count
  where date between $1::date and $2::date and previous_date < $1::date`;

const EVENT_TOTAL = statement('event_total', TOTAL_OF_RANGE, { mayBeStale: true });

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

// The total, and one page as rows: special_event_date_listing_idx walked in order up to the page's end,
// keeping each event's first date inside the range, then the page's events. A page past the end is one row
// with the total and no event. With availability, each event also brings what its dates have left, in the
// dates' order: a page with its availability is one round trip.
const eventPage = (name: string, availability: boolean) =>
  statement(
    name,
    `select t.total, ${EVENT_COLUMNS('e')}${
      availability
        ? `,
          case when e.capacity is not null then array_to_string(array(
            select ${REMAINING('e', 'x.date')} from special_event_date x
            where x.event_id = e.id order by x.date), ',') end as remaining`
        : ''
    }
   from (${TOTAL_OF_RANGE}) t
   left join lateral (
     select e.*, page.date as page_date, page.name as page_name from (
       select d.event_id, d.date, d.name from special_event_date d
       where d.listed and d.date between $1::date and $2::date
         and (d.previous_date is null or d.previous_date < $1::date)
       order by d.date, d.name, d.event_id
       limit $3::int offset $4::bigint
     ) page
     join special_event e on e.id = page.event_id and e.deleted_at is null
   ) e on true
   order by e.page_date, e.page_name, e.id`,
    { mayBeStale: true },
  );

const EVENT_PAGE = eventPage('event_page', false);
const EVENT_PAGE_WITH_AVAILABILITY = eventPage('event_page_with_availability', true);

interface EventPageRow extends EventRow {
  total: number;
  /** Per date, in the order of `dates`, comma-separated; null: unlimited. Only with availability. */
  remaining?: string | null;
}

/** How many events have a date in the range. */
async function countEvents(sql: Queryable, range: DateRange): Promise<number> {
  const [row] = await sql.query<{ total: number }>(EVENT_TOTAL, [range.startDate, range.endDate]);
  return row?.total ?? 0;
}

/** Events with a date in the range, ordered by their first date in it, then name, then id; and their total. */
async function listEventPage(
  sql: Queryable,
  range: DateRange,
  page: Page,
  availability: boolean,
): Promise<EventPage> {
  const rows = await sql.query<EventPageRow>(availability ? EVENT_PAGE_WITH_AVAILABILITY : EVENT_PAGE, [
    range.startDate,
    range.endDate,
    page.limit,
    offsetOf(page),
  ]);
  const items: ListedEvent[] = [];
  for (const row of rows) {
    if (row.eventId === null) continue;
    const event: ListedEvent = eventOfRow(row);
    if (availability) {
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
  return { items, total: rows[0]?.total ?? 0 };
}

// The pages one request asked for, in what its reads share (`RequestContext.shared`). A page's statement also
// brings its range's total, so a count of the same range asked beside it (the REST list asks for both) takes
// the total from there instead of counting.
const PAGES = 'events.pages';
const pagesOf = (shared: Map<string, unknown>) => {
  const pages = (shared.get(PAGES) as Map<string, Promise<EventPage>> | undefined) ?? new Map();
  shared.set(PAGES, pages);
  return pages;
};

const rangeKey = (range: DateRange) => `${range.startDate}/${range.endDate}`;

/**
 * One page of the events with a date in the range `args` ask for (startDate defaults to `today`, endDate to a
 * week after startDate), and their total; read once per request (`shared`) however often it is asked for.
 * `availability`: each event also brings its availability, read in the same statement.
 */
export function listEvents(
  sql: Queryable,
  shared: Map<string, unknown>,
  today: string,
  args: RangeArgs,
  page: Page,
  availability = false,
): Promise<EventPage> {
  const range = resolveRange(today, args);
  const pages = pagesOf(shared);
  const key = `${rangeKey(range)}/${page.page}/${page.limit}${availability ? '/availability' : ''}`;
  const loaded = pages.get(key) ?? listEventPage(sql, range, page, availability);
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
    if (key.startsWith(prefix)) return (await loaded).total;
  }
  return countEvents(sql, range);
}
