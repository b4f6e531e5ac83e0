import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { Account } from '../accounts/account.entity.ts';
import { SpecialEvent } from '../events/event.entity.ts';
import { Order } from '../orders/order.entity.ts';

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
    /** The order it was bought in, if any, and its place among the order's tickets (from 0). */
    order: () => p.manyToOne(Order).nullable().deleteRule('no action'),
    orderPosition: p.smallint().nullable(),
    /** When a gate admitted it: set once, by one conditional update (src/check-ins). */
    checkedInAt: p.datetime().nullable(),
    /** When it was given back; its seat was sold again from then on. */
    cancelledAt: p.datetime().nullable(),
  },
  // Partial: most tickets are general admission bought alone, and no query looks for a null event or order.
  indexes: [
    {
      name: 'ticket_event_id_ticket_date_index',
      expression: `create index "ticket_event_id_ticket_date_index" on "ticket" ("event_id", "ticket_date") where "event_id" is not null`,
    },
    {
      name: 'ticket_order_id_index',
      expression: `create index "ticket_order_id_index" on "ticket" ("order_id") where "order_id" is not null`,
    },
  ],
  checks: [
    { name: 'ticket_event_check', expression: `("ticket_type" = 'event') = ("event_id" is not null)` },
    { name: 'ticket_order_check', expression: `("order_id" is null) = ("order_position" is null)` },
    // A ticket is used or given back, never both.
    { name: 'ticket_visit_check', expression: `"checked_in_at" is null or "cancelled_at" is null` },
  ],
});

export type Ticket = InferEntity<typeof Ticket>;
