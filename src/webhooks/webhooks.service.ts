import { randomBytes, randomUUID } from 'node:crypto';
import { conflict, invalidField, notFound } from '../common/errors.ts';
import { type ListPage, offsetOf, type Page } from '../common/pagination.ts';
import type { Queryable } from '../db/sql.ts';
import type { Dispatcher } from './dispatcher.ts';
import { refusalOfTarget } from './targets.ts';
import {
  BACKLOG,
  COUNT_SUBSCRIPTIONS,
  DELETE_SUBSCRIPTION,
  DELIVERY_PAGE,
  INSERT_SUBSCRIPTION,
  PURGE_DELIVERIES,
  SUBSCRIPTION_BY_ID,
  SUBSCRIPTION_PAGE,
  type WebhookBacklog,
  type WebhookDeliveryView,
  type WebhookSubscriptionView,
} from './webhooks.queries.ts';
import { MAX_WEBHOOK_SUBSCRIPTIONS, type WebhookSubscriptionFields } from './webhooks.rules.ts';

/** The answer to a new subscription: the only time its secret is shown. */
export interface NewWebhookSubscription extends WebhookSubscriptionView {
  secret: string;
}

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

/** Forgets deliveries that are over and older than DELIVERY_RETENTION_DAYS. */
export async function purgeOldDeliveries(sql: Queryable): Promise<void> {
  await sql.query(PURGE_DELIVERIES, [DELIVERY_RETENTION_DAYS]);
}

/** How many messages wait to be delivered, and for how long the oldest has. */
export async function webhookBacklog(sql: Queryable): Promise<WebhookBacklog> {
  const [row] = await sql.query(BACKLOG, []);
  return row ?? { pending: 0, oldestSeconds: 0 };
}
