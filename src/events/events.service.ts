import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { addDays } from '../common/dates.ts';
import { conflict, invalidField, notFound } from '../common/errors.ts';
import { offsetOf, type Page } from '../common/pagination.ts';
import { EventDate, SpecialEvent } from './event.entity.ts';
import { DEFAULT_EVENT_RANGE_DAYS, type EventChanges, type EventFields } from './events.rules.ts';

/** A special event as both APIs show it. */
export interface EventView extends Omit<EventFields, 'capacity'> {
  eventId: string;
  capacity: number | null;
}

export function toEventView(event: SpecialEvent): EventView {
  return {
    eventId: event.id,
    name: event.name,
    location: event.location,
    eventDescription: event.eventDescription,
    dates: event.dates.getItems().map((row) => row.date),
    // numeric(9,2) arrives as '30.00'; as a JSON number it is exactly the 30 that was sent.
    price: Number(event.price),
    capacity: event.capacity ?? null,
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

export async function createEvent(em: EntityManager, fields: EventFields): Promise<EventView> {
  return em.transactional(async (tx) => {
    const event = tx.create(SpecialEvent, {
      name: fields.name,
      location: fields.location,
      eventDescription: fields.eventDescription,
      price: fields.price.toFixed(2),
      capacity: fields.capacity ?? null,
    });
    event.dates.set(dateRows(tx, event, fields.dates));
    await tx.flush();
    return toEventView(event);
  });
}

/** A listed (not deleted) event with its dates, or null. */
export async function findEvent(em: EntityManager, eventId: string): Promise<SpecialEvent | null> {
  return em.findOne(SpecialEvent, { id: eventId, deletedAt: null }, { populate: ['dates'] });
}

export async function getEvent(em: EntityManager, eventId: string): Promise<EventView | null> {
  const event = await findEvent(em, eventId);
  return event ? toEventView(event) : null;
}

/** A capacity may not drop below the tickets already sold for any date (purchases wait on the event's lock). */
async function checkCapacityCovers(tx: EntityManager, eventId: string, capacity: number): Promise<void> {
  const [busiest] = await tx.execute<{ date: string; sold: number }[]>(
    'select date, sold from ticket_sales where scope = ? order by sold desc limit 1',
    [eventId],
  );
  if (busiest && busiest.sold > capacity) {
    throw conflict(
      `capacity ${capacity} is below the ${busiest.sold} tickets already sold for ${busiest.date}`,
    );
  }
}

const noSuchEvent = (eventId: string) => notFound(`There is no special event ${eventId}`);

/**
 * Changes some fields of a listed event. The event row is locked for the transaction, so concurrent
 * changes (and a concurrent delete) apply one after the other. The date rows carry a copy of the name and
 * each date's predecessor: a new name is copied to them, new dates replace them all.
 */
export async function updateEvent(
  em: EntityManager,
  eventId: string,
  changes: EventChanges,
): Promise<EventView> {
  return em.transactional(async (tx) => {
    const event = await tx.findOne(
      SpecialEvent,
      { id: eventId, deletedAt: null },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    if (!event) throw noSuchEvent(eventId);
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
    const changed = await tx.findOneOrFail(
      SpecialEvent,
      { id: eventId },
      { populate: ['dates'], refresh: true },
    );
    return toEventView(changed);
  });
}

/**
 * Soft delete: the event keeps its row (its sold tickets point at it and read as cancelled), and its date
 * rows leave the listing index, so the event is gone from every read and can no longer be bought.
 */
export async function deleteEvent(em: EntityManager, eventId: string): Promise<boolean> {
  return em.transactional(async (tx) => {
    // One statement: of two concurrent deletes, the second finds the row already deleted and answers 404.
    const deleted = await tx.nativeUpdate(
      SpecialEvent,
      { id: eventId, deletedAt: null },
      { deletedAt: new Date() },
    );
    if (deleted === 0) throw noSuchEvent(eventId);
    await tx.nativeUpdate(EventDate, { event: eventId }, { listed: false });
    return true;
  });
}

export interface DateRange {
  startDate: string;
  endDate: string;
}

/** The range a list covers: startDate defaults to today, endDate to a week after startDate. */
export function resolveRange(today: string, startDate?: string | null, endDate?: string | null): DateRange {
  const start = startDate ?? today;
  const end = endDate ?? addDays(start, DEFAULT_EVENT_RANGE_DAYS);
  if (end < start) throw invalidField('endDate', `must not be before startDate (${start})`);
  return { startDate: start, endDate: end };
}

// Walks special_event_date_listing_idx in order and stops after one page. A row counts only when it is the
// event's first date inside the range (its previous date lies before the range), so each event appears once.
const PAGE_OF_EVENT_IDS = `
  select event_id from special_event_date
  where listed and date between ? and ? and (previous_date is null or previous_date < ?)
  order by date, name, event_id
  limit ? offset ?`;

const COUNT_OF_EVENTS = `
  select count(*)::int as total from special_event_date
  where listed and date between ? and ? and (previous_date is null or previous_date < ?)`;

/** How many events have a date in the range (each counted once, at its first date inside it). */
export async function countEvents(em: EntityManager, range: DateRange): Promise<number> {
  const [row] = await em.execute<{ total: number }[]>(COUNT_OF_EVENTS, [
    range.startDate,
    range.endDate,
    range.startDate,
  ]);
  return row?.total ?? 0;
}

/** Events with a date in the range, ordered by their first date in it, then name, then id. */
export async function listEvents(em: EntityManager, range: DateRange, page: Page): Promise<EventView[]> {
  const rows = await em.execute<{ event_id: string }[]>(PAGE_OF_EVENT_IDS, [
    range.startDate,
    range.endDate,
    range.startDate,
    page.limit,
    offsetOf(page),
  ]);
  if (rows.length === 0) return [];
  const ids = rows.map((row) => row.event_id);
  const events = await em.find(SpecialEvent, { id: { $in: ids } }, { populate: ['dates'] });
  const byId = new Map(events.map((event) => [event.id, event]));
  return ids.map((id) => toEventView(byId.get(id)!));
}
