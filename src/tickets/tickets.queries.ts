import { statement } from '../db/sql.ts';
import { slotSetting } from '../hours/entry-slots.rules.ts';
import { GENERAL_ADMISSION } from './ticket-sales.entity.ts';

// The tickets' SQL: the idempotency records of purchases and orders, the general sales counters, and the
// statements of a sale (below). A ticket as it is read is tickets.views.queries.ts's, a cancellation
// tickets.cancellation.queries.ts's.

export const CLAIM_KEY = statement<{ key: string }, [accountId: string, key: string, hash: string]>(
  'idempotency_claim',
  `insert into idempotency_record (account_id, key, request_hash, response, created_at)
   values ($1::uuid, $2, $3, null, now()) on conflict (account_id, key) do nothing returning key`,
);

export const CLAIMED_KEY = statement<
  { request_hash: string; response: unknown; expired: boolean },
  [accountId: string, key: string, ttlHours: number]
>(
  'idempotency_claimed',
  `select request_hash, response, created_at < now() - make_interval(hours => $3::int) as expired
   from idempotency_record where account_id = $1::uuid and key = $2 for update`,
);

export const RECLAIM_KEY = statement<never, [accountId: string, key: string, hash: string]>(
  'idempotency_reclaim',
  `update idempotency_record set request_hash = $3, response = null, created_at = now()
   where account_id = $1::uuid and key = $2`,
);

export const STORE_ANSWER = statement<never, [accountId: string, key: string, answer: string]>(
  'idempotency_store',
  'update idempotency_record set response = $3::jsonb where account_id = $1::uuid and key = $2',
);

export const PURGE_KEYS = statement<{ key: string }, [ttlHours: number]>(
  'idempotency_purge',
  `delete from idempotency_record where created_at < now() - make_interval(hours => $1::int) returning key`,
);

// Without a daily capacity, general sales are not counted; counts left from an earlier capacity would be
// short the day one is set again. Dropped, they are recounted from the tickets when needed.
export const FORGET_SALES = statement<never, [scope: string]>(
  'ticket_sales_forget',
  'delete from ticket_sales where scope = $1',
);

// The statements of a sale (src/tickets/tickets.service.ts): each checks the calendar, the price list and the
// capacities and records the ticket, so that a purchase is one round trip where it can be.

// $1 ticket id, $2 buyer, $3 date, $4 e-mail, $5 confirmation code, $6 order and $7 place in it (or nulls),
// $8 category. What follows the columns of NEW_TICKET: its price, entry time and the entry slot's end. A ticket
// sold on its own owes its buyer the tickets mail (`mail_owed`, which the mail worker turns into its outbox row;
// an order's mail is queued once the order is confirmed).
const NEW_TICKET = `insert into ticket (id, account_id, ticket_type, ticket_date, event_id, email, confirmation_code,
                      created_at, order_id, order_position, mail_owed, category, price, entry_time, entry_end)`;
const TICKET_ORDER = '$6::uuid, $7::smallint, $6::uuid is null, $8::text';

/** The ticket's columns up to its category ($1 … $8), as every statement that records a ticket takes them. */
export type TicketColumns = [
  ticketId: string,
  buyerId: string,
  date: string,
  email: string,
  confirmationCode: string,
  orderId: string | null,
  position: number | null,
  category: string,
];

// Open on the date (a ticket's: $3): its own hours if it has some, else its weekday's.
const openOn = (date = '$3::date') => `coalesce(
  (select o.time_open is not null from day_hours o where o.date = ${date}),
  (select w.time_open is not null from weekly_hours w where w.weekday = extract(isodow from ${date})),
  false)`;

// Timed entry on the date: its own setting if it has one, else the museum's.
const timedOn = (date = '$3::date') => `coalesce(
  (select d.minutes is not null from day_entry_slots d where d.date = ${date}),
  (select m.minutes is not null from entry_slots m))`;

