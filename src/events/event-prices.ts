// What each visitor category pays for an event (src/prices holds the price list itself).
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { loadBatched } from '../common/batch.ts';
import { invalid } from '../common/errors.ts';
import { toMinorUnits } from '../common/money.ts';
import { type Queryable, statement } from '../db/sql.ts';
import { PriceCategory } from '../prices/price-category.entity.ts';
import type { EventPriceInput } from '../prices/prices.rules.ts';
import { EventPrice, type SpecialEvent } from './event.entity.ts';

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

const EVENT_PRICES = statement<{ eventId: string; prices: EventPriceView[] }, [eventIds: string[]]>(
  'event_prices',
  `select e.id as "eventId", ${EVENT_PRICES_COLUMN('e')} as prices from special_event e where e.id = any($1::uuid[])`,
  { mayBeStale: true },
);

const OWN_PRICES = statement<{ eventId: string; prices: EventPriceView[] | null }, [eventIds: string[]]>(
  'event_own_prices',
  `select e.id as "eventId", ${OWN_PRICES_COLUMN('e')} as prices from special_event e where e.id = any($1::uuid[])`,
  { mayBeStale: true },
);

/** The prices given to some categories for an event (null: none), read with the other events of a level. */
export async function loadOwnPrices(
  sql: Queryable,
  shared: Map<string, unknown>,
  eventId: string,
): Promise<EventPriceView[] | null> {
  const prices = await loadBatched(shared, 'events.ownPrices', eventId, async (ids) => {
    const rows = await sql.query(OWN_PRICES, [ids]);
    return new Map(rows.map((row) => [row.eventId, row.prices]));
  });
  return prices ?? null;
}

/** An event's price for every category, read with every other event the same level of a query asks for. */
export async function loadEventPrices(
  sql: Queryable,
  shared: Map<string, unknown>,
  eventId: string,
): Promise<EventPriceView[]> {
  const prices = await loadBatched(shared, 'events.prices', eventId, async (ids) => {
    const rows = await sql.query(EVENT_PRICES, [ids]);
    return new Map(rows.map((row) => [row.eventId, row.prices]));
  });
  return prices ?? [];
}

/**
 * Adds what the listed categories pay for a new or changed event (the others pay its price), within the
 * transaction that writes it; a category that is not on the price list is refused, naming `prices[i].category`.
 */
export async function addEventPrices(
  tx: EntityManager,
  event: SpecialEvent,
  prices: EventPriceInput[],
): Promise<void> {
  // Shared locks: a price list that would remove one of them waits for this change, or this for it.
  const known = await tx.find(
    PriceCategory,
    {},
    { fields: ['category'], orderBy: { position: 'asc' }, lockMode: LockMode.PESSIMISTIC_READ },
  );
  const keys = known.map((row) => row.category);
  const unknown = prices.flatMap((entry, index) =>
    keys.includes(entry.category)
      ? []
      : [{ path: `prices[${index}].category`, message: `is not on the price list (${keys.join(', ')})` }],
  );
  if (unknown.length > 0) throw invalid(unknown);
  for (const entry of prices)
    tx.create(EventPrice, { event, category: entry.category, price: toMinorUnits(entry.price) });
}

/** An event's own prices as `OWN_PRICES_COLUMN` reads them, within a transaction that has just written them. */
export async function ownPricesOf(tx: EntityManager, eventId: string): Promise<EventPriceView[] | null> {
  const [row] = await tx.execute<{ prices: EventPriceView[] | null }[]>(
    `select ${OWN_PRICES_COLUMN('e')} as prices from special_event e where e.id = ?`,
    [eventId],
  );
  return row?.prices ?? null;
}
