import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { Account } from '../accounts/account.entity.ts';
import { SpecialEvent } from '../events/event.entity.ts';

export const TICKET_TYPES = ['general', 'event'] as const;
/** A ticket's kind: the `ticketType` field of both APIs (the GraphQL enum `TicketType`). */
export type TicketKind = (typeof TICKET_TYPES)[number];

export const Ticket = defineEntity({
  name: 'Ticket',
  tableName: 'ticket',
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => crypto.randomUUID()),
    // Tickets outlive a deleted account: they were paid for.
    account: () => p.manyToOne(Account).nullable().deleteRule('set null').index('ticket_account_id_index'),
    ticketType: p.enum(TICKET_TYPES),
    ticketDate: p.date().index('ticket_ticket_date_index'),
    event: () => p.manyToOne(SpecialEvent).nullable().deleteRule('no action'),
    email: p.string().length(254),
    confirmationCode: p.string().length(32).unique('ticket_confirmation_code_key'),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
  indexes: [{ name: 'ticket_event_id_ticket_date_index', properties: ['event', 'ticketDate'] }],
  checks: [
    { name: 'ticket_event_check', expression: `("ticket_type" = 'event') = ("event_id" is not null)` },
  ],
});

export type Ticket = InferEntity<typeof Ticket>;
