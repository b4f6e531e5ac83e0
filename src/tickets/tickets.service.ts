import { randomUUID } from 'node:crypto';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { Principal } from '../accounts/authenticator.ts';
import { conflict, invalidField, notFound } from '../common/errors.ts';
import { type Queryable, type Sql, statement } from '../db/sql.ts';
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
}

const CODE_ATTEMPTS = 5;

export interface PurchaseOptions {
  today: string;
  /** General admission tickets per day; null is unlimited. */
  dailyCapacity: number | null;
  idempotencyKey: string | null;
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
      if (!idempotencyKey) return await sellTicket(sql, buyer, input, options.dailyCapacity);
      return await sql.transaction(async (tx) => {
        const stored = await claimOrReplay<TicketConfirmation>(
          tx,
          buyer.id,
          idempotencyKey,
          requestHash(input),
        );
        if (stored) return stored.replay;
        const confirmation = await sellTicket(tx, buyer, input, options.dailyCapacity);
        await storeAnswer(tx, buyer.id, idempotencyKey, confirmation);
        return confirmation;
      });
    } catch (error) {
      if (!isCodeCollision(error) || attempt >= CODE_ATTEMPTS) throw error;
    }
  }
}

/** Whether a purchase failed only because its random confirmation code was taken: try again with another. */
export const isCodeCollision = (error: unknown) =>
  error instanceof UniqueConstraintViolationException &&
  (error as { constraint?: string }).constraint === 'ticket_confirmation_code_key';

// $1 ticket id, $2 buyer, $3 date, $4 e-mail, $5 confirmation code, $6 order and $7 place in it (or nulls).
const NEW_TICKET = `insert into ticket (id, account_id, ticket_type, ticket_date, event_id, email, confirmation_code,
                      created_at, order_id, order_position)`;
const TICKET_ORDER = '$6::uuid, $7::smallint';

// Open on $3: the date's own hours if it has some, else its weekday's.
const OPEN_ON_DATE = `coalesce(
  (select o.time_open is not null from day_hours o where o.date = $3::date),
  (select w.time_open is not null from weekly_hours w where w.weekday = extract(isodow from $3::date)),
  false)`;

// Counters of ticket_sales are kept only while a capacity applies; a missing one starts from the tickets
// already sold and not cancelled (sales made while there was no capacity). `sold` below is that start when
// the row is missing. A cancellation gives its seat back to the counter (src/tickets/cancellation.ts).
const sellingFrom = (scope: string, ticketsSold: string) => `(
  select case when exists (select from ticket_sales where scope = ${scope} and date = $3::date) then 0
              else (${ticketsSold}) end as sold)`;

// Unlimited: nothing to count, no shared row to lock. No row back means the museum is closed that day.
const BUY_GENERAL = statement(
  'buy_general',
  `${NEW_TICKET}
   select $1::uuid, $2::uuid, 'general', $3::date, null, $4, $5, now(), ${TICKET_ORDER} where ${OPEN_ON_DATE}
   returning id`,
);

// With a daily capacity ($8): one upsert both checks and raises the day's count. Its row lock orders
// concurrent buyers of the date, on one instance or many, and the ticket is inserted only if it took a seat.
const BUY_GENERAL_CAPPED = statement(
  'buy_general_capped',
  `with open_day as (select where ${OPEN_ON_DATE}),
   seat as (
     insert into ticket_sales as s (scope, date, sold)
     select '${GENERAL_ADMISSION}', $3::date, counted.sold + 1
     from open_day,
          lateral ${sellingFrom(
            `'${GENERAL_ADMISSION}'`,
            `select count(*)::int from ticket
             where ticket_type = 'general' and ticket_date = $3::date and cancelled_at is null`,
          )} counted
     where counted.sold < $8::int
     on conflict (scope, date) do update set sold = s.sold + 1 where s.sold < $8::int
     returning sold),
   bought as (
     ${NEW_TICKET}
     select $1::uuid, $2::uuid, 'general', $3::date, null, $4, $5, now(), ${TICKET_ORDER} from seat
     returning id)
   select exists (select from open_day) as open, exists (select from bought) as bought`,
);

// Event $8 on $3. The share lock on the event makes a concurrent delete or capacity change wait for this
// purchase, and it for them. With a capacity, the seat is taken as for general admission; without one,
// nothing is counted. No row back: no such event, or not one of its dates.
const BUY_EVENT = statement(
  'buy_event',
  `with event as (
     select e.id, e.name, e.capacity
     from special_event e
     join special_event_date d on d.event_id = e.id and d.date = $3::date and d.listed
     where e.id = $8::uuid and e.deleted_at is null
     for share of e),
   seat as (
     insert into ticket_sales as s (scope, date, sold)
     select event.id::text, $3::date, counted.sold + 1
     from event,
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
     select $1::uuid, $2::uuid, 'event', $3::date, event.id, $4, $5, now(), ${TICKET_ORDER} from event
     where event.capacity is null or exists (select from seat)
     returning id)
   select event.name, event.capacity, exists (select from bought) as bought from event`,
);

const LISTED_EVENT_NAME = statement(
  'listed_event_name',
  'select name from special_event where id = $1::uuid and deleted_at is null',
);

/** Where a ticket sold in an order goes: the order, and the ticket's place among its tickets. */
export interface OrderPlace {
  orderId: string;
  position: number;
}

/**
 * Sells one ticket in one statement (checked against the calendar, the event and the capacity), within
 * whatever transaction `sql` is; a ticket of an order says where in it.
 */
export async function sellTicket(
  sql: Queryable,
  buyer: Principal,
  input: BuyTicketsInput,
  dailyCapacity: number | null,
  place: OrderPlace | null = null,
): Promise<TicketConfirmation> {
  const { ticketType, ticketDate } = input;
  const confirmation: TicketConfirmation = {
    message: PURCHASE_MESSAGES[ticketType],
    ticketId: randomUUID(),
    ticketType,
    ticketDate,
    confirmationCode: newConfirmationCode(ticketType),
    eventId: null,
    eventName: null,
  };
  const values = [
    confirmation.ticketId,
    buyer.id,
    ticketDate,
    input.email,
    confirmation.confirmationCode,
    place?.orderId ?? null,
    place?.position ?? null,
  ];
  const closed = () => invalidField('ticketDate', `the museum is closed on ${ticketDate}`);

  if (ticketType === 'general' && dailyCapacity === null) {
    const rows = await sql.query(BUY_GENERAL, values);
    if (rows.length === 0) throw closed();
    return confirmation;
  }
  if (ticketType === 'general') {
    const [result] = await sql.query<{ open: boolean; bought: boolean }>(BUY_GENERAL_CAPPED, [
      ...values,
      dailyCapacity,
    ]);
    if (!result!.open) throw closed();
    if (!result!.bought) {
      throw conflict(`General admission on ${ticketDate} is sold out (capacity ${dailyCapacity})`);
    }
    return confirmation;
  }

  const eventId = input.eventId!;
  const [result] = await sql.query<{ name: string; capacity: number | null; bought: boolean }>(BUY_EVENT, [
    ...values,
    eventId,
  ]);
  if (!result) {
    const [event] = await sql.query<{ name: string }>(LISTED_EVENT_NAME, [eventId]);
    if (!event) throw notFound(`There is no special event ${eventId}`);
    throw invalidField('ticketDate', `is not a date of the event "${event.name}"`);
  }
  if (!result.bought) {
    throw conflict(`"${result.name}" on ${ticketDate} is sold out (capacity ${result.capacity})`);
  }
  return { ...confirmation, eventId, eventName: result.name };
}
