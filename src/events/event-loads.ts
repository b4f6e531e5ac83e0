// What the graph's edges read of events, batched per request (src/common/batch.ts, by dataloader): every
// event a level of a query needs, whatever the size of the page above it, comes in one statement.

import { loadBatched } from '../common/batch.ts';
import { type Queryable, statement } from '../db/sql.ts';
import {
  EVENT_COLUMNS,
  type EventDateAvailability,
  type EventRow,
  eventOfRow,
  REMAINING,
} from './event-list.ts';
import type { EventView } from './events.service.ts';

const EVENTS_BY_ID = statement<EventRow, [eventIds: string[]]>(
  'events_by_id',
  `select ${EVENT_COLUMNS('e')} from special_event e where e.id = any($1::uuid[]) and e.deleted_at is null`,
  { mayBeStale: true },
);

/** A listed (not deleted) event, or null; read with every other event the same level of the query asks for. */
export async function loadEvent(
  sql: Queryable,
  shared: Map<string, unknown>,
  eventId: string,
): Promise<EventView | null> {
  const event = await loadBatched(shared, 'events.byId', eventId, async (ids) => {
    const rows = await sql.query(EVENTS_BY_ID, [ids]);
    return new Map(rows.map((row) => [row.eventId, eventOfRow(row)]));
  });
  return event ?? null;
}

// The events of each day of $1, at most $2 a day, by name then eventId (special_event_date_listing_idx): one
// row an event, its day first.
const EVENTS_ON_DAYS = statement<EventRow & { day: string }, [dates: string[], limit: number]>(
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

/** The events that run on `date`, at most `limit`, ordered by name then eventId. */
export async function loadEventsOn(
  sql: Queryable,
  shared: Map<string, unknown>,
  date: string,
  limit: number,
): Promise<EventView[]> {
  const events = await loadBatched(shared, `events.onDay/${limit}`, date, async (dates) => {
    const rows = await sql.query(EVENTS_ON_DAYS, [dates, limit]);
    return groupBy(rows, (row) => row.day, eventOfRow);
  });
  return events ?? [];
}

// Rows rather than JSON: building a JSON object per date cost PostgreSQL more than the rest of the statement
// (1 ms → 0.2 ms for 30 events, EXPLAIN ANALYZE). An unlimited event has nothing left to count.
const AVAILABILITY = statement<EventDateAvailability, [eventIds: string[]]>(
  'event_availability',
  `select e.id as "eventId", to_char(d.date, 'YYYY-MM-DD') as date, e.capacity,
          case when e.capacity is not null then ${REMAINING('e', 'd.date')} end as remaining
   from special_event e
   join special_event_date d on d.event_id = e.id
   where e.id = any($1::uuid[]) and e.deleted_at is null
   order by d.date`,
  { mayBeStale: true },
);

/** Each date of an event with the tickets it has left, ascending. */
export async function loadAvailability(
  sql: Queryable,
  shared: Map<string, unknown>,
  eventId: string,
): Promise<EventDateAvailability[]> {
  const dates = await loadBatched(shared, 'events.availability', eventId, async (ids) => {
    const rows = await sql.query(AVAILABILITY, [ids]);
    return groupBy(rows, (row) => row.eventId);
  });
  return dates ?? [];
}

// Tickets sold and not cancelled per date of each event, counted from the tickets themselves: what staff see.
const SOLD = statement<{ eventId: string; date: string; sold: number }, [eventIds: string[]]>(
  'event_sold',
  `select t.event_id as "eventId", to_char(t.ticket_date, 'YYYY-MM-DD') as date, count(*)::int as sold
   from ticket t
   where t.event_id = any($1::uuid[]) and t.cancelled_at is null
   group by t.event_id, t.ticket_date`,
  { mayBeStale: true },
);

/** Tickets sold (and not cancelled) for one date of an event: read with every other event the level asks for. */
export async function loadSold(
  sql: Queryable,
  shared: Map<string, unknown>,
  eventId: string,
  date: string,
): Promise<number> {
  const sold = await loadBatched(shared, 'events.sold', eventId, async (ids) => {
    const rows = await sql.query(SOLD, [ids]);
    const byEvent = new Map<string, Map<string, number>>();
    for (const row of rows) {
      const dates = byEvent.get(row.eventId) ?? new Map<string, number>();
      byEvent.set(row.eventId, dates.set(row.date, row.sold));
    }
    return byEvent;
  });
  return sold?.get(date) ?? 0;
}

function groupBy<T, V = T>(
  rows: T[],
  keyOf: (row: T) => string,
  itemOf: (row: T) => V = (row) => row as unknown as V,
): Map<string, V[]> {
  const groups = new Map<string, V[]>();
  for (const row of rows) {
    const key = keyOf(row);
    const group = groups.get(key);
    if (group) group.push(itemOf(row));
    else groups.set(key, [itemOf(row)]);
  }
  return groups;
}