// What decides a general ticket without an entry time on $1 in category $2; read when a purchase sold nothing,
// to say why (closed, timed entry, no such category, or sold out).
export const GENERAL_FACTS = statement<
  { open: boolean; timed: boolean; knownCategory: boolean },
  [date: string, category: string]
>(
  'general_sale_facts',
  `select ${openOn('$1::date')} as open, ${timedOn('$1::date')} as timed,
          exists (select from price_category c where c.category = $2) as "knownCategory"`,
);

// The general admission price of category $8, on a day the museum is open without timed entry: no row, no sale.
const SELLS_UNTIMED = `from price_category c where c.category = $8::text and ${openOn()} and not ${timedOn()}`;

// Counters of ticket_sales are kept only while a capacity applies (an entry slot always has one); a missing one starts from the tickets
// already sold and not cancelled (sales made while there was no capacity). `sold` below is that start when
// the row is missing. A cancellation gives its seat back to the counter (src/tickets/cancellation.ts).
const sellingFrom = (scope: string, ticketsSold: string, date = '$3::date') => `(
  select case when exists (select from ticket_sales where scope = ${scope} and date = ${date}) then 0
              else (${ticketsSold}) end as sold)`;

/** General tickets of a date sold and not cancelled: where a missing counter of the day starts. */
const generalSold = (date = '$3::date') => `select count(*)::int from ticket
  where ticket_type = 'general' and ticket_date = ${date} and cancelled_at is null`;

// Unlimited: nothing to count, no shared row to lock. On a timed day, nothing is sold here (sellTimed sells).
export const BUY_GENERAL = statement<{ price: number }, TicketColumns>(
  'buy_general',
  `${NEW_TICKET}
   select $1::uuid, $2::uuid, 'general', $3::date, null, $4, $5, now(), ${TICKET_ORDER}, c.general_admission, null, null
   ${SELLS_UNTIMED}
   returning price`,
);

// With a daily capacity ($9): one upsert both checks and raises the day's count. Its row lock orders
// concurrent buyers of the date, on one instance or many, and the ticket is inserted only if it took a seat.
export const BUY_GENERAL_CAPPED = statement<{ price: number }, [...TicketColumns, dailyCapacity: number]>(
  'buy_general_capped',
  `with price as (select c.general_admission as price ${SELLS_UNTIMED}),
   seat as (
     insert into ticket_sales as s (scope, date, sold)
     select '${GENERAL_ADMISSION}', $3::date, counted.sold + 1
     from price, lateral ${sellingFrom(`'${GENERAL_ADMISSION}'`, generalSold())} counted
     where counted.sold < $9::int
     on conflict (scope, date) do update set sold = s.sold + 1 where s.sold < $9::int
     returning sold),
   bought as (
     ${NEW_TICKET}
     select $1::uuid, $2::uuid, 'general', $3::date, null, $4, $5, now(), ${TICKET_ORDER}, price.price, null, null
     from price, seat
     returning price)
   select price from bought`,
);

interface TimedFacts {
  timeOpen: string | null;
  timeClose: string | null;
  minutes: number | null;
  capacity: number | null;
  price: number | null;
}

// Date $1's hours and entry slots, and the general admission price of category $2 (one row; null times:
// closed that day).
export const TIMED_FACTS = statement<TimedFacts, [date: string, category: string]>(
  'timed_sale_facts',
  `select to_char(h.time_open, 'HH24:MI') as "timeOpen", to_char(h.time_close, 'HH24:MI') as "timeClose",
          ${slotSetting('minutes')} as minutes, ${slotSetting('capacity')} as capacity,
          (select c.general_admission from price_category c where c.category = $2) as price
   from entry_slots m
   left join day_entry_slots d on d.date = $1::date
   left join lateral (
     select o.time_open, o.time_close from day_hours o where o.date = $1::date
     union all
     select w.time_open, w.time_close from weekly_hours w
     where w.weekday = extract(isodow from $1::date) and not exists (select from day_hours o where o.date = $1::date)
   ) h on true`,
);

