import { DomainError } from '../common/errors.ts';
import type { Database } from '../db/database.ts';
import type { Listening } from '../db/sql.ts';
import type { Logger } from '../logger.ts';
import { EVENT_CHANNEL } from '../webhooks/outbox.ts';
import { type EventView, getEvent } from './events.service.ts';

/** Events created or changed, as they commit, for the `specialEventPublished` subscription. */
export interface EventFeed {
  /** `event` was created or changed on this instance, and its transaction has committed. */
  committed(event: EventView): void;
  /**
   * Every event published from now on, on any instance, until the consumer returns (the client went away)
   * or the feed closes. An account may hold `maxPerAccount` at once: one more is TOO_MANY_REQUESTS.
   */
  subscribe(account: string, until?: AbortSignal): AsyncIterable<EventView>;
  /** Subscriptions open on this instance. */
  size(): number;
  /** Ends every subscription (their streams complete) and stops listening. */
  close(): Promise<void>;
}

/** Changes kept for a subscriber that has not taken them yet. */
const MAX_QUEUED = 100;

interface Announcement {
  eventId: string;
  /** Webhook messages the change queued. */
  queued: number;
}

/**
 * On PostgreSQL the change's transaction NOTIFYs every instance (src/webhooks/outbox.ts,
 * queueEventMessages), this one included; each instance reads the event once and hands it to its own
 * subscribers, and wakes its webhook worker when messages were queued. The embedded database has one
 * instance: what commits here is handed over directly.
 */
export function createEventFeed(options: {
  db: Database;
  logger: Logger;
  maxPerAccount: number;
  /** Webhook messages may have been queued. */
  onQueued(): void;
}): EventFeed {
  const { db, logger } = options;
  const subscribers = new Set<(event: EventView) => void>();
  const perAccount = new Map<string, number>();
  const open = new Set<() => void>();
  let closed = false;

  const publish = (event: EventView) => {
    for (const push of subscribers) push(event);
  };

  let listening: Listening | undefined;
  if (db.kind === 'postgres') {
    listening = db.sql.listen(
      EVENT_CHANNEL,
      (payload) => {
        let announced: Announcement;
        try {
          announced = JSON.parse(payload) as Announcement;
        } catch {
          return;
        }
        if (announced.queued > 0) options.onQueued();
        if (subscribers.size === 0) return;
        getEvent(db.sql, announced.eventId).then(
          (event) => event && publish(event),
          (error) => logger.warn('reading a published event failed', { error: String(error) }),
        );
      },
      (error) => logger.warn('event announcements interrupted; listening again', { error: String(error) }),
    );
  }

  return {
    committed(event) {
      if (db.kind === 'postgres') return;
      options.onQueued();
      publish(event);
    },

    subscribe(account, until) {
      const held = perAccount.get(account) ?? 0;
      if (held >= options.maxPerAccount)
        throw new DomainError(
          'tooManyRequests',
          `This account already holds ${options.maxPerAccount} specialEventPublished subscriptions; close one first`,
        );
      perAccount.set(account, held + 1);
      // Registered now, not at the first next(): nothing published from here on is missed, and the count is
      // given back however the consumer ends (even one that returns before it ever asked for an event).
      const queue: EventView[] = [];
      let waiting: (() => void) | null = null;
      let done = false;
      const deliver = (event: EventView) => {
        // A consumer this far behind gets the latest changes only.
        if (queue.push(event) > MAX_QUEUED) queue.shift();
        waiting?.();
      };
      // A consumer that returned is not woken: yoga's SSE stream, already cancelled then, would write its
      // closing lines into it and fail (an unhandled rejection). The feed closing wakes it, to end the stream.
      const finish = (wake: boolean) => {
        if (done) return;
        done = true;
        subscribers.delete(deliver);
        open.delete(close);
        const left = (perAccount.get(account) ?? 1) - 1;
        if (left > 0) perAccount.set(account, left);
        else perAccount.delete(account);
        if (wake) waiting?.();
        else waiting = null;
      };
      const close = () => finish(true);
      subscribers.add(deliver);
      open.add(close);
      // A client that went away (its connection closed) ends the stream and gives its place back.
      until?.addEventListener('abort', close, { once: true });
      if (closed || until?.aborted) close();
      const ended = { value: undefined, done: true } as const;
      const iterator: AsyncIterableIterator<EventView> = {
        async next() {
          while (queue.length === 0 && !done)
            await new Promise<void>((resolve) => {
              waiting = resolve;
            });
          waiting = null;
          const event = queue.shift();
          return event ? { value: event, done: false } : ended;
        },
        async return() {
          finish(false);
          return ended;
        },
        async throw(error) {
          finish(false);
          throw error;
        },
        [Symbol.asyncIterator]() {
          return iterator;
        },
      };
      return iterator;
    },

    size: () => subscribers.size,

    async close() {
      closed = true;
      for (const close of [...open]) close();
      await listening?.stop();
    },
  };
}
