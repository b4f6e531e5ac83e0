import { randomUUID } from 'node:crypto';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { Principal } from '../accounts/authenticator.ts';
import type { MuseumTime } from '../common/dates.ts';
import { conflict, DomainError, invalidField, notFound } from '../common/errors.ts';
import { type Queryable, type Sql, statement } from '../db/sql.ts';
import { minutesOf, slotsOf } from '../hours/entry-slots.rules.ts';
import { DEFAULT_CATEGORY } from '../prices/prices.rules.ts';
import { claimOrReplay, requestHash, storeAnswer } from './idempotency.ts';
import type { TicketKind } from './ticket.entity.ts';
import { GENERAL_ADMISSION } from './ticket-sales.entity.ts';
import { type BuyTicketsInput, newConfirmationCode, PURCHASE_MESSAGES } from './tickets.rules.ts';

export interface TicketConfirmation {
  message: string;
  ticketId: string;
  ticketType: TicketKind;
  ticketDate: string;
  confirmationCode: string;
  eventId: string | null;
  eventName: string | null;
  /** The visitor category it was sold in, and what it cost, in hundredths of the currency. */
  category: string;
  price: number;
  /** A timed ticket's entry slot start ('HH:MM'); null for an untimed ticket. */
  entryTime: string | null;
}

const CODE_ATTEMPTS = 5;

/** What a sale is checked against: now in the museum, the daily capacity and the door's grace. */
export interface SaleRules extends MuseumTime {
  /** General admission tickets per day; null is unlimited. */
  dailyCapacity: number | null;
  /** A timed ticket is sold until its slot's end and this grace have passed (as the door admits it). */
  entryGraceMinutes: number;
}

export interface PurchaseOptions extends SaleRules {
  idempotencyKey: string | null;
  /** Minutes an order holds its seats while waiting for payment (MUSEUM_PAYMENTS=stripe, visitors); else null. */
  holdMinutes: number | null;
  /** Told of each ticket sold once its sale has committed (not of a replayed answer): the metrics. */
  sold?: (ticket: TicketConfirmation) => void;
}

/**
 * Checks the purchase against the calendar, the event and the capacity and records the ticket, in one
 * statement. With an idempotency key, the first answer for (buyer, key) is replayed instead, and the
 * purchase runs in the transaction that claims the key.
 */
export async function buyTickets(
  sql: Sql,
  buyer: Principal,
  input: BuyTicketsInput,
  options: PurchaseOptions,
): Promise<TicketConfirmation> {
  const { today, idempotencyKey } = options;
  if (input.ticketDate < today) throw invalidField('ticketDate', `must be today (${today}) or later`);

  // Confirmation codes are random; on the rare collision the whole purchase is tried again with another.
  for (let attempt = 1; ; attempt++) {
    try {
      if (!idempotencyKey) {
        const confirmation = await sellTicket(sql, buyer, input, options);
        options.sold?.(confirmation);
        return confirmation;
      }
      const answer = await sql.transaction(async (tx) => {
        const stored = await claimOrReplay<TicketConfirmation>(
          tx,
          buyer.id,
          idempotencyKey,
          requestHash(input),
        );
        if (stored) return { confirmation: stored.replay, replayed: true };
        const confirmation = await sellTicket(tx, buyer, input, options);
        await storeAnswer(tx, buyer.id, idempotencyKey, confirmation);
        return { confirmation, replayed: false };
      });
      if (!answer.replayed) options.sold?.(answer.confirmation);
      return answer.confirmation;
    } catch (error) {
      if (!isCodeCollision(error) || attempt >= CODE_ATTEMPTS) throw error;
    }
  }
}

/** Whether a purchase failed only because its random confirmation code was taken: try again with another. */
export const isCodeCollision = (error: unknown) =>
  error instanceof UniqueConstraintViolationException &&
  (error as { constraint?: string }).constraint === 'ticket_confirmation_code_key';

// $1 ticket id, $2 buyer, $3 date, $4 e-mail, $5 confirmation code, $6 order and $7 place in it (or nulls),
// $8 category. What follows the columns of NEW_TICKET: its price, entry time and the entry slot's end.
const NEW_TICKET = `insert into ticket (id, account_id, ticket_type, ticket_date, event_id, email, confirmation_code,
                      created_at, order_id, order_position, category, price, entry_time, entry_end)`;
