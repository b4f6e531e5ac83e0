// What each visitor category pays for an event (src/prices holds the price list itself).
import { loadBatched } from '../common/batch.ts';
import { invalid } from '../common/errors.ts';
import { toMinorUnits } from '../common/money.ts';
import type { Queryable } from '../db/sql.ts';
import type { EventPriceInput } from '../prices/prices.rules.ts';
import {
  EVENT_PRICES,
  type EventPriceView,
  INSERT_PRICES,
  OWN_PRICES,
  SHARE_CATEGORIES,
} from './events.queries.ts';

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
 * Checks that the categories of `prices` are on the price list, within the transaction that writes an event's
 * prices (before it writes anything): a category that is not is refused, naming `prices[i].category`. The
 * categories are locked shared: a price list that would remove one of them waits for this change, or this
 * for it.
 */
export async function checkPriceCategories(tx: Queryable, prices: EventPriceInput[]): Promise<void> {
  const keys = (await tx.query(SHARE_CATEGORIES, [])).map((row) => row.category);
  const unknown = prices.flatMap((entry, index) =>
    keys.includes(entry.category)
      ? []
      : [{ path: `prices[${index}].category`, message: `is not on the price list (${keys.join(', ')})` }],
  );
  if (unknown.length > 0) throw invalid(unknown);
}

/** Adds what the listed categories pay for a new or changed event (the others pay its price), checked first. */
export async function addEventPrices(
  tx: Queryable,
  eventId: string,
  prices: EventPriceInput[],
): Promise<void> {
  if (prices.length === 0) return;
  await tx.query(INSERT_PRICES, [
    eventId,
    prices.map((entry) => entry.category),
    prices.map((entry) => toMinorUnits(entry.price)),
  ]);
}
