import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Account } from '../accounts/account.entity.ts';
import type { Principal } from '../accounts/authenticator.ts';
import { invalidField, notFound } from '../common/errors.ts';
import type { SpecialEvent } from '../events/event.entity.ts';
import { findEvent } from '../events/events.service.ts';
import { hoursOn } from '../hours/hours.service.ts';
import { Ticket, type TicketType } from './ticket.entity.ts';
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

/** Checks the purchase against the calendar and the event, then records the ticket, all in one transaction. */
export async function buyTickets(
  em: EntityManager,
  buyer: Principal,
  input: BuyTicketsInput,
  today: string,
): Promise<TicketConfirmation> {
  if (input.ticketDate < today) throw invalidField('ticketDate', `must be today (${today}) or later`);

  return em.transactional(async (tx) => {
    let event: SpecialEvent | null = null;
    if (input.ticketType === 'event') {
      event = await findEvent(tx, input.eventId!);
      if (!event) throw notFound(`There is no special event ${input.eventId}`);
      if (!event.dates.getItems().some((row) => row.date === input.ticketDate)) {
        throw invalidField('ticketDate', `is not a date of the event "${event.name}"`);
      }
    } else if (!(await hoursOn(tx, input.ticketDate))) {
      throw invalidField('ticketDate', `the museum is closed on ${input.ticketDate}`);
    }

    const ticket = await insertWithUniqueCode(tx, {
      account: tx.getReference(Account, buyer.id),
      ticketType: input.ticketType,
      ticketDate: input.ticketDate,
      event,
      email: input.email,
    });
    return {
      message: PURCHASE_MESSAGES[input.ticketType],
      ticketId: ticket.id,
      ticketType: input.ticketType,
      ticketDate: input.ticketDate,
      confirmationCode: ticket.confirmationCode,
      eventId: event?.id ?? null,
      eventName: event?.name ?? null,
    };
  });
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
