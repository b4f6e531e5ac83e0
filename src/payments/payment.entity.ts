import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { Order } from '../tickets/order.entity.ts';

export const REFUND_STATUSES = ['pending', 'succeeded', 'failed'] as const;

/**
 * The refund outbox: a row per refund owed, written in the transaction that gave the tickets back (or found a
 * late payment without seats), so a refund that committed is made however the process ends. The payments
 * worker sends it to Stripe with the row's id as the idempotency key (Stripe makes it once however often it is
 * sent); `nextAttemptAt` is its lease while an attempt runs, then the time of the next attempt.
 */
export const Refund = defineEntity({
  name: 'Refund',
  tableName: 'refund',
  properties: {
    id: p.uuid().primary(),
    order: () => p.manyToOne(Order).deleteRule('no action').index('refund_order_id_index'),
    /** Hundredths of the currency. */
    amount: p.integer(),
    paymentIntent: p.string().length(255),
    /** `cancelled`: tickets given back; `late_payment`: paid after the hold expired, with no seat left. */
    reason: p.enum(['cancelled', 'late_payment'] as const),
    status: p.enum(REFUND_STATUSES).default('pending'),
    attempts: p.integer().default(0),
    nextAttemptAt: p.datetime().nullable(),
    /** Stripe's refund id once it answered; or what went wrong last. */
    stripeRefundId: p.string().length(255).nullable(),
    lastError: p.string().length(500).nullable(),
    createdAt: p.datetime(),
    refundedAt: p.datetime().nullable(),
  },
  indexes: [
    {
      name: 'refund_due_index',
      expression: `create index "refund_due_index" on "refund" ("next_attempt_at") where "status" = 'pending'`,
    },
  ],
  checks: [{ name: 'refund_amount_check', expression: '"amount" > 0' }],
});

export type Refund = InferEntity<typeof Refund>;

/**
 * Stripe events that took effect, by Stripe's event id: a replay (Stripe retries, or anyone resending a
 * signed event) finds its id here and changes nothing. Kept 30 days, beyond Stripe's 3 days of retries.
 */
export const StripeEvent = defineEntity({
  name: 'StripeEvent',
  tableName: 'stripe_event',
  properties: {
    id: p.string().length(255).primary(),
    type: p.string().length(100),
    receivedAt: p.datetime().index('stripe_event_received_at_index'),
  },
});

export type StripeEvent = InferEntity<typeof StripeEvent>;
