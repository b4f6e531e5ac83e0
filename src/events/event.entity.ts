import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { PriceCategory } from '../prices/price-category.entity.ts';

export const SpecialEvent = defineEntity({
  name: 'SpecialEvent',
  tableName: 'special_event',
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => crypto.randomUUID()),
    name: p.string().length(200),
    location: p.string().length(200),
    eventDescription: p.string().length(5000),
    // Exact decimal, kept as the string Postgres returns ('30.00') until it is turned into a JSON number.
    price: p.decimal().precision(9).scale(2).check('(price >= 0) AND (price <= 1000000)'),
    /** Tickets per event date; null is unlimited. */
    capacity: p.integer().nullable(),
    /** Raised by every change; the event's entity tag (src/common/entity-tags.ts). */
    version: p.integer().default(1),
    deletedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    dates: () => p.oneToMany(EventDate).mappedBy('event').orderBy({ date: 'asc' }),
  },
});

export type SpecialEvent = InferEntity<typeof SpecialEvent>;

/**
 * What one visitor category pays for an event where it differs from the event's `price`, in hundredths of the
 * currency. A category that listed events still price cannot leave the price list (src/prices).
 */
export const EventPrice = defineEntity({
  name: 'EventPrice',
  tableName: 'special_event_price',
  properties: {
    event: () => p.manyToOne(SpecialEvent).primary().deleteRule('cascade'),
    category: () =>
      p
        .manyToOne(PriceCategory)
        .primary()
        .joinColumn('category')
        .deleteRule('no action')
        .updateRule('no action'),
    price: p.integer(),
  },
  checks: [{ name: 'special_event_price_price_check', expression: '(price >= 0) AND (price <= 100000000)' }],
});

export type EventPrice = InferEntity<typeof EventPrice>;

/**
 * One row per (event, date): the event's dates, and the index the date-range listing walks.
 * `name` is copied from the event so the listing's order (date, name, id) is one index; `previousDate` is
 * the event's date before this one, so "the first date of this event inside the range" needs no second look-up.
 * `listed` is false once the event is deleted: the partial index then no longer holds it.
 */
export const EventDate = defineEntity({
  name: 'EventDate',
  tableName: 'special_event_date',
  properties: {
    event: () => p.manyToOne(SpecialEvent).primary().deleteRule('cascade'),
    date: p.date().primary(),
    name: p.string().length(200).collation('C'),
    previousDate: p.date().nullable(),
    listed: p.boolean().default(true),
  },
  indexes: [
    {
      name: 'special_event_date_listing_idx',
      expression:
        'create index "special_event_date_listing_idx" on "special_event_date" ("date", "name", "event_id") include ("previous_date") where "listed"',
    },
  ],
  // The counters' triggers (Migration20261123120000 creates them and their function), declared so that the
  // schema diff keeps them.
  triggers: Object.entries({
    insert: 'new table as added',
    update: 'old table as removed new table as added',
    delete: 'old table as removed',
  } as const).map(([event, transitionTables]) => ({
    name: `special_event_date_count_${event}`,
    timing: 'after' as const,
    events: [event as 'insert' | 'update' | 'delete'],
    forEach: 'statement' as const,
    expression: `create trigger "special_event_date_count_${event}" after ${event} on "special_event_date" referencing ${transitionTables} for each statement execute function "special_event_date_count_update"()`,
  })),
});

export type EventDate = InferEntity<typeof EventDate>;

/**
 * Listed date rows per (date, previous date), kept by the special_event_date_count_* triggers; a first date's
 * previous date is '-infinity'. The events of [s, e] are the rows with s <= date <= e and previous date < s.
 */
export const EventDateCount = defineEntity({
  name: 'EventDateCount',
  tableName: 'special_event_date_count',
  properties: {
    date: p.date().primary(),
    previousDate: p.date().primary(),
    rowCount: p.integer(),
  },
});

export type EventDateCount = InferEntity<typeof EventDateCount>;
