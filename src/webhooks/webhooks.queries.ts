import type { ListPage } from '../common/pagination.ts';
import { rfc3339, statement } from '../db/sql.ts';

// The webhooks' SQL: the subscriptions, the outbox that the events' transactions fill, the dispatcher's
// deliveries taken and recorded, and the pages and backlog read from them.

export const COUNT_SUBSCRIPTIONS = statement<{ count: number }>(
  'webhook_count_subscriptions',
  'select count(*)::int as count from webhook_subscription',
);

export const INSERT_SUBSCRIPTION = statement<
  never,
  [id: string, url: string, description: string | null, secret: string, createdAt: string]
>(
  'webhook_insert_subscription',
  `insert into webhook_subscription (id, url, description, secret, created_at)
   values ($1::uuid, $2, $3, $4, $5::timestamptz)`,
);

export const DELETE_SUBSCRIPTION = statement<{ id: string }, [id: string]>(
  'webhook_delete_subscription',
  'delete from webhook_subscription where id = $1::uuid returning id',
);

// One message for every subscription, and the change announced to every instance (NOTIFY is delivered when
// the transaction commits, and not at all if it rolls back): $1 the message's id, $2 and $5 the event's,
// $3 the body, $4 the channel.
export const QUEUE_EVENT_MESSAGES = statement<
  never,
  [webhookId: string, eventId: string, payload: string, channel: string, eventIdText: string]
>(
  'webhook_queue_event_messages',
  `with queued as (
     insert into webhook_delivery (id, webhook_id, subscription_id, event_id, payload, next_attempt_at, created_at)
     select gen_random_uuid(), $1, s.id, $2::uuid, $3, now(), now() from webhook_subscription s
     returning 1)
   select pg_notify($4, json_build_object('eventId', $5::text, 'queued', (select count(*) from queued))::text)`,
);

export interface Taken {
  id: string;
  webhook_id: string;
  payload: string;
  attempts: number;
  url: string;
  secret: string;
}

// Takes due deliveries: rows another worker holds are skipped, and each taken row's next attempt moves a
// lease ahead, so no other worker takes it meanwhile, even after this statement's transaction ends.
export const TAKE_DUE = statement<Taken, [batch: number, leaseSeconds: number]>(
  'webhook_take_due',
  `update webhook_delivery d
     set attempts = d.attempts + 1, next_attempt_at = now() + make_interval(secs => $2::float8)
   from webhook_subscription s
   where s.id = d.subscription_id and d.id in (
     select id from webhook_delivery where status = 'pending' and next_attempt_at <= now()
     order by next_attempt_at limit $1::int for update skip locked)
   returning d.id, d.webhook_id, d.payload, d.attempts, s.url, s.secret`,
);

export const RECORD_ATTEMPT = statement<
  never,
  [
    id: string,
    status: 'delivered' | 'failed' | 'pending',
    responseStatus: number | null,
    response: string,
    retryInSeconds: number,
  ]
>(
  'webhook_record_attempt',
  `update webhook_delivery set status = $2, last_response_status = $3::int, last_response = $4,
     next_attempt_at = case when $2 = 'pending' then now() + make_interval(secs => $5::float8) end,
     delivered_at = case when $2 = 'delivered' then now() end
   where id = $1::uuid`,
);

export const NEXT_DUE = statement<{ seconds: number | null }>(
  'webhook_next_due',
  `select extract(epoch from min(next_attempt_at) - now())::float8 as seconds
   from webhook_delivery where status = 'pending'`,
);

export const ANY_SUBSCRIPTION = statement<{ any: boolean }>(
  'webhook_any_subscription',
  'select exists (select 1 from webhook_subscription) as any',
);

export interface WebhookSubscriptionView {
  id: string;
  url: string;
  description: string | null;
  /** RFC 3339, UTC. */
  createdAt: string;
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

export const SUBSCRIPTION_BY_ID = statement<{ subscription: WebhookSubscriptionView }, [id: string]>(
  'webhook_subscription_by_id',
  `select ${SUBSCRIPTION_JSON} as subscription from webhook_subscription s where s.id = $1::uuid`,
);

export const SUBSCRIPTION_PAGE = statement<
  ListPage<WebhookSubscriptionView>,
  [limit: number, offset: number]
>(
  'webhook_subscription_page',
  `select (select count(*)::int from webhook_subscription) as total,
          coalesce((select json_agg(${SUBSCRIPTION_JSON} order by s.created_at, s.id) from (
            select * from webhook_subscription order by created_at, id limit $1::int offset $2::bigint) s),
          '[]') as items`,
);

export const DELIVERY_PAGE = statement<
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

export const PURGE_DELIVERIES = statement<never, [retentionDays: number]>(
  'webhook_purge_deliveries',
  `delete from webhook_delivery
   where created_at < now() - make_interval(days => $1::int) and status <> 'pending'`,
);

export interface WebhookBacklog {
  pending: number;
  oldestSeconds: number;
}

export const BACKLOG = statement<WebhookBacklog>(
  'webhook_backlog',
  `select count(*)::int as pending,
          coalesce(extract(epoch from now() - min(created_at)), 0)::float8 as "oldestSeconds"
   from webhook_delivery where status = 'pending'`,
);
