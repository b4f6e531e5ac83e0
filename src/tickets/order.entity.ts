import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { Account } from '../accounts/account.entity.ts';

/**
 * `pending`: its seats are held while the buyer pays (MUSEUM_PAYMENTS=stripe); `confirmed`: sold;
 * `expired`: the hold ran out and its seats were given back; `cancelled`: every ticket was given back;
 * `refunded`: every ticket was given back and what was paid goes back too.
 */
export const ORDER_STATUSES = ['pending', 'confirmed', 'expired', 'cancelled', 'refunded'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/**
 * An order: several tickets bought together, all or none. Its tickets point at it (`ticket.order_id`), in the
 * order its lines listed them (`ticket.order_position`). The table is `ticket_order`: ORDER is an SQL keyword.
 */
export const Order = defineEntity({
  name: 'Order',
  tableName: 'ticket_order',
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => crypto.randomUUID()),
    // Orders outlive a deleted account, as their tickets do.
    account: () =>
      p.manyToOne(Account).nullable().deleteRule('set null').index('ticket_order_account_id_index'),
    /** The buyer's address; null once erased (src/privacy/). */
    email: p.string().length(254).nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    status: p.enum(ORDER_STATUSES).default('confirmed'),
    /** A pending order's seats are given back at this time unless it was paid. */
    expiresAt: p.datetime().nullable(),
    /** The Stripe Checkout Session that pays it, and where the buyer pays (null until it is made). */
    checkoutSessionId: p.string().length(255).nullable().unique('ticket_order_checkout_session_id_key'),
    checkoutUrl: p.string().length(2048).nullable(),
    /**
     * Sessions replaced by a new one when the museum called off some of the order's tickets while it waited
     * for payment: a payment through one of them is refunded in full (src/payments/payments.service.ts).
     */
    supersededSessions: p.array<string>().columnType('text[]').default([]),
    /** What Stripe took, in hundredths of the currency, and the PaymentIntent refunds go back through. */
    paidAmount: p.integer().nullable(),
    paymentIntent: p.string().length(255).nullable(),
  },
  indexes: [
    // The expiry of held seats looks only at pending orders.
    {
      name: 'ticket_order_expires_at_index',
      expression: `create index "ticket_order_expires_at_index" on "ticket_order" ("expires_at") where "status" = 'pending'`,
    },
  ],
  checks: [
    { name: 'ticket_order_hold_check', expression: `"status" <> 'pending' or "expires_at" is not null` },
  ],
});

export type Order = InferEntity<typeof Order>;
