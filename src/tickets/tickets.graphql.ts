import { conflict } from '../common/errors.ts';
import { toAmount } from '../common/money.ts';
import { builder } from '../graphql/builder.ts';
import { globalId, NodeInterface } from '../graphql/node.ts';
import { EmailDeliveryType } from '../mail/mail.graphql.ts';
import { RESENDS_PER_HOUR, resendTicket } from '../mail/mail.service.ts';
import { ticketDelivery } from '../mail/outbox.ts';
import { CATEGORY_DESCRIPTION } from '../prices/prices.graphql.ts';
import { DEFAULT_CATEGORY } from '../prices/prices.rules.ts';
import { cancelTicket } from './cancellation.ts';
import type { Canceller, TicketKind } from './ticket.entity.ts';
import { getTicket } from './ticket-view.ts';
import type { TicketConfirmation } from './tickets.service.ts';
import type { TicketStatus, TicketView } from './tickets.views.queries.ts';

export type TicketFields = PothosSchemaTypes.ObjectFieldBuilder<
  PothosSchemaTypes.ExtendDefaultTypes<typeof builder.$inferSchemaTypes>,
  TicketConfirmation
>;

/** The fields a ticket and a purchase's confirmation share, as the reference names them. */
export const ticketFields = (t: TicketFields) => ({
  message: t.exposeString('message', {
    description: 'A line to show the buyer, by ticket type, e.g. "Museum general entry ticket purchased".',
  }),
  ticketId: t.expose('ticketId', {
    type: 'UUID',
    description: "The ticket's id, as ticket(ticketId) and GET /tickets/{ticketId}/qr take it.",
  }),
  ticketType: t.expose('ticketType', {
    type: TicketKindEnum,
    description: 'What it admits to: general entry, or a special event (eventId).',
  }),
  ticketDate: t.expose('ticketDate', { type: 'Date', description: 'The day the ticket admits, YYYY-MM-DD.' }),
  confirmationCode: t.exposeString('confirmationCode', {
    description: 'ticket-{type}-{6 hex}-{5 hex}, shown at the entrance.',
  }),
  eventId: t.expose('eventId', {
    type: 'UUID',
    nullable: true,
    description: 'The special event it admits to; null for a general ticket.',
  }),
  eventName: t.exposeString('eventName', {
    nullable: true,
    description: "That special event's name; null for a general ticket.",
  }),
});

/** What a ticket cost and when it admits, on a ticket and on a purchase's confirmation alike. */
export const ticketPriceFields = (t: TicketFields) => ({
  category: t.exposeString('category', { description: 'The visitor category it was sold in.' }),
  price: t.float({
    description:
      'What it cost when it was sold (the currency of the price list); a later price change leaves it as it was.',
    resolve: (ticket) => toAmount(ticket.price),
  }),
  entryTime: t.expose('entryTime', {
    type: 'LocalTime',
    nullable: true,
    description: "A timed ticket's entry slot start; null for an untimed ticket.",
  }),
});

type InputFields = PothosSchemaTypes.InputFieldBuilder<
  PothosSchemaTypes.ExtendDefaultTypes<typeof builder.$inferSchemaTypes>,
  'InputObject'
>;

/** What a purchase may add to the reference's fields, for one ticket and for each line of an order. */
export const visitInputFields = (t: InputFields) => ({
  category: t.string({
    required: false,
    description: `${CATEGORY_DESCRIPTION} Left out: ${DEFAULT_CATEGORY}. Not on the price list: BAD_USER_INPUT.`,
  }),
  entryTime: t.field({
    type: 'LocalTime',
    required: false,
    description:
      "General admission on a day with timed entry: the start of one of the day's entry slots (MuseumDay.entrySlots); required there, refused elsewhere.",
  }),
});

// A ticket's kind (`TicketKind`); GraphQL calls it TicketType, as the reference does.
export const TicketKindEnum = builder.enumType('TicketType', {
  description: 'general: regular museum entry; event: a special event.',
  values: {
    general: { value: 'general', description: 'Regular museum entry on an open day.' },
    event: { value: 'event', description: 'Entry to a special event on one of its dates.' },
  } satisfies Record<TicketKind, { value: TicketKind; description: string }>,
});

export const TicketStatusEnum = builder.enumType('TicketStatus', {
  description:
    'valid: admits its holder on its date; used: checked in at the door; cancelled: given back by its buyer or called off by the museum (cancelledBy); pending: its order waits for payment, and it admits no one until then.',
  values: {
    valid: { value: 'valid', description: 'Paid and admitting: admits its holder on its date.' },
    used: { value: 'used', description: 'Checked in at the door (checkedInAt); admits no one again.' },
    cancelled: {
      value: 'cancelled',
      description: 'Given back by its buyer, or called off by the museum (cancelledBy); admits no one.',
    },
    pending: {
      value: 'pending',
      description: 'Its order waits for payment; admits no one until it is paid.',
    },
  } satisfies Record<TicketStatus, { value: TicketStatus; description: string }>,
});

