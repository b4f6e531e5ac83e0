import { randomUUID } from 'node:crypto';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { Principal } from '../accounts/authenticator.ts';
import type { MuseumTime } from '../common/dates.ts';
import { conflict, DomainError, invalidField, notFound } from '../common/errors.ts';
import type { Queryable, Sql } from '../db/sql.ts';
import { minutesOf, slotsOf } from '../hours/entry-slots.rules.ts';
import { DEFAULT_CATEGORY } from '../prices/prices.rules.ts';
import { claimOrReplay, requestHash, storeAnswer } from './idempotency.ts';
import type { TicketKind } from './ticket.entity.ts';
import { GENERAL_ADMISSION } from './ticket-sales.entity.ts';
import {
  BUY_EVENT,
  BUY_GENERAL,
  BUY_GENERAL_CAPPED,
  BUY_TIMED,
  GENERAL_FACTS,
  LISTED_EVENT_NAME,
  PRICE_LIST_KEYS,
  TAKE_DAY_SEAT,
  TIMED_FACTS,
  type TicketColumns,
} from './tickets.queries.ts';
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
  /** Told of each ticket sold once its sale has committed (not of a replayed answer): metrics, the mail worker. */
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
  values: TicketColumns;
  rules: SaleRules;
  confirmation: TicketConfirmation;
}

async function unknownCategory(sql: Queryable, category: string) {
  const [list] = await sql.query(PRICE_LIST_KEYS, []);
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
  const values: TicketColumns = [
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
      ? await sql.query(BUY_GENERAL, values)
      : await sql.query(BUY_GENERAL_CAPPED, [...values, dailyCapacity]);
  if (sold) return { ...confirmation, price: sold.price };
  // Nothing sold: why.
  const [facts] = await sql.query(GENERAL_FACTS, [ticketDate, category]);
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
    const [facts] = await tx.query(TIMED_FACTS, [date, category]);
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
    const [sold] = await tx.query(BUY_TIMED, [
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

async function sellEventTicket(sale: Sale): Promise<TicketConfirmation> {
  const { sql, input, values, confirmation, category } = sale;
  const eventId = input.eventId!;
  const [result] = await sql.query(BUY_EVENT, [...values, eventId]);
  if (!result) {
    const [event] = await sql.query(LISTED_EVENT_NAME, [eventId]);
    if (!event) throw notFound(`There is no special event ${eventId}`);
    throw invalidField('ticketDate', `is not a date of the event "${event.name}"`);
  }
  if (!result.knownCategory) throw await unknownCategory(sql, category);
  if (!result.bought) {
    throw conflict(`"${result.name}" on ${input.ticketDate} is sold out (capacity ${result.capacity})`);
  }
  return { ...confirmation, eventId, eventName: result.name, price: result.price! };
}
