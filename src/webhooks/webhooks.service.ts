import { randomBytes, randomUUID } from 'node:crypto';
import { conflict, invalidField, notFound } from '../common/errors.ts';
import { type ListPage, offsetOf, type Page } from '../common/pagination.ts';
import { type Queryable, rfc3339, statement } from '../db/sql.ts';
import type { Dispatcher } from './dispatcher.ts';
import { refusalOfTarget } from './targets.ts';
import { COUNT_SUBSCRIPTIONS, DELETE_SUBSCRIPTION, INSERT_SUBSCRIPTION } from './webhooks.queries.ts';
import { MAX_WEBHOOK_SUBSCRIPTIONS, type WebhookSubscriptionFields } from './webhooks.rules.ts';

export interface WebhookSubscriptionView {
  id: string;
  url: string;
  description: string | null;
  /** RFC 3339, UTC. */
  createdAt: string;
}

/** The answer to a new subscription: the only time its secret is shown. */
export interface NewWebhookSubscription extends WebhookSubscriptionView {
  secret: string;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface WebhookDeliveryView {
  id: string;
  webhookId: string;
  eventId: string;
  status: DeliveryStatus;
  attempts: number;
  lastResponseStatus: number | null;
  nextAttemptAt: string | null;
  createdAt: string;
  deliveredAt: string | null;
}

const SUBSCRIPTION_JSON = `json_build_object('id', s.id, 'url', s.url, 'description', s.description,
  'createdAt', ${rfc3339('s.created_at')})`;

const SUBSCRIPTION_BY_ID = statement<{ subscription: WebhookSubscriptionView }, [id: string]>(
  'webhook_subscription_by_id',
  `select ${SUBSCRIPTION_JSON} as subscription from webhook_subscription s where s.id = $1::uuid`,
);

const SUBSCRIPTION_PAGE = statement<ListPage<WebhookSubscriptionView>, [limit: number, offset: number]>(
  'webhook_subscription_page',
  `select (select count(*)::int from webhook_subscription) as total,
          coalesce((select json_agg(${SUBSCRIPTION_JSON} order by s.created_at, s.id) from (
            select * from webhook_subscription order by created_at, id limit $1::int offset $2::bigint) s),
          '[]') as items`,
);

const DELIVERY_PAGE = statement<
  ListPage<WebhookDeliveryView>,
  [subscriptionId: string, limit: number, offset: number]
>(
  'webhook_delivery_page',
  `select (select count(*)::int from webhook_delivery where subscription_id = $1::uuid) as total,
          coalesce((select json_agg(json_build_object('id', d.id, 'webhookId', d.webhook_id,
            'eventId', d.event_id, 'status', d.status, 'attempts', d.attempts,
            'lastResponseStatus', d.last_response_status, 'nextAttemptAt', ${rfc3339('d.next_attempt_at')},
            'createdAt', ${rfc3339('d.created_at')}, 'deliveredAt', ${rfc3339('d.delivered_at')})
            order by d.created_at desc, d.id) from (
              select * from webhook_delivery where subscription_id = $1::uuid
              order by created_at desc, id limit $2::int offset $3::bigint) d),
          '[]') as items
   where exists (select 1 from webhook_subscription where id = $1::uuid)`,
);

/** `whsec_` and the base64 of 32 random bytes, as Standard Webhooks spells a signing secret. */
const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

/** This instance's webhook worker, told of a subscription made or deleted here (absent when it is off). */
type SubscriptionWatcher = Pick<Dispatcher, 'subscriptionsChanged'> | undefined;

/** Subscribes an endpoint to every event created or changed; the worker is told. */
export async function subscribe(
  sql: Queryable,
  fields: WebhookSubscriptionFields,
  allowPrivate: boolean,
  worker: SubscriptionWatcher,
): Promise<NewWebhookSubscription> {
  const refused = await refusalOfTarget(new URL(fields.url), allowPrivate);
  if (refused) throw invalidField('url', refused);
  const [{ count } = { count: 0 }] = await sql.query(COUNT_SUBSCRIPTIONS, []);
  if (count >= MAX_WEBHOOK_SUBSCRIPTIONS)
    throw conflict(`There are already ${MAX_WEBHOOK_SUBSCRIPTIONS} webhook subscriptions; delete one first`);
  const subscription = {
    id: randomUUID(),
    url: fields.url,
    description: fields.description ?? null,
    createdAt: new Date().toISOString(),
    secret: newSecret(),
  };
  const { id, url, description, secret, createdAt } = subscription;
  await sql.query(INSERT_SUBSCRIPTION, [id, url, description, secret, createdAt]);
  worker?.subscriptionsChanged();
  return subscription;
}

export async function getSubscription(sql: Queryable, id: string): Promise<WebhookSubscriptionView | null> {
  const [row] = await sql.query(SUBSCRIPTION_BY_ID, [id]);
  return row?.subscription ?? null;
}

/** Subscriptions, oldest first. */
export async function listSubscriptions(
  sql: Queryable,
  page: Page,
): Promise<ListPage<WebhookSubscriptionView>> {
  const [row] = await sql.query(SUBSCRIPTION_PAGE, [page.limit, offsetOf(page)]);
  return row ?? { items: [], total: 0 };
}

/** Deletes a subscription and its deliveries, pending ones included; the worker is told. */
export async function unsubscribe(sql: Queryable, id: string, worker: SubscriptionWatcher): Promise<true> {
  const deleted = await sql.query(DELETE_SUBSCRIPTION, [id]);
  if (deleted.length === 0) throw notFound(`There is no webhook subscription ${id}`);
  worker?.subscriptionsChanged();
  return true;
}

/** A subscription's deliveries, newest first; null when there is no such subscription. */
export async function listDeliveries(
  sql: Queryable,
  subscriptionId: string,
  page: Page,
): Promise<ListPage<WebhookDeliveryView> | null> {
  const [row] = await sql.query(DELIVERY_PAGE, [subscriptionId, page.limit, offsetOf(page)]);
  return row ?? null;
}

/** How long a delivery that is over (delivered or failed) stays listed. */
const DELIVERY_RETENTION_DAYS = 30;

const PURGE_DELIVERIES = statement<never, [retentionDays: number]>(
  'webhook_purge_deliveries',
  `delete from webhook_delivery
   where created_at < now() - make_interval(days => $1::int) and status <> 'pending'`,
);

/** Forgets deliveries that are over and older than DELIVERY_RETENTION_DAYS. */
export async function purgeOldDeliveries(sql: Queryable): Promise<void> {
  await sql.query(PURGE_DELIVERIES, [DELIVERY_RETENTION_DAYS]);
}

export interface WebhookBacklog {
  pending: number;
  oldestSeconds: number;
}

const BACKLOG = statement<WebhookBacklog>(
  'webhook_backlog',
  `select count(*)::int as pending,
          coalesce(extract(epoch from now() - min(created_at)), 0)::float8 as "oldestSeconds"
   from webhook_delivery where status = 'pending'`,
);

/** How many messages wait to be delivered, and for how long the oldest has. */
export async function webhookBacklog(sql: Queryable): Promise<WebhookBacklog> {
  const [row] = await sql.query(BACKLOG, []);
  return row ?? { pending: 0, oldestSeconds: 0 };
}
