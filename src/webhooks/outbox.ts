import { randomUUID } from 'node:crypto';
import { toAmount } from '../common/money.ts';
import type { Queryable } from '../db/sql.ts';
import { QUEUE_EVENT_MESSAGES } from './webhooks.queries.ts';

// The outbox of event changes: what the transaction that creates or changes an event leaves behind for the
// webhook worker (a message per subscription) and for every instance (an announcement). The events service
// calls it and the event feed listens to it; it knows of an event only what the message needs, so it
// imports nothing from src/events.

/** The channel on which a committed event change is announced to every instance (LISTEN/NOTIFY). */
export const EVENT_CHANNEL = 'museum_event_published';

/** What the outbox needs of an event: the rest of its fields go into the message as they are. */
export interface OutboxEvent {
  eventId: string;
  capacity: number | null;
  version: number;
  /** Hundredths of the currency, as the services keep them. */
  ownPrices?: { category: string; price: number }[] | null;
}

/**
 * The webhook body: the event exactly as `GET /special-events/{eventId}` answers it (REST leaves out a
 * capacity that is null, answers the categories' own prices as `prices` when there are some, and leaves out
 * the version, which is its ETag there).
 */
function eventMessage(event: OutboxEvent, deletion?: EventDeletion): string {
  const { version: _version, capacity, ownPrices, ...fields } = event;
  return JSON.stringify({
    ...fields,
    ...(capacity === null ? {} : { capacity }),
    ...(ownPrices
      ? { prices: ownPrices.map(({ category, price }) => ({ category, price: toAmount(price) })) }
      : {}),
    ...(deletion
      ? {
          cancelled: true,
          ...(deletion.cancellationReason ? { cancellationReason: deletion.cancellationReason } : {}),
        }
      : {}),
  });
}

/** A deleted event's last message: the event as it was, `cancelled`, with the reason staff gave (if any). */
export interface EventDeletion {
  cancelled: true;
  cancellationReason: string | null;
}

/**
 * Called inside the transaction that created or changed `event`: queues one message for every subscription
 * in the outbox, and announces the change to every instance (NOTIFY is delivered when the transaction
 * commits, and not at all if it rolls back). One statement.
 */
export async function queueEventMessages(
  tx: Queryable,
  event: OutboxEvent,
  deletion?: EventDeletion,
): Promise<void> {
  await tx.query(QUEUE_EVENT_MESSAGES, [
    `msg_${randomUUID()}`,
    event.eventId,
    eventMessage(event, deletion),
    EVENT_CHANNEL,
    event.eventId,
  ]);
}
