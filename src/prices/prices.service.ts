import { DomainError } from '../common/errors.ts';
import { toMinorUnits } from '../common/money.ts';
import { type Queryable, type Sql, statement } from '../db/sql.ts';
import type { PriceListInput } from './prices.rules.ts';

/** One category of the price list; its general admission in hundredths of the currency. */
export interface PriceCategoryView {
  category: string;
  name: string;
  generalAdmission: number;
}

const PRICE_LIST = statement<PriceCategoryView>(
  'price_list',
  `select category, name, general_admission as "generalAdmission" from price_category order by position`,
);

/** The price list, in the order staff gave it. */
export const readPriceList = (sql: Queryable) => sql.query(PRICE_LIST, []);

// The categories the new list ($1) leaves out, locked: an event change that would price one of them waits
// (src/events/event-prices.ts reads them for share).
const LOCK_LEFT_OUT = statement<{ category: string }, [categories: string[]]>(
  'price_list_lock_left_out',
  'select category from price_category where category <> all($1::text[]) order by category for update',
);

// A deleted event's own prices go with the categories left out: nobody reads them any more.
const FORGET_DELETED_EVENT_PRICES = statement<never, [categories: string[]]>(
  'price_list_forget_deleted',
  `delete from special_event_price p using special_event e
   where e.id = p.event_id and e.deleted_at is not null and p.category <> all($1::text[])`,
);

const STILL_PRICED = statement<{ category: string; events: number }, [categories: string[]]>(
  'price_list_still_priced',
  `select category, count(*)::int as events from special_event_price
   where category <> all($1::text[]) group by category order by category`,
);

// The new list as three arrays; the categories left out go (no event prices them any more).
const REPLACE_PRICE_LIST = statement<
  never,
  [categories: string[], names: string[], generalAdmissions: number[]]
>(
  'replace_price_list',
  `with listed as (
     select * from unnest($1::text[], $2::text[], $3::int[]) with ordinality as l(category, name, price, position)),
   removed as (delete from price_category where category <> all($1::text[]))
   insert into price_category as c (category, name, general_admission, position)
   select category, name, price, position - 1 from listed
   on conflict (category) do update
   set name = excluded.name, general_admission = excluded.general_admission, position = excluded.position`,
);

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
