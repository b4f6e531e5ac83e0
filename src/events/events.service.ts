import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ifMatchAllows } from '../common/entity-tags.ts';
import { conflict, notFound, preconditionFailed } from '../common/errors.ts';
import { retryOnDeadlock, statementsIn } from '../db/database.ts';
import { type Queryable, statement } from '../db/sql.ts';
import { queueEventMessages } from '../webhooks/outbox.ts';
import { EventDate, EventPrice, SpecialEvent } from './event.entity.ts';
import { addEventPrices, type EventPriceView, OWN_PRICES_COLUMN, ownPricesOf } from './event-prices.ts';
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
      if (fields.prices) await addEventPrices(tx, event, fields.prices);
      await tx.flush();
      const view = { ...toEventView(event), ownPrices: await ownPricesOf(tx, event.id) };
      await queueEventMessages(tx, view);
      return view;
    }),
  );
  feed.committed(created);
  return created;
}

// One event as one JSON value built by PostgreSQL (dates as 'YYYY-MM-DD', the numeric price as a JSON
// number: 30.00 parses as the 30 that was sent). For a single row, pg's per-column work (it reads the row's
// description at every execution) costs Node more than JSON.parse of one column; lists of events are rows
// (EVENT_COLUMNS), where json_agg would cost PostgreSQL more.
const EVENT_BY_ID = statement<{ event: EventView }, [eventId: string]>(
  'event_by_id',
  `select json_build_object(
     'eventId', e.id, 'name', e.name, 'location', e.location, 'eventDescription', e.event_description,
     'dates', array(select x.date from special_event_date x where x.event_id = e.id order by x.date),
     'price', e.price, 'capacity', e.capacity, 'version', e.version,
     'ownPrices', ${OWN_PRICES_COLUMN('e')}) as event
   from special_event e where e.id = $1::uuid and e.deleted_at is null`,
  { mayBeStale: true },
);

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

// The dates an event has that `dates` leaves out.
const DROPPED_DATES = statement<{ gone: string[] }, [eventId: string, dates: string[]]>(
  'event_dropped_dates',
  `select array(select to_char(date, 'YYYY-MM-DD') from special_event_date
                where event_id = $1::uuid and date <> all($2::date[]) order by date) as gone`,
);

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
export async function updateEvent<T>(
  em: EntityManager,
  eventId: string,
  changes: EventChanges,
  ifMatch: string | null | undefined,
  feed: CommittedEvents,
  dropped: DroppedDates<T>,
): Promise<{ event: EventView; dropped: T | null }> {
  const changed = await retryOnDeadlock(() =>
    em.transactional(async (tx) => {
      const event = await lockForChange(tx, eventId, ifMatch);
      let droppedTickets: T | null = null;
      if (changes.dates !== undefined) {
        const statements = statementsIn(tx);
        const [dates] = await statements.query(DROPPED_DATES, [eventId, changes.dates]);
        const gone = dates?.gone ?? [];
        // Before a capacity is checked: the seats given back no longer count against it.
        if (gone.length > 0) droppedTickets = await dropped(statements, gone);
      }
      event.version += 1;
      if (changes.name !== undefined) event.name = changes.name;
      if (changes.location !== undefined) event.location = changes.location;
      if (changes.eventDescription !== undefined) event.eventDescription = changes.eventDescription;
      if (changes.price !== undefined) event.price = changes.price.toFixed(2);
      if (changes.capacity !== undefined) {
        if (changes.capacity !== null) await checkCapacityCovers(tx, eventId, changes.capacity);
        event.capacity = changes.capacity;
      }
      if (changes.prices !== undefined) {
        await tx.nativeDelete(EventPrice, { event: eventId });
        await addEventPrices(tx, event, changes.prices ?? []);
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
      const view = { ...toEventView(refreshed), ownPrices: await ownPricesOf(tx, eventId) };
      await queueEventMessages(tx, view);
      return { event: view, dropped: droppedTickets };
    }),
  );
  feed.committed(changed.event);
  return changed;
}

/**
 * Soft delete: the event keeps its row (its tickets point at it), and its date rows leave the listing index,
 * so the event is gone from every read and can no longer be bought. Its tickets not used yet are `dropped`
 * (called off) in the same transaction, and webhook subscribers get the event once more, `cancelled`.
 */
export async function deleteEvent<T>(
  em: EntityManager,
  eventId: string,
  ifMatch: string | null | undefined,
  reason: string | null | undefined,
  dropped: DroppedDates<T>,
): Promise<T> {
  return retryOnDeadlock(() =>
    em.transactional(async (tx) => {
      // Locked: of two concurrent deletes, the second waits, then finds the event deleted and answers 404;
      // a purchase of it waits too, and then finds it gone.
      const event = await lockForChange(tx, eventId, ifMatch);
      const ticketsDropped = await dropped(statementsIn(tx), null);
      const view = toEventView(
        await tx.findOneOrFail(SpecialEvent, { id: eventId }, { populate: ['dates'] }),
      );
      event.deletedAt = new Date();
      await tx.flush();
      await tx.nativeUpdate(EventDate, { event: eventId }, { listed: false });
      await queueEventMessages(
        tx,
        { ...view, ownPrices: await ownPricesOf(tx, eventId) },
        {
          cancelled: true,
          cancellationReason: reason ?? null,
        },
      );
      return ticketsDropped;
    }),
  );
}
