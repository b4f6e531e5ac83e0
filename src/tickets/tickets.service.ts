import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Account } from '../accounts/account.entity.ts';
import type { Principal } from '../accounts/authenticator.ts';
import { conflict, invalidField, notFound } from '../common/errors.ts';
import type { SpecialEvent } from '../events/event.entity.ts';
import { findEvent } from '../events/events.service.ts';
import { hoursOn } from '../hours/hours.service.ts';
import { claimOrReplay, requestHash, storeAnswer } from './idempotency.ts';
import { Ticket, type TicketType } from './ticket.entity.ts';
import { GENERAL_ADMISSION } from './ticket-sales.entity.ts';
import { type BuyTicketsInput, newConfirmationCode, PURCHASE_MESSAGES } from './tickets.rules.ts';

export interface TicketConfirmation {
  message: string;
  ticketId: string;
  ticketType: TicketType;
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
 * Checks the purchase against the calendar, the event and the capacity, then records the ticket, all in
 * one transaction. With an idempotency key, the first answer for (buyer, key) is replayed instead.
 */
export async function buyTickets(
  em: EntityManager,
  buyer: Principal,
  input: BuyTicketsInput,
  options: PurchaseOptions,
): Promise<TicketConfirmation> {
  const { today, idempotencyKey } = options;
  if (input.ticketDate < today) throw invalidField('ticketDate', `must be today (${today}) or later`);

  return em.transactional(async (tx) => {
    if (idempotencyKey) {
      const hash = requestHash(input);
      const stored = await claimOrReplay<TicketConfirmation>(tx, buyer.id, idempotencyKey, hash);
      if (stored) return stored.replay;
    }

    let event: SpecialEvent | null = null;
    if (input.ticketType === 'event') {
      // A share lock on the event: a concurrent delete or capacity change waits for this purchase, and it for them.
      await tx.execute('select id from special_event where id = ? and deleted_at is null for share', [
        input.eventId,
      ]);
      event = await findEvent(tx, input.eventId!);
      if (!event) throw notFound(`There is no special event ${input.eventId}`);
      if (!event.dates.getItems().some((row) => row.date === input.ticketDate)) {
        throw invalidField('ticketDate', `is not a date of the event "${event.name}"`);
      }
      await takeSeat(
        tx,
        event.id,
        input.ticketDate,
        event.capacity ?? null,
        `"${event.name}" on ${input.ticketDate}`,
      );
    } else {
      if (!(await hoursOn(tx, input.ticketDate))) {
        throw invalidField('ticketDate', `the museum is closed on ${input.ticketDate}`);
      }
      const what = `General admission on ${input.ticketDate}`;
      await takeSeat(tx, GENERAL_ADMISSION, input.ticketDate, options.dailyCapacity, what);
    }

    const ticket = await insertWithUniqueCode(tx, {
      account: tx.getReference(Account, buyer.id),
      ticketType: input.ticketType,
      ticketDate: input.ticketDate,
      event,
      email: input.email,
    });
    const confirmation = confirmationOf(ticket, event);
    if (idempotencyKey) await storeAnswer(tx, buyer.id, idempotencyKey, confirmation);
    return confirmation;
  });
}

// One statement both checks and raises the count. Its row lock makes concurrent buyers of the same
// scope and date wait for each other, on one instance or many, so capacity can never be exceeded.
const TAKE_SEAT = `
  insert into ticket_sales (scope, date, sold) values (?, ?, 1)
  on conflict (scope, date) do update set sold = ticket_sales.sold + 1
  where ?::int is null or ticket_sales.sold < ?::int
  returning sold`;

async function takeSeat(
  tx: EntityManager,
  scope: string,
  date: string,
  capacity: number | null,
  what: string,
) {
  const rows = await tx.execute<{ sold: number }[]>(TAKE_SEAT, [scope, date, capacity, capacity]);
  const sold = rows[0]?.sold;
  if (sold === undefined || (capacity !== null && sold > capacity)) {
    throw conflict(`${what} is sold out (capacity ${capacity})`);
  }
}

type NewTicket = Omit<Ticket, 'id' | 'confirmationCode' | 'createdAt'>;

/** Confirmation codes are random; on the rare collision, try another inside a savepoint. */
async function insertWithUniqueCode(em: EntityManager, data: NewTicket): Promise<Ticket> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await em.transactional(async (savepoint) => {
        const ticket = savepoint.create(Ticket, {
          ...data,
          confirmationCode: newConfirmationCode(data.ticketType),
        });
        await savepoint.flush();
        return ticket;
      });
    } catch (error) {
      if (!(error instanceof UniqueConstraintViolationException) || attempt >= CODE_ATTEMPTS) throw error;
    }
  }
}

export const TICKET_STATUSES = ['valid', 'cancelled'] as const;

export interface TicketView extends TicketConfirmation {
  /** `cancelled` once the ticket's event was deleted. */
  status: (typeof TICKET_STATUSES)[number];
}

/** A ticket as its owner, or staff, may see it; anyone else gets null, as if it did not exist. */
export async function getTicket(
  em: EntityManager,
  viewer: Principal,
  ticketId: string,
): Promise<TicketView | null> {
  const ticket = await em.findOne(Ticket, { id: ticketId }, { populate: ['event'] });
  if (!ticket) return null;
  if (viewer.role !== 'staff' && ticket.account?.id !== viewer.id) return null;
  const event = ticket.event ?? null;
  return { ...confirmationOf(ticket, event), status: event?.deletedAt ? 'cancelled' : 'valid' };
}

function confirmationOf(ticket: Ticket, event: SpecialEvent | null): TicketConfirmation {
  return {
    message: PURCHASE_MESSAGES[ticket.ticketType],
    ticketId: ticket.id,
    ticketType: ticket.ticketType,
    ticketDate: ticket.ticketDate,
    confirmationCode: ticket.confirmationCode,
    eventId: event?.id ?? null,
    eventName: event?.name ?? null,
  };
}