// Date $1's seat under a daily capacity of $2, in the transaction that then takes the slot's.
export const TAKE_DAY_SEAT = statement<{ sold: number }, [date: string, dailyCapacity: number]>(
  'take_day_seat',
  `insert into ticket_sales as s (scope, date, sold)
   select '${GENERAL_ADMISSION}', $1::date, counted.sold + 1
   from ${sellingFrom(`'${GENERAL_ADMISSION}'`, generalSold('$1::date'), '$1::date')} counted
   where counted.sold < $2::int
   on conflict (scope, date) do update set sold = s.sold + 1 where s.sold < $2::int
   returning sold`,
);

// A seat of the slot starting at $9 (its scope $11, capacity $12) and the ticket in it, at price $13, until $10.
export const BUY_TIMED = statement<
  { bought: boolean },
  [...TicketColumns, startTime: string, endTime: string, scope: string, capacity: number, price: number]
>(
  'buy_timed',
  `with seat as (
     insert into ticket_sales as s (scope, date, sold)
     select $11, $3::date, counted.sold + 1
     from ${sellingFrom('$11', `${generalSold()} and entry_time = $9::time`)} counted
     where counted.sold < $12::int
     on conflict (scope, date) do update set sold = s.sold + 1 where s.sold < $12::int
     returning sold),
   bought as (
     ${NEW_TICKET}
     select $1::uuid, $2::uuid, 'general', $3::date, null, $4, $5, now(), ${TICKET_ORDER}, $13::int, $9::time, $10::time
     from seat
     returning id)
   select exists (select from bought) as bought`,
);

interface EventSale {
  name: string;
  capacity: number | null;
  price: number | null;
  knownCategory: boolean;
  bought: boolean;
}

// Event $9 on $3. The share lock on the event makes a concurrent delete or capacity change wait for this
// purchase, and it for them. With a capacity, the seat is taken as for general admission; without one,
// nothing is counted. Category $8 pays its own price for the event, or the event's. No row back: no such
// event, or not one of its dates.
export const BUY_EVENT = statement<EventSale, [...TicketColumns, eventId: string]>(
  'buy_event',
  `with event as (
     select e.id, e.name, e.capacity, e.price
     from special_event e
     join special_event_date d on d.event_id = e.id and d.date = $3::date and d.listed
     where e.id = $9::uuid and e.deleted_at is null
     for share of e),
   price as (
     select coalesce(p.price, round(event.price * 100)::int) as price
     from event join price_category c on c.category = $8::text
     left join special_event_price p on p.event_id = event.id and p.category = c.category),
   seat as (
     insert into ticket_sales as s (scope, date, sold)
     select event.id::text, $3::date, counted.sold + 1
     from event, price,
          lateral ${sellingFrom(
            'event.id::text',
            `select count(*)::int from ticket t
             where t.event_id = event.id and t.ticket_date = $3::date and t.cancelled_at is null`,
          )} counted
     where event.capacity is not null and counted.sold < event.capacity
     on conflict (scope, date) do update set sold = s.sold + 1 where s.sold < (select capacity from event)
     returning sold),
   bought as (
     ${NEW_TICKET}
     select $1::uuid, $2::uuid, 'event', $3::date, event.id, $4, $5, now(), ${TICKET_ORDER}, price.price, null, null
     from event, price
     where event.capacity is null or exists (select from seat)
     returning id)
   select event.name, event.capacity, (select price from price), exists (select from price) as "knownCategory",
          exists (select from bought) as bought
   from event`,
);

export const LISTED_EVENT_NAME = statement<{ name: string }, [eventId: string]>(
  'listed_event_name',
  'select name from special_event where id = $1::uuid and deleted_at is null',
);

export const PRICE_LIST_KEYS = statement<{ keys: string }>(
  'price_list_keys',
  "select string_agg(category, ', ' order by position) as keys from price_category",
);
