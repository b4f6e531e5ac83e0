import { defineEntity, type InferEntity, p } from '@mikro-orm/core';

/** A partner's endpoint that is told, by a signed POST, of every event created or changed. */
export const WebhookSubscription = defineEntity({
  name: 'WebhookSubscription',
  tableName: 'webhook_subscription',
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => crypto.randomUUID()),
    url: p.string().length(2048),
    description: p.string().length(500).nullable(),
    /** `whsec_…`: the key the receiver verifies signatures with. Kept as it is: signing needs it. */
    secret: p.string().length(100),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
  indexes: [{ name: 'webhook_subscription_created_at_index', properties: ['createdAt', 'id'] }],
});

export type WebhookSubscription = InferEntity<typeof WebhookSubscription>;

/**
 * The outbox: one row per (message, subscription), written in the transaction that changed the event, so a
 * change that committed is delivered however the process ends. `webhookId` names the message (the same for
 * every subscription and every retry); `nextAttemptAt` is when a worker may take it next, which a worker
 * pushes forward when it takes the row (its lease) and sets to the retry time when an attempt fails.
 */
export const WebhookDelivery = defineEntity({
  name: 'WebhookDelivery',
  tableName: 'webhook_delivery',
  properties: {
    id: p.uuid().primary(),
    webhookId: p.string().length(64),
    subscription: () => p.manyToOne(WebhookSubscription).deleteRule('cascade').index(false),
    eventId: p.uuid(),
    /** The body every attempt sends: the event as it was when the change committed. */
    payload: p.text(),
    status: p.enum(['pending', 'delivered', 'failed'] as const).default('pending'),
    attempts: p.integer().default(0),
    lastResponseStatus: p.integer().nullable(),
    /** The start of the last answer's body (at most 1 KiB), or what went wrong before one came. */
    lastResponse: p.string().length(1100).nullable(),
    nextAttemptAt: p.datetime().nullable(),
    createdAt: p.datetime(),
    deliveredAt: p.datetime().nullable(),
  },
  indexes: [
    { name: 'webhook_delivery_subscription_index', properties: ['subscription', 'createdAt', 'id'] },
    // The hourly purge of old deliveries.
    { name: 'webhook_delivery_created_at_index', properties: ['createdAt'] },
    {
      name: 'webhook_delivery_due_index',
      expression: `create index "webhook_delivery_due_index" on "webhook_delivery" ("next_attempt_at") where "status" = 'pending'`,
    },
  ],
});

export type WebhookDelivery = InferEntity<typeof WebhookDelivery>;