export const CancelledByEnum = builder.enumType('CancelledBy', {
  description: 'Who cancelled a ticket: its buyer, or the museum.',
  values: {
    visitor: { value: 'visitor', description: 'Its buyer gave it back (cancelTicket, cancelOrder).' },
    museum: {
      value: 'museum',
      description:
        'The museum called it off: staff cancelled it, or its event was deleted, its date dropped from the event, or its day closed.',
    },
  } satisfies Record<Canceller, { value: Canceller; description: string }>,
});

/** Who cancelled a ticket and why: on a ticket, and on a ticket as a buyer's exported data holds it. */
export const cancellationFields = (
  t: PothosSchemaTypes.ObjectFieldBuilder<
    PothosSchemaTypes.ExtendDefaultTypes<typeof builder.$inferSchemaTypes>,
    Pick<TicketView, 'cancelledBy' | 'cancellationReason'>
  >,
) => ({
  cancelledBy: t.expose('cancelledBy', {
    type: CancelledByEnum,
    nullable: true,
    description:
      'Who cancelled it, once cancelled: its buyer (visitor) or the museum; null while it is not, and for the tickets of an order whose hold ran out unpaid.',
  }),
  cancellationReason: t.exposeString('cancellationReason', {
    nullable: true,
    description: 'Why the museum called it off, as staff said it; null when no reason was given.',
  }),
});

export const TicketType = builder.objectRef<TicketView>('Ticket').implement({
  description: 'A purchased ticket, as its owner (or staff, or a gate) sees it.',
  interfaces: [NodeInterface],
  fields: (t) => ({
    id: t.id({ description: 'Global id (Node).', resolve: (ticket) => globalId('Ticket', ticket.ticketId) }),
    ...ticketFields(t),
    admissionCode: t.string({
      description:
        'What its QR code (GET /tickets/{ticketId}/qr) encodes: the confirmation code, once the ticket is paid; CONFLICT while its order waits for payment.',
      resolve: (ticket) => {
        if (ticket.status === 'pending')
          throw conflict('not paid: the ticket admits no one until its order is paid');
        return ticket.confirmationCode;
      },
    }),
    status: t.expose('status', {
      type: TicketStatusEnum,
      description:
        'Whether it still admits: valid, used, cancelled, or pending (its order waits for payment).',
    }),
    checkedInAt: t.expose('checkedInAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When a gate admitted it (checkIn); null until then.',
    }),
    ...cancellationFields(t),
    ...ticketPriceFields(t),
    emailDelivery: t.field({
      type: EmailDeliveryType,
      nullable: true,
      description:
        "How the mail of this ticket (its order's, or its own for a ticket bought on its own) fared, or the last copy asked for; null while none is owed (its order waits for payment).",
      resolve: (ticket, _args, { deps }) => ticketDelivery(deps.db.sql, ticket.ticketId),
    }),
  }),
});

builder.queryField('ticket', (t) =>
  t.field({
    type: TicketType,
    nullable: true,
    description:
      "A ticket of yours (staff and gate accounts: anyone's); null when there is none you may see.",
    authScopes: { visitor: true, gate: true },
    args: { ticketId: t.arg({ type: 'UUID', description: "The ticket's id (Ticket.ticketId)." }) },
    resolve: (_root, { ticketId }, { deps, principal }) => getTicket(deps.db.sql, principal!, ticketId),
  }),
);

builder.mutationField('resendTicket', (t) =>
  t.field({
    type: EmailDeliveryType,
    description: `Queues a fresh copy of the mail of a ticket with its QR code and calendar entry: its order's mail (as resendTickets), or its own for a ticket bought on its own. Its owner or staff (NOT_FOUND for anyone else; CONFLICT for a cancelled ticket or an order not confirmed), at most ${RESENDS_PER_HOUR} an hour (then TOO_MANY_REQUESTS with Retry-After).`,
    authScopes: { visitor: true },
    args: { ticketId: t.arg({ type: 'UUID', description: "The ticket's id (Ticket.ticketId)." }) },
    resolve: async (_root, { ticketId }, { deps, principal }) => {
      const delivery = await resendTicket(deps.db.sql, principal!, ticketId);
      deps.mail?.wake();
      return delivery;
    },
  }),
);

builder.mutationField('cancelTicket', (t) =>
  t.boolean({
    description:
      'Gives a ticket back: its owner before its date, staff at any time; never once it was checked in, nor alone while its order waits for payment (CONFLICT). Its seat is sold again, and what was paid for it is refunded through Stripe, once; the ticket stays readable as cancelled. True, also when it was cancelled already; NOT_FOUND for a ticket that is not yours.',
    authScopes: { visitor: true },
    args: { ticketId: t.arg({ type: 'UUID', description: "The ticket's id (Ticket.ticketId)." }) },
    resolve: async (_root, { ticketId }, { deps, principal }) => {
      const givenBack = await cancelTicket(deps.db.sql, principal!, ticketId, deps.clock.today());
      deps.payments?.givenBack(givenBack);
      deps.mail?.wake();
      return true;
    },
  }),
);
