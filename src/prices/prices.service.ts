import { toMinorUnits } from '../common/money.ts';
import { type Queryable, type Sql, statement } from '../db/sql.ts';
import type { PriceListInput } from './prices.rules.ts';

/** One category of the price list; its general admission in hundredths of the currency. */
export interface PriceCategoryView {
  category: string;
  name: string;
  generalAdmission: number;
}

const PRICE_LIST = statement(
  'price_list',
  `select category, name, general_admission as "generalAdmission" from price_category order by position`,
);

/** The price list, in the order staff gave it. */
export const readPriceList = (sql: Queryable) => sql.query<PriceCategoryView>(PRICE_LIST, []);

// The new list as three arrays; categories left out go, with the event prices they had (on delete cascade).
const REPLACE_PRICE_LIST = statement(
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
 * Replaces the price list. Tickets keep the category and price they were sold at; event prices of a category
 * taken off the list go with it.
 */
export function setPriceList(sql: Sql, input: PriceListInput): Promise<PriceCategoryView[]> {
  const { categories } = input;
  return sql.transaction(async (tx) => {
    await tx.query(REPLACE_PRICE_LIST, [
      categories.map((entry) => entry.category),
      categories.map((entry) => entry.name),
      categories.map((entry) => toMinorUnits(entry.generalAdmission)),
    ]);
    return readPriceList(tx);
  });
}
