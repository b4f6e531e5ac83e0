import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { Account } from '../accounts/account.entity.ts';
import { SpecialEvent } from '../events/event.entity.ts';
import { Order } from './order.entity.ts';

export const TICKET_TYPES = ['general', 'event'] as const;
/** A ticket's kind: the `ticketType` field of both APIs (the GraphQL enum `TicketType`). */
export type TicketKind = (typeof TICKET_TYPES)[number];

/** Who gave a ticket back: its buyer, or the museum (the GraphQL enum `CancelledBy`). */
export const CANCELLERS = ['visitor', 'museum'] as const;
export type Canceller = (typeof CANCELLERS)[number];

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
    /** The buyer's address; null once erased (src/privacy/): the ticket stays valid, nothing more is mailed. */
    email: p.string().length(254).nullable(),
    confirmationCode: p.string().length(32).unique('ticket_confirmation_code_key'),
    createdAt: p.datetime().onCreate(() => new Date()),
    /** The order it was bought in, if any, and its place among the order's tickets (from 0). */
    order: () => p.manyToOne(Order).nullable().deleteRule('no action'),
    orderPosition: p.smallint().nullable(),
    /** When a gate admitted it: set once, by one conditional update (src/check-ins). */
    checkedInAt: p.datetime().nullable(),
    /** When it was given back; its seat was sold again from then on. */
    cancelledAt: p.datetime().nullable(),
    /**
     * Who cancelled it: its buyer (`visitor`), or the museum (staff, an event deleted or a date dropped or
     * closed); null while valid, and for the tickets of an order whose hold ran out (nobody cancelled them).
     */
    cancelledBy: p.enum(CANCELLERS).nullable(),
    /** Why the museum called it off, as staff gave it (at most 500 characters), or null. */
    cancellationReason: p.string().length(500).nullable(),
    /** Its order is not paid yet: its seat is held, but it admits no one and its code is not served. */
    awaitingPayment: p.boolean().default(false),
    /**
     * Sold on its own, its tickets mail is owed and not yet in the outbox: the mail worker turns the flag into
     * the mail's row (src/mail/outbox.ts), so the sale writes no second row.
     */
    mailOwed: p.boolean().default(false),
    /**
     * The visitor category it was sold in and what it cost then, in hundredths of the currency: a later price
     * change leaves it as it was. No foreign key: a category may leave the price list, its tickets stay.
     */
    category: p.string().length(32),
    price: p.integer(),
    /** A timed ticket's entry slot, [entryTime, entryEnd) in the museum's time, as it was when sold. */
    entryTime: p.time(0).nullable(),
    entryEnd: p.time(0).nullable(),
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
    {
      name: 'ticket_mail_owed_index',
      expression: `create index "ticket_mail_owed_index" on "ticket" ("created_at") where "mail_owed"`,
    },
  ],
  checks: [
    { name: 'ticket_event_check', expression: `("ticket_type" = 'event') = ("event_id" is not null)` },
    { name: 'ticket_order_check', expression: `("order_id" is null) = ("order_position" is null)` },
    // A ticket is used or given back, never both.
    { name: 'ticket_visit_check', expression: `"checked_in_at" is null or "cancelled_at" is null` },
    { name: 'ticket_price_check', expression: '"price" >= 0' },
    {
      name: 'ticket_cancellation_check',
      expression: `"cancelled_at" is not null or ("cancelled_by" is null and "cancellation_reason" is null)`,
    },
    // Only general admission is timed.
    {
      name: 'ticket_entry_check',
      expression: `("entry_time" is null) = ("entry_end" is null) and ("entry_time" is null or "ticket_type" = 'general')`,
    },
  ],
});

export type Ticket = InferEntity<typeof Ticket>;
