// What the graph's edges read of events, batched per request (src/common/batch.ts, by dataloader): every
// event a level of a query needs, whatever the size of the page above it, comes in one statement.

import { loadBatched } from '../common/batch.ts';
import type { Queryable } from '../db/sql.ts';
import { eventOfRow } from './event-list.ts';
import {
  AVAILABILITY,
  EVENTS_BY_ID,
  EVENTS_ON_DAYS,
  type EventDateAvailability,
  SOLD,
} from './events.list.queries.ts';
import type { EventView } from './events.service.ts';

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
