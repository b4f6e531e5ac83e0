import { DomainError } from '../common/errors.ts';
import { toMinorUnits } from '../common/money.ts';
import type { Queryable, Sql } from '../db/sql.ts';
import {
  FORGET_DELETED_EVENT_PRICES,
  LOCK_LEFT_OUT,
  PRICE_LIST,
  type PriceCategoryView,
  REPLACE_PRICE_LIST,
  STILL_PRICED,
} from './prices.queries.ts';
import type { PriceListInput } from './prices.rules.ts';

/** The price list, in the order staff gave it. */
export const readPriceList = (sql: Queryable) => sql.query(PRICE_LIST, []);

/**
 * Replaces the price list. Tickets keep the category and price they were sold at. A category that an event
 * still gives a price of its own stays until the event's prices change (a conflict naming `categories`), so
 * that no event's answer changes behind its version.
 */
export function setPriceList(sql: Sql, input: PriceListInput): Promise<PriceCategoryView[]> {
  const { categories } = input;
  const keys = categories.map((entry) => entry.category);
  return sql.transaction(async (tx) => {
    await tx.query(LOCK_LEFT_OUT, [keys]);
    await tx.query(FORGET_DELETED_EVENT_PRICES, [keys]);
    const priced = await tx.query(STILL_PRICED, [keys]);
    if (priced.length > 0) {
      const which = priced.map(
        ({ category, events }) => `${category} (${events} event${events > 1 ? 's' : ''})`,
      );
      const message = `must keep the categories that events give a price of their own: ${which.join(', ')}; change those events' prices first`;
      throw new DomainError('conflict', message, [{ path: 'categories', message }]);
    }
    await tx.query(REPLACE_PRICE_LIST, [
      keys,
      categories.map((entry) => entry.name),
      categories.map((entry) => toMinorUnits(entry.generalAdmission)),
    ]);
    return readPriceList(tx);
  });
}
