import { statement } from '../db/sql.ts';

// The prices' SQL: the list of visitor categories with their general admission, read and replaced.

/** One category of the price list; its general admission in hundredths of the currency. */
export interface PriceCategoryView {
  category: string;
  name: string;
  generalAdmission: number;
}

export const PRICE_LIST = statement<PriceCategoryView>(
  'price_list',
  `select category, name, general_admission as "generalAdmission" from price_category order by position`,
);

// The categories the new list ($1) leaves out, locked: an event change that would price one of them waits
// (src/events/event-prices.ts reads them for share).
export const LOCK_LEFT_OUT = statement<{ category: string }, [categories: string[]]>(
  'price_list_lock_left_out',
  'select category from price_category where category <> all($1::text[]) order by category for update',
);

// A deleted event's own prices go with the categories left out: nobody reads them any more.
export const FORGET_DELETED_EVENT_PRICES = statement<never, [categories: string[]]>(
  'price_list_forget_deleted',
  `delete from special_event_price p using special_event e
   where e.id = p.event_id and e.deleted_at is not null and p.category <> all($1::text[])`,
);

export const STILL_PRICED = statement<{ category: string; events: number }, [categories: string[]]>(
  'price_list_still_priced',
  `select category, count(*)::int as events from special_event_price
   where category <> all($1::text[]) group by category order by category`,
);

// The new list as three arrays; the categories left out go (no event prices them any more).
export const REPLACE_PRICE_LIST = statement<
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
