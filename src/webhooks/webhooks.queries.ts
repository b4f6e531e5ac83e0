import { statement } from '../db/sql.ts';

// The webhooks' SQL: the subscriptions, and the outbox that the events' transactions fill.

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
