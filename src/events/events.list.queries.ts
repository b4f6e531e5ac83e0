import { statement } from '../db/sql.ts';
import type { EventView } from './events.service.ts';

// The events' lists and the graph's batched reads: the columns they share, one statement for each shape of
// page (event-list.ts), each direction of a window (event-connection.ts), and the batches (event-loads.ts).

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

// How many events have a date in the range, each counted at its first date inside it (its previous date
// lies before the range), from the counters the triggers keep: no walk over the range's rows.
export const TOTAL_OF_RANGE = `
  select coalesce(sum(row_count), 0)::int as total from special_event_date_count
  where date between $1::date and $2::date and previous_date < $1::date`;

export const EVENT_TOTAL = statement<{ total: number }, [startDate: string, endDate: string]>(
  'event_total',
  TOTAL_OF_RANGE,
  { mayBeStale: true },
);

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
export const eventPage = ({ availability, total }: PageReading) => {
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

export const eventWindow = (backwards: boolean) => {
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

export const EVENTS_BY_ID = statement<EventRow, [eventIds: string[]]>(
  'events_by_id',
  `select ${EVENT_COLUMNS('e')} from special_event e where e.id = any($1::uuid[]) and e.deleted_at is null`,
  { mayBeStale: true },
);

// The events of each day of $1, at most $2 a day, by name then eventId (special_event_date_listing_idx): one
// row an event, its day first.
export const EVENTS_ON_DAYS = statement<EventRow & { day: string }, [dates: string[], limit: number]>(
  'events_on_days',
  `select to_char(days.day, 'YYYY-MM-DD') as day, ${EVENT_COLUMNS('e')}
   from unnest($1::date[]) as days(day)
   cross join lateral (
     select d.event_id, d.name from special_event_date d
     where d.listed and d.date = days.day
     order by d.name, d.event_id
     limit $2::int
   ) p
   join special_event e on e.id = p.event_id and e.deleted_at is null
   order by days.day, p.name, p.event_id`,
  { mayBeStale: true },
);

// Rows rather than JSON: building a JSON object per date cost PostgreSQL more than the rest of the statement
// (1 ms → 0.2 ms for 30 events, EXPLAIN ANALYZE). An unlimited event has nothing left to count.
export const AVAILABILITY = statement<EventDateAvailability, [eventIds: string[]]>(
  'event_availability',
  `select e.id as "eventId", to_char(d.date, 'YYYY-MM-DD') as date, e.capacity,
          case when e.capacity is not null then ${REMAINING('e', 'd.date')} end as remaining
   from special_event e
   join special_event_date d on d.event_id = e.id
   where e.id = any($1::uuid[]) and e.deleted_at is null
   order by d.date`,
  { mayBeStale: true },
);

// Tickets sold and not cancelled per date of each event, counted from the tickets themselves: what staff see.
export const SOLD = statement<{ eventId: string; date: string; sold: number }, [eventIds: string[]]>(
  'event_sold',
  `select t.event_id as "eventId", to_char(t.ticket_date, 'YYYY-MM-DD') as date, count(*)::int as sold
   from ticket t
   where t.event_id = any($1::uuid[]) and t.cancelled_at is null
   group by t.event_id, t.ticket_date`,
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