const TICKET_ORDER = '$6::uuid, $7::smallint, $8::text';

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
const GENERAL_FACTS = statement(
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
const BUY_GENERAL = statement(
  'buy_general',
  `${NEW_TICKET}
   select $1::uuid, $2::uuid, 'general', $3::date, null, $4, $5, now(), ${TICKET_ORDER}, c.general_admission, null, null
   ${SELLS_UNTIMED}
   returning price`,
);

// With a daily capacity ($9): one upsert both checks and raises the day's count. Its row lock orders
// concurrent buyers of the date, on one instance or many, and the ticket is inserted only if it took a seat.
const BUY_GENERAL_CAPPED = statement(
  'buy_general_capped',
  `with price as (select c.general_admission as price ${SELLS_UNTIMED}),
   seat as (
     insert into ticket_sales as s (scope, date, sold)
     select '${GENERAL_ADMISSION}', $3::date, counted.sold + 1
     from price, lateral ${sellingFrom(`'${GENERAL_ADMISSION}'`, generalSold())} counted
     where counted.sold < $9::int
     on conflict (scope, date) do update set sold = s.sold + 1 where s.sold < $9::int
     returning sold)
   ${NEW_TICKET}
   select $1::uuid, $2::uuid, 'general', $3::date, null, $4, $5, now(), ${TICKET_ORDER}, price.price, null, null
   from price, seat
   returning price`,
);

// Date $1's hours and entry slots, and the general admission price of category $2 (one row; null times:
// closed that day).
const TIMED_FACTS = statement(
  'timed_sale_facts',
  `select to_char(h.time_open, 'HH24:MI') as "timeOpen", to_char(h.time_close, 'HH24:MI') as "timeClose",
          coalesce(d.minutes, case when d.date is null then m.minutes end) as minutes,
          coalesce(d.capacity, case when d.date is null then m.capacity end) as capacity,
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
const TAKE_DAY_SEAT = statement(
  'take_day_seat',
  `insert into ticket_sales as s (scope, date, sold)
   select '${GENERAL_ADMISSION}', $1::date, counted.sold + 1
   from ${sellingFrom(`'${GENERAL_ADMISSION}'`, generalSold('$1::date'), '$1::date')} counted
   where counted.sold < $2::int
   on conflict (scope, date) do update set sold = s.sold + 1 where s.sold < $2::int
   returning sold`,
);

// A seat of the slot starting at $9 (its scope $11, capacity $12) and the ticket in it, at price $13, until $10.
const BUY_TIMED = statement(
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

// Event $9 on $3. The share lock on the event makes a concurrent delete or capacity change wait for this
// purchase, and it for them. With a capacity, the seat is taken as for general admission; without one,
// nothing is counted. Category $8 pays its own price for the event, or the event's. No row back: no such
// event, or not one of its dates.
const BUY_EVENT = statement(
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

const LISTED_EVENT_NAME = statement(
  'listed_event_name',
  'select name from special_event where id = $1::uuid and deleted_at is null',
);

const PRICE_LIST_KEYS = statement(
  'price_list_keys',
  "select string_agg(category, ', ' order by position) as keys from price_category",
);

/** Where a ticket sold in an order goes: the order, and the ticket's place among its tickets. */
export interface OrderPlace {
  orderId: string;
  position: number;
}

/** The sales counter of a timed ticket's slot (ticket_sales.scope): after the day's own in (date, scope) order. */
export const slotScope = (entryTime: string) => `${GENERAL_ADMISSION} ${entryTime}`;

/** What a purchase checks against the calendar, the price list and the capacities. */
interface Sale {
  sql: Queryable;
  input: BuyTicketsInput;
  category: string;
  /** The ticket's columns up to its category ($1 … $8), as every statement above takes them. */
  values: unknown[];
  rules: SaleRules;
  confirmation: TicketConfirmation;
}

async function unknownCategory(sql: Queryable, category: string) {
  const [list] = await sql.query<{ keys: string }>(PRICE_LIST_KEYS, []);
  return invalidField('category', `${category} is not on the price list (${list?.keys ?? ''})`);
}

const closedOn = (date: string) => invalidField('ticketDate', `the museum is closed on ${date}`);

/**
 * Sells one ticket (checked against the calendar, the event, the price list and the capacities), within
 * whatever transaction `sql` is; a ticket of an order says where in it. Untimed tickets take one statement;
 * a timed ticket takes its day's seat and its slot's in a transaction of its own unless `sql` is one.
 */
export async function sellTicket(
  sql: Queryable,
  buyer: Principal,
  input: BuyTicketsInput,
  rules: SaleRules,
  place: OrderPlace | null = null,
): Promise<TicketConfirmation> {
  const { ticketType, ticketDate } = input;
  const { dailyCapacity } = rules;
  const category = input.category ?? DEFAULT_CATEGORY;
  const confirmation: TicketConfirmation = {
    message: PURCHASE_MESSAGES[ticketType],
    ticketId: randomUUID(),
    ticketType,
    ticketDate,
    confirmationCode: newConfirmationCode(ticketType),
    eventId: null,
    eventName: null,
    category,
    price: 0,
    entryTime: null,
  };
  const values = [
    confirmation.ticketId,
    buyer.id,
    ticketDate,
    input.email,
    confirmation.confirmationCode,
    place?.orderId ?? null,
    place?.position ?? null,
    category,
  ];
  const sale: Sale = { sql, input, category, values, rules, confirmation };
  if (ticketType === 'event') return sellEventTicket(sale);
  // A ticket that names an entry time is for a timed day, or refused there.
  if (input.entryTime) return sellTimed(sale);

  const [sold] =
    dailyCapacity === null
      ? await sql.query<{ price: number }>(BUY_GENERAL, values)
      : await sql.query<{ price: number }>(BUY_GENERAL_CAPPED, [...values, dailyCapacity]);
  if (sold) return { ...confirmation, price: sold.price };
  // Nothing sold: why.
  const [facts] = await sql.query<{ open: boolean; timed: boolean; knownCategory: boolean }>(GENERAL_FACTS, [
    ticketDate,
    category,
  ]);
  if (!facts!.open) throw closedOn(ticketDate);
  if (!facts!.knownCategory) throw await unknownCategory(sql, category);
  if (facts!.timed) return sellTimed(sale);
  throw conflict(`General admission on ${ticketDate} is sold out (capacity ${dailyCapacity})`);
}

/** Runs `work` in a transaction: `sql`'s own when it has none, else the one it is. */
const inTransaction = <T>(sql: Queryable, work: (tx: Queryable) => Promise<T>): Promise<T> =>
  'transaction' in sql ? (sql as Sql).transaction(work) : work(sql);

/**
 * A general ticket on a day with timed entry: its entry time must start one of the day's slots. The day's
 * seat (under a daily capacity) is taken before the slot's, the order every purchase and cancellation locks
 * counters in (src/tickets/cancellation.ts), so that concurrent buyers wait for each other, never deadlock.
 */
function sellTimed(sale: Sale): Promise<TicketConfirmation> {
  const { input, values, rules, confirmation, category } = sale;
  const { dailyCapacity } = rules;
  const date = input.ticketDate;
  return inTransaction(sale.sql, async (tx) => {
    const [facts] = await tx.query<TimedFacts>(TIMED_FACTS, [date, category]);
    const { timeOpen, timeClose, minutes, capacity, price } = facts!;
    if (timeOpen === null || timeClose === null) throw closedOn(date);
    if (price === null) throw await unknownCategory(tx, category);
    if (minutes === null || capacity === null)
      throw invalidField('entryTime', `must not be given: ${date} has no timed entry`);
    const slots = slotsOf(timeOpen, timeClose, minutes);
    const starts = slots.map((slot) => slot.startTime);
    const slot = slots.find((candidate) => candidate.startTime === input.entryTime);
    const slotsOfDay = `the entry slots of ${date} start at ${starts.join(', ')}`;
    if (!input.entryTime) throw invalidField('entryTime', `is required: ${slotsOfDay}`);
    if (!slot) throw invalidField('entryTime', `must be the start of an entry slot: ${slotsOfDay}`);
    // As the door sees it: a slot whose end and grace have passed admits no one any more.
    const over = minutesOf(slot.endTime) + rules.entryGraceMinutes;
    if (date === rules.today && rules.minuteOfDay > over)
      throw invalidField('entryTime', `the entry slot ${slot.startTime}–${slot.endTime} is over`);
    if (dailyCapacity !== null) {
      const [seat] = await tx.query(TAKE_DAY_SEAT, [date, dailyCapacity]);
      if (!seat) throw conflict(`General admission on ${date} is sold out (capacity ${dailyCapacity})`);
    }
    const [sold] = await tx.query<{ bought: boolean }>(BUY_TIMED, [
      ...values,
      slot.startTime,
      slot.endTime,
      slotScope(slot.startTime),
      capacity,
      price,
    ]);
    if (!sold!.bought)
      throw new DomainError(
        'conflict',
        `The entry slot ${slot.startTime}–${slot.endTime} on ${date} is sold out (capacity ${capacity})`,
        [{ path: 'entryTime', message: `${slot.startTime} is sold out` }],
      );
    return { ...confirmation, price, entryTime: slot.startTime };
  });
}

interface TimedFacts {
  timeOpen: string | null;
  timeClose: string | null;
  minutes: number | null;
  capacity: number | null;
  price: number | null;
}

async function sellEventTicket(sale: Sale): Promise<TicketConfirmation> {
  const { sql, input, values, confirmation, category } = sale;
  const eventId = input.eventId!;
  const [result] = await sql.query<{
    name: string;
    capacity: number | null;
    price: number | null;
    knownCategory: boolean;
    bought: boolean;
  }>(BUY_EVENT, [...values, eventId]);
  if (!result) {
    const [event] = await sql.query<{ name: string }>(LISTED_EVENT_NAME, [eventId]);
    if (!event) throw notFound(`There is no special event ${eventId}`);
    throw invalidField('ticketDate', `is not a date of the event "${event.name}"`);
  }
  if (!result.knownCategory) throw await unknownCategory(sql, category);
  if (!result.bought) {
    throw conflict(`"${result.name}" on ${input.ticketDate} is sold out (capacity ${result.capacity})`);
  }
  return { ...confirmation, eventId, eventName: result.name, price: result.price! };
}
