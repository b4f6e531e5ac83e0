import { withinArgument } from '../graphql/argument-errors.ts';
import { builder } from '../graphql/builder.ts';
import { checkIdempotencyKey } from './idempotency.ts';
import { TICKET_TYPES } from './ticket.entity.ts';
import { buyTicketsSchema } from './tickets.rules.ts';
import {
  buyTickets,
  getTicket,
  TICKET_STATUSES,
  type TicketConfirmation,
  type TicketView,
} from './tickets.service.ts';

// A ticket's kind (`TicketKind`); GraphQL calls it TicketType, as the reference does.
export const TicketKindEnum = builder.enumType('TicketType', {
  description: 'general: regular museum entry; event: a special event.',
  values: TICKET_TYPES,
});

export const MuseumTicketsConfirmationType = builder
  .objectRef<TicketConfirmation>('MuseumTicketsConfirmation')
  .implement({
    description: 'Details for a museum ticket after a successful purchase.',
    fields: (t) => ({
      message: t.exposeString('message'),
      ticketId: t.expose('ticketId', { type: 'UUID' }),
      ticketType: t.expose('ticketType', { type: TicketKindEnum }),
      ticketDate: t.expose('ticketDate', { type: 'Date' }),
      confirmationCode: t.exposeString('confirmationCode', {
        description: 'ticket-{type}-{6 hex}-{5 hex}, shown at the entrance.',
      }),
      eventId: t.expose('eventId', { type: 'UUID', nullable: true }),
      eventName: t.exposeString('eventName', { nullable: true }),
    }),
  });

export const BuyMuseumTicketsInput = builder.inputType('BuyMuseumTicketsInput', {
  description: 'A ticket purchase: general entry on an open day, or a special event on one of its dates.',
  fields: (t) => ({
    ticketType: t.field({ type: TicketKindEnum }),
    ticketDate: t.field({ type: 'Date', description: 'Today or later (museum time zone).' }),
    email: t.field({ type: 'EmailAddress', description: 'Where the ticket is sent.' }),
    eventId: t.field({
      type: 'UUID',
      required: false,
      description: 'Required for event tickets, forbidden for general.',
    }),
  }),
  validate: buyTicketsSchema,
});

builder.mutationField('buyMuseumTickets', (t) =>
  t.field({
    type: MuseumTicketsConfirmationType,
    description: 'Buys a ticket for general entry or a special event.',
    authScopes: { authenticated: true },
    args: { input: t.arg({ type: BuyMuseumTicketsInput }) },
    resolve: (_root, { input }, { deps, principal, idempotencyKey }) => {
      const options = {
        today: deps.clock.today(),
        dailyCapacity: deps.config.dailyCapacity,
        idempotencyKey: checkIdempotencyKey(idempotencyKey),
      };
      return withinArgument('input', () => buyTickets(deps.db.sql, principal!, input, options));
    },
  }),
);

export const TicketStatusEnum = builder.enumType('TicketStatus', {
  description: 'valid: can be used; cancelled: its event was cancelled.',
  values: TICKET_STATUSES,
});

export const TicketType = builder.objectRef<TicketView>('Ticket').implement({
  description: 'A purchased ticket, as its owner (or staff) sees it.',
  fields: (t) => ({
    message: t.exposeString('message'),
    ticketId: t.expose('ticketId', { type: 'UUID' }),
    ticketType: t.expose('ticketType', { type: TicketKindEnum }),
    ticketDate: t.expose('ticketDate', { type: 'Date' }),
    confirmationCode: t.exposeString('confirmationCode'),
    eventId: t.expose('eventId', { type: 'UUID', nullable: true }),
    eventName: t.exposeString('eventName', { nullable: true }),
    status: t.expose('status', { type: TicketStatusEnum }),
  }),
});

builder.queryField('ticket', (t) =>
  t.field({
    type: TicketType,
    nullable: true,
    description: "A ticket of yours (staff: anyone's); null when there is none you may see.",
    authScopes: { authenticated: true },
    args: { ticketId: t.arg({ type: 'UUID' }) },
    resolve: (_root, { ticketId }, { deps, principal }) => getTicket(deps.db.sql, principal!, ticketId),
  }),
);
