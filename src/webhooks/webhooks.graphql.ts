import { pageOf, paginationSchema } from '../common/pagination.ts';
import { withinArgument } from '../graphql/argument-errors.ts';
import { builder } from '../graphql/builder.ts';
import { globalId, NodeInterface } from '../graphql/node.ts';
import { pageArgs, pageType } from '../graphql/pagination.ts';
import type { DeliveryStatus, WebhookDeliveryView, WebhookSubscriptionView } from './webhooks.queries.ts';
import { webhookSubscriptionSchema } from './webhooks.rules.ts';
import {
  getSubscription,
  listDeliveries,
  listSubscriptions,
  type NewWebhookSubscription,
  subscribe,
  unsubscribe,
} from './webhooks.service.ts';

const WebhookSubscriptionType = builder.objectRef<WebhookSubscriptionView>('WebhookSubscription').implement({
  description:
    'An endpoint told of every special event created or changed: a POST of the event, signed as Standard Webhooks define (https://www.standardwebhooks.com).',
  interfaces: [NodeInterface],
  fields: (t) => ({
    id: t.id({
      description:
        "The subscription's UUID, which is also its global id (Node): it was named `id` before global ids were.",
      resolve: (subscription) => globalId('WebhookSubscription', subscription.id),
      extensions: { jsonSchema: { format: 'uuid' } },
    }),
    url: t.exposeString('url', { description: 'Where the messages are POSTed.' }),
    description: t.exposeString('description', {
      nullable: true,
      description: 'A note for people, as given when it was made; null without one.',
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was made, RFC 3339 UTC.' }),
  }),
});

const NewWebhookSubscriptionType = builder
  .objectRef<NewWebhookSubscription>('NewWebhookSubscription')
  .implement({
    description: 'A subscription just made, with its signing secret: the only time the secret is shown.',
    fields: (t) => ({
      id: t.expose('id', {
        type: 'UUID',
        description: 'Its UUID, which names it to webhookSubscription and deleteWebhookSubscription.',
      }),
      url: t.exposeString('url', { description: 'Where the messages are POSTed.' }),
      description: t.exposeString('description', {
        nullable: true,
        description: 'A note for people, as given; null without one.',
      }),
      createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was made, RFC 3339 UTC.' }),
      secret: t.exposeString('secret', {
        description:
          '`whsec_` and a base64 key: what the receiver verifies `webhook-signature` with (e.g. `new Webhook(secret).verify(body, headers)` of the standardwebhooks package).',
      }),
    }),
  });

const DeliveryStatusEnum = builder.enumType('WebhookDeliveryStatus', {
  description:
    'pending: not yet answered with a 2xx, attempts remain; delivered: a 2xx came back; failed: every attempt of the retry schedule failed.',
  values: {
    pending: { value: 'pending', description: 'Not yet answered with a 2xx; attempts remain.' },
    delivered: { value: 'delivered', description: 'A 2xx came back.' },
    failed: { value: 'failed', description: 'Every attempt of the retry schedule failed.' },
  } satisfies Record<DeliveryStatus, { value: DeliveryStatus; description: string }>,
});

const WebhookDeliveryType = builder.objectRef<WebhookDeliveryView>('WebhookDelivery').implement({
  description: 'One message to one subscription, and how its delivery went.',
  fields: (t) => ({
    id: t.expose('id', { type: 'UUID', description: 'Identifier of the delivery.' }),
    webhookId: t.exposeString('webhookId', {
      description: 'The `webhook-id` header: the same on every attempt; receivers dedupe by it.',
    }),
    eventId: t.expose('eventId', { type: 'UUID', description: 'The event the message carries.' }),
    status: t.expose('status', { type: DeliveryStatusEnum, description: 'How its delivery went so far.' }),
    attempts: t.exposeInt('attempts', { description: 'Attempts made so far.' }),
    lastResponseStatus: t.exposeInt('lastResponseStatus', {
      nullable: true,
      description: 'The HTTP status of the last answer; null when none came (refused, timed out).',
    }),
    nextAttemptAt: t.expose('nextAttemptAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When it is attempted next, while pending.',
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was queued, RFC 3339 UTC.' }),
    deliveredAt: t.expose('deliveredAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When a 2xx came back, RFC 3339 UTC; null until then.',
    }),
  }),
});

const WebhookSubscriptionPageType = pageType('WebhookSubscriptionPage', WebhookSubscriptionType, {
  type: 'One page of webhook subscriptions, oldest first, and how many there are over all pages.',
  items: 'The subscriptions of this page.',
  total: 'How many subscriptions there are over all pages.',
});
const WebhookDeliveryPageType = pageType('WebhookDeliveryPage', WebhookDeliveryType, {
  type: "One page of a subscription's deliveries, newest first, and how many there are over all pages.",
  items: 'The deliveries of this page.',
  total: 'How many deliveries of the subscription there are over all pages.',
});

const CreateWebhookSubscriptionInput = builder.inputType('CreateWebhookSubscriptionInput', {
  description: 'A new webhook subscription.',
  fields: (t) => ({
    url: t.string({
      description: 'An https:// URL of at most 2048 characters whose host resolves to public addresses only.',
    }),
    description: t.string({ required: false, description: 'At most 500 characters.' }),
  }),
  validate: webhookSubscriptionSchema,
});

const staffOnly = { staff: true } as const;

builder.queryFields((t) => ({
  webhookSubscriptions: t.field({
    type: WebhookSubscriptionPageType,
    description: 'The webhook subscriptions, oldest first (staff only).',
    authScopes: staffOnly,
    args: pageArgs,
    validate: paginationSchema,
    resolve: (_root, args, { deps }) => listSubscriptions(deps.db.sql, pageOf(args)),
  }),
  webhookSubscription: t.field({
    type: WebhookSubscriptionType,
    nullable: true,
    description: 'One webhook subscription, or null (staff only).',
    authScopes: staffOnly,
    args: { id: t.arg({ type: 'UUID', description: 'The UUID of the subscription.' }) },
    resolve: (_root, { id }, { deps }) => getSubscription(deps.db.sql, id),
  }),
  webhookDeliveries: t.field({
    type: WebhookDeliveryPageType,
    nullable: true,
    description:
      "A subscription's deliveries, newest first; null when there is no such subscription (staff only).",
    authScopes: staffOnly,
    args: {
      subscriptionId: t.arg({ type: 'UUID', description: 'The UUID of the subscription.' }),
      ...pageArgs,
    },
    validate: paginationSchema.loose(),
    resolve: (_root, args, { deps }) => listDeliveries(deps.db.sql, args.subscriptionId, pageOf(args)),
  }),
}));

builder.mutationFields((t) => ({
  createWebhookSubscription: t.field({
    type: NewWebhookSubscriptionType,
    description:
      'Subscribes an endpoint to every special event created or changed (staff only). A URL that is not https, or whose host is loopback, private, link-local or a metadata address, is BAD_USER_INPUT naming input.url.',
    authScopes: staffOnly,
    args: {
      input: t.arg({ type: CreateWebhookSubscriptionInput, description: 'The subscription to make.' }),
    },
    resolve: (_root, { input }, { deps }) =>
      withinArgument('input', () =>
        subscribe(deps.db.sql, input, deps.config.webhooks.allowPrivate, deps.webhooks),
      ),
  }),
  deleteWebhookSubscription: t.boolean({
    description:
      'Deletes a webhook subscription and its deliveries, pending ones included (staff only). Unknown: NOT_FOUND.',
    authScopes: staffOnly,
    args: { id: t.arg({ type: 'UUID', description: 'The UUID of the subscription to delete.' }) },
    resolve: (_root, { id }, { deps }) => unsubscribe(deps.db.sql, id, deps.webhooks),
  }),
}));
