import { randomUUID } from 'node:crypto';
import { ifMatchAllows } from '../common/entity-tags.ts';
import { conflict, notFound, preconditionFailed } from '../common/errors.ts';
import type { Queryable, Sql } from '../db/sql.ts';
import { queueEventMessages } from '../webhooks/outbox.ts';
import { addEventPrices, checkPriceCategories } from './event-prices.ts';
import {
  DELETE_DATES,
  DELETE_EVENT,
  DELETE_PRICES,
  DROPPED_DATES,
  EVENT_BY_ID,
  type EventPriceView,
  FORGET_EVENT_SALES,
  INSERT_DATES,
  INSERT_EVENT,
  LOCK_EVENT,
  RECOUNT_EVENT_SALES,
  RENAME_DATES,
  UNLIST_DATES,
  UPDATE_EVENT,
} from './events.queries.ts';
import type { EventChanges, EventFields } from './events.rules.ts';

/** A special event as both APIs show it. */
export interface EventView extends Omit<EventFields, 'capacity' | 'prices'> {
  eventId: string;
  capacity: number | null;
  /**
   * The categories given a price of their own (null: none), when read with the event (one event, or one
   * just written); lists leave it out and the graph loads it (SpecialEvent.ownPrices).
   */
  ownPrices?: EventPriceView[] | null;
  /** Raised by every change: the event's entity tag is `versionTag(version)`. */
  version: number;
}

/** A new event's row and its dates (each pointing at the event's previous date), in the caller's transaction. */
export async function insertEvent(
  tx: Queryable,
  id: string,
  fields: Omit<EventFields, 'prices'>,
): Promise<void> {
  const { name, location, eventDescription, price, capacity, dates } = fields;
  await tx.query(INSERT_EVENT, [id, name, location, eventDescription, price.toFixed(2), capacity ?? null]);
  await tx.query(INSERT_DATES, [id, name, [...dates]]);
}

/** An event as it is within the transaction that has just written it (deleted or not). */
async function eventIn(tx: Queryable, eventId: string): Promise<EventView> {
  const [row] = await tx.query(EVENT_BY_ID, [eventId]);
  return row!.event;
}

/**
 * What becomes of the tickets of the dates an event loses (null: all of them, the event is deleted), in the
 * change's transaction: the museum calls them off (src/tickets/call-off.ts, which the events cannot import).
 */
export type DroppedDates<T> = (tx: Queryable, dates: string[] | null) => Promise<T>;

/** Told of each event created or changed once its transaction has committed: the event feed (event-feed.ts). */
export interface CommittedEvents {
  committed(event: EventView): void;
}

/**
 * Creates an event; its webhook messages are queued and its announcement sent as it commits, then `feed` is
 * told.
 */
export async function createEvent(sql: Sql, fields: EventFields, feed: CommittedEvents): Promise<EventView> {
  const created = await sql.transaction(async (tx) => {
    const id = randomUUID();
    if (fields.prices) await checkPriceCategories(tx, fields.prices);
    await insertEvent(tx, id, fields);
    if (fields.prices) await addEventPrices(tx, id, fields.prices);
    const view = await eventIn(tx, id);
    await queueEventMessages(tx, view);
    return view;
  });
  feed.committed(created);
  return created;
}

/** A listed (not deleted) event, or null. */
export async function getEvent(sql: Queryable, eventId: string): Promise<EventView | null> {
  const [row] = await sql.query(EVENT_BY_ID, [eventId]);
  return row?.event ?? null;
}

/**
 * A capacity may not drop below the tickets sold (and not cancelled) for any date. Purchases count their
 * sales only while the event has a capacity, so the counts are taken from the tickets themselves and the
 * counters start from them (a date whose tickets were all cancelled has none left); purchases and
 * cancellations of the event wait on its lock meanwhile, so the counts are exact.
 */
async function checkCapacityCovers(tx: Queryable, eventId: string, capacity: number): Promise<void> {
  await tx.query(FORGET_EVENT_SALES, [eventId]);
  const [busiest] = await tx.query(RECOUNT_EVENT_SALES, [eventId, eventId]);
  if (busiest && busiest.sold > capacity) {
    throw conflict(
      `capacity ${capacity} is below the ${busiest.sold} tickets already sold for ${busiest.date}`,
    );
  }
}

const noSuchEvent = (eventId: string) => notFound(`There is no special event ${eventId}`);

/** The listed event, locked for the transaction, if `ifMatch` lets a change of it go ahead. */
async function lockForChange(
  tx: Queryable,
  eventId: string,
  ifMatch: string | null | undefined,
): Promise<{ name: string }> {
  const [event] = await tx.query(LOCK_EVENT, [eventId]);
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
export async function updateEvent<T>(
  sql: Sql,
  eventId: string,
  changes: EventChanges,
  ifMatch: string | null | undefined,
  feed: CommittedEvents,
  dropped: DroppedDates<T>,
): Promise<{ event: EventView; dropped: T | null }> {
  const changed = await sql.transaction(async (tx) => {
    const event = await lockForChange(tx, eventId, ifMatch);
    let droppedTickets: T | null = null;
    if (changes.dates !== undefined) {
      const [dates] = await tx.query(DROPPED_DATES, [eventId, changes.dates]);
      const gone = dates?.gone ?? [];
      // Before a capacity is checked: the seats given back no longer count against it.
      if (gone.length > 0) droppedTickets = await dropped(tx, gone);
    }
    if (changes.capacity != null) await checkCapacityCovers(tx, eventId, changes.capacity);
    if (changes.prices !== undefined) {
      await tx.query(DELETE_PRICES, [eventId]);
      await checkPriceCategories(tx, changes.prices ?? []);
    }
    if (changes.dates !== undefined) await tx.query(DELETE_DATES, [eventId]);
    else if (changes.name !== undefined) await tx.query(RENAME_DATES, [eventId, changes.name]);
    await tx.query(UPDATE_EVENT, [
      eventId,
      changes.name ?? null,
      changes.location ?? null,
      changes.eventDescription ?? null,
      changes.price === undefined ? null : changes.price.toFixed(2),
      changes.capacity ?? null,
      changes.capacity !== undefined,
    ]);
    if (changes.dates !== undefined)
      await tx.query(INSERT_DATES, [eventId, changes.name ?? event.name, [...changes.dates]]);
    if (changes.prices) await addEventPrices(tx, eventId, changes.prices);
    const view = await eventIn(tx, eventId);
    await queueEventMessages(tx, view);
    return { event: view, dropped: droppedTickets };
  });
  feed.committed(changed.event);
  return changed;
}

/**
 * Soft delete: the event keeps its row (its tickets point at it), and its date rows leave the listing index,
 * so the event is gone from every read and can no longer be bought. Its tickets not used yet are `dropped`
 * (called off) in the same transaction, and webhook subscribers get the event once more, `cancelled`.
 */
export async function deleteEvent<T>(
  sql: Sql,
  eventId: string,
  ifMatch: string | null | undefined,
  reason: string | null | undefined,
  dropped: DroppedDates<T>,
): Promise<T> {
  return sql.transaction(async (tx) => {
    // Locked: of two concurrent deletes, the second waits, then finds the event deleted and answers 404;
    // a purchase of it waits too, and then finds it gone.
    await lockForChange(tx, eventId, ifMatch);
    const ticketsDropped = await dropped(tx, null);
    const view = await eventIn(tx, eventId);
    await tx.query(DELETE_EVENT, [eventId]);
    await tx.query(UNLIST_DATES, [eventId]);
    await queueEventMessages(tx, view, { cancelled: true, cancellationReason: reason ?? null });
    return ticketsDropped;
  });
}
