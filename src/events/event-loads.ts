// What the graph's edges read of events, batched per request (src/graphql/batch.ts): every event a level of a
// query needs, whatever the size of the page above it, comes in one statement.
import { type Queryable, statement } from '../db/sql.ts';
import { loadBatched } from '../graphql/batch.ts';
import { EVENT_JSON, type EventView } from './events.service.ts';

const EVENTS_BY_ID = statement(
  'events_by_id',
  `select e.id, ${EVENT_JSON('e')} as event from special_event e
   where e.id = any($1::uuid[]) and e.deleted_at is null`,
  { mayBeStale: true },
);

/** A listed (not deleted) event, or null; read with every other event the same level of the query asks for. */
export async function loadEvent(
  sql: Queryable,
  shared: Map<string, unknown>,
  eventId: string,
): Promise<EventView | null> {
  const event = await loadBatched(shared, 'events.byId', eventId, async (ids) => {
    const rows = await sql.query<{ id: string; event: EventView }>(EVENTS_BY_ID, [ids]);
    return new Map(rows.map((row) => [row.id, row.event]));
  });
  return event ?? null;
}

// The events of each day of $1, at most $2 a day, by name then eventId (special_event_date_listing_idx).
const EVENTS_ON_DAYS = statement(
  'events_on_days',
  `select to_char(days.day, 'YYYY-MM-DD') as date,
          coalesce((
            select json_agg(${EVENT_JSON('e')} order by p.name, p.event_id)
            from (
              select d.event_id, d.name from special_event_date d
              where d.listed and d.date = days.day
              order by d.name, d.event_id
              limit $2::int
            ) p
            join special_event e on e.id = p.event_id and e.deleted_at is null
          ), '[]') as events
   from unnest($1::date[]) as days(day)`,
  { mayBeStale: true },
);

/** The events that run on `date`, at most `limit`, ordered by name then eventId. */
export async function loadEventsOn(
  sql: Queryable,
  shared: Map<string, unknown>,
  date: string,
  limit: number,
): Promise<EventView[]> {
  const events = await loadBatched(shared, `events.onDay/${limit}`, date, async (dates) => {
    const rows = await sql.query<{ date: string; events: EventView[] }>(EVENTS_ON_DAYS, [dates, limit]);
    return new Map(rows.map((row) => [row.date, row.events]));
  });
  return events ?? [];
}

/** How many tickets one date of an event has left. */
export interface EventDateAvailability {
  date: string;
  /** Tickets per event date; null: unlimited. */
  capacity: number | null;
  /** capacity − sold (never below 0); null: unlimited. */
  remaining: number | null;
  /** Tickets sold and not cancelled (staff only). */
  sold: number;
}

// Sold: while a capacity applies, the ticket_sales counter that purchases and cancellations keep (src/tickets),
// or, before the first sale under it, the tickets not cancelled, as a purchase would count them; without a
// capacity there is no counter, and the tickets are counted.
const AVAILABILITY = statement(
  'event_availability',
  `select e.id as "eventId",
          json_agg(json_build_object(
            'date', to_char(d.date, 'YYYY-MM-DD'), 'capacity', e.capacity, 'sold', s.sold,
            'remaining', case when e.capacity is null then null else greatest(e.capacity - s.sold, 0) end
          ) order by d.date) as dates
   from special_event e
   join special_event_date d on d.event_id = e.id
   cross join lateral (
     select coalesce(
       case when e.capacity is not null then
         (select c.sold from ticket_sales c where c.scope = e.id::text and c.date = d.date) end,
       (select count(*)::int from ticket t
        where t.event_id = e.id and t.ticket_date = d.date and t.cancelled_at is null)) as sold
   ) s
   where e.id = any($1::uuid[]) and e.deleted_at is null
   group by e.id`,
  { mayBeStale: true },
);

/** Each date of an event with the tickets it has left, ascending. */
export async function loadAvailability(
  sql: Queryable,
  shared: Map<string, unknown>,
  eventId: string,
): Promise<EventDateAvailability[]> {
  const dates = await loadBatched(shared, 'events.availability', eventId, async (ids) => {
    const rows = await sql.query<{ eventId: string; dates: EventDateAvailability[] }>(AVAILABILITY, [ids]);
    return new Map(rows.map((row) => [row.eventId, row.dates]));
  });
  return dates ?? [];
}
