import { statement } from '../db/sql.ts';

// The events' SQL: an event read and written, its dates and what each visitor category pays for it. The lists
// and the graph's batched reads build their statements from the columns they share, one statement for each
// shape of page: events.list.queries.ts.

/** What one category pays for an event, in hundredths of the currency. */
export interface EventPriceView {
  category: string;
  price: number;
}

/** Every category of the list with what it pays for event `e`: its own price for it, or the event's. */
const EVENT_PRICES_COLUMN = (e: string) => `(select json_agg(json_build_object('category', c.category,
    'price', coalesce(p.price, round(${e}.price * 100)::int)) order by c.position)
  from price_category c left join special_event_price p on p.event_id = ${e}.id and p.category = c.category)`;

/**
 * The categories given a price of their own for event `e`, by category (the primary key's order: no sort, no
 * join, as one event's read is a hot path); null when none was.
 */
export const OWN_PRICES_COLUMN = (e: string) => `(select json_agg(json_build_object('category', p.category,
    'price', p.price)) from special_event_price p where p.event_id = ${e}.id)`;

export const EVENT_PRICES = statement<{ eventId: string; prices: EventPriceView[] }, [eventIds: string[]]>(
  'event_prices',
  `select e.id as "eventId", ${EVENT_PRICES_COLUMN('e')} as prices from special_event e where e.id = any($1::uuid[])`,
  { mayBeStale: true },
);

export const OWN_PRICES = statement<
  { eventId: string; prices: EventPriceView[] | null },
  [eventIds: string[]]
>(
  'event_own_prices',
  `select e.id as "eventId", ${OWN_PRICES_COLUMN('e')} as prices from special_event e where e.id = any($1::uuid[])`,
  { mayBeStale: true },
);

// One event as one JSON value built by PostgreSQL (dates as 'YYYY-MM-DD', the numeric price as a JSON
// number: 30.00 parses as the 30 that was sent). For a single row, pg's per-column work (it reads the row's
// description at every execution) costs Node more than JSON.parse of one column; lists of events are rows
// (EVENT_COLUMNS), where json_agg would cost PostgreSQL more.
/** One event as EVENT_BY_ID builds it: what both APIs show (events.service.ts's EventView). */
export interface EventJson {
  eventId: string;
  name: string;
  location: string;
  eventDescription: string;
  dates: string[];
  price: number;
  capacity: number | null;
  version: number;
  ownPrices: EventPriceView[] | null;
}

export const EVENT_BY_ID = statement<{ event: EventJson }, [eventId: string]>(
  'event_by_id',
  `select json_build_object(
     'eventId', e.id, 'name', e.name, 'location', e.location, 'eventDescription', e.event_description,
     'dates', array(select x.date from special_event_date x where x.event_id = e.id order by x.date),
     'price', e.price, 'capacity', e.capacity, 'version', e.version,
     'ownPrices', ${OWN_PRICES_COLUMN('e')}) as event
   from special_event e where e.id = $1::uuid and e.deleted_at is null`,
  { mayBeStale: true },
);

// The dates an event has that `dates` leaves out.
export const DROPPED_DATES = statement<{ gone: string[] }, [eventId: string, dates: string[]]>(
  'event_dropped_dates',
  `select array(select to_char(date, 'YYYY-MM-DD') from special_event_date
                where event_id = $1::uuid and date <> all($2::date[]) order by date) as gone`,
);

/** The listed event, locked for a change (or its deletion), and its version for If-Match. */
export const LOCK_EVENT = statement<{ version: number; name: string }, [eventId: string]>(
  'event_lock',
  'select version, name from special_event where id = $1::uuid and deleted_at is null for update',
);

export const INSERT_EVENT = statement<
  never,
  [
    id: string,
    name: string,
    location: string,
    eventDescription: string,
    price: string,
    capacity: number | null,
  ]
>(
  'event_insert',
  `insert into special_event (id, name, location, event_description, price, capacity, created_at)
   values ($1::uuid, $2, $3, $4, $5::numeric, $6::int, now())`,
);

// The fields a change leaves null stay; the capacity is set (to $6, null or not) when $7 says so. Every
// change raises the version.
export const UPDATE_EVENT = statement<
  never,
  [
    eventId: string,
    name: string | null,
    location: string | null,
    eventDescription: string | null,
    price: string | null,
    capacity: number | null,
    setCapacity: boolean,
  ]
>(
  'event_update',
  `update special_event set version = version + 1, name = coalesce($2, name), location = coalesce($3, location),
     event_description = coalesce($4, event_description), price = coalesce($5::numeric, price),
     capacity = case when $7::boolean then $6::int else capacity end
   where id = $1::uuid`,
);

export const DELETE_EVENT = statement<never, [eventId: string]>(
  'event_delete',
  'update special_event set deleted_at = now() where id = $1::uuid',
);

// An event's dates, ascending, each with the event's name and the event's date before it.
export const INSERT_DATES = statement<never, [eventId: string, name: string, dates: string[]]>(
  'event_insert_dates',
  `insert into special_event_date (event_id, date, name, previous_date, listed)
   select $1::uuid, d.date, $2, lag(d.date) over (order by d.date), true
   from unnest($3::date[]) as d(date) order by d.date`,
);

export const DELETE_DATES = statement<never, [eventId: string]>(
  'event_delete_dates',
  'delete from special_event_date where event_id = $1::uuid',
);

export const RENAME_DATES = statement<never, [eventId: string, name: string]>(
  'event_rename_dates',
  'update special_event_date set name = $2 where event_id = $1::uuid',
);

// A deleted event's dates leave the listing index.
export const UNLIST_DATES = statement<never, [eventId: string]>(
  'event_unlist_dates',
  'update special_event_date set listed = false where event_id = $1::uuid',
);

// The categories of the price list, locked shared: a price list that would remove one of them waits for this
// change, or this change for it.
export const SHARE_CATEGORIES = statement<{ category: string }>(
  'event_share_categories',
  'select category from price_category order by position asc for share',
);

export const INSERT_PRICES = statement<never, [eventId: string, categories: string[], prices: number[]]>(
  'event_insert_prices',
  `insert into special_event_price (event_id, category, price)
   select $1::uuid, p.category, p.price from unnest($2::text[], $3::int[]) as p(category, price)`,
);

export const DELETE_PRICES = statement<never, [eventId: string]>(
  'event_delete_prices',
  'delete from special_event_price where event_id = $1::uuid',
);

// An event's sales counters, recounted from its tickets (a capacity set): the busiest date, its tickets sold
// and not cancelled. $2 is the event's id as the counters' scope.
export const FORGET_EVENT_SALES = statement<never, [scope: string]>(
  'event_forget_sales',
  'delete from ticket_sales where scope = $1',
);

export const RECOUNT_EVENT_SALES = statement<
  { date: string; sold: number },
  [eventId: string, scope: string]
>(
  'event_recount_sales',
  `with sold as (
     select ticket_date as date, count(*)::int as sold from ticket
     where event_id = $1::uuid and cancelled_at is null group by ticket_date),
   recounted as (
     insert into ticket_sales (scope, date, sold) select $2, date, sold from sold
     on conflict (scope, date) do update set sold = excluded.sold)
   select date, sold from sold order by sold desc limit 1`,
);
