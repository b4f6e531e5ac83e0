import type { Authentication, Authenticator, Principal } from './accounts/authenticator.ts';
import type { LoginThrottler } from './accounts/throttling.ts';
import type { CheckInOutcome } from './check-ins/check-ins.rules.ts';
import type { Clock } from './common/dates.ts';
import type { Config } from './config.ts';
import type { Database } from './db/database.ts';
import type { EventFeed } from './events/event-feed.ts';
import type { Logger } from './logger.ts';
import type { Mailer } from './mail/mailer.ts';
import type { Payments } from './payments/payments.ts';
import type { ForgetMails } from './privacy/privacy.service.ts';
import type { CallOff } from './tickets/call-off.ts';
import type { Dispatcher } from './webhooks/dispatcher.ts';

/** What the domains count in the metrics (src/metrics/metrics.ts implements it). */
export interface DomainCounters {
  checkIn(outcome: CheckInOutcome): void;
  ticketSold(ticketType: string, category: string): void;
}

/** What the app is built from; passed in, never imported as module state. */
export interface AppDeps {
  config: Config;
  db: Database;
  clock: Clock;
  authenticator: Authenticator;
  logger: Logger;
  /** Failed-login counters shared through the database (absent: no throttling). */
  throttle?: LoginThrottler;
  /** Events as their changes commit, for `specialEventPublished` (src/events/event-feed.ts). */
  feed: EventFeed;
  /** This instance's webhook worker (src/webhooks/dispatcher.ts); absent with MUSEUM_WEBHOOK_WORKER=off. */
  webhooks?: Dispatcher;
  /** Payments through Stripe (MUSEUM_PAYMENTS=stripe); absent: orders are confirmed at once. */
  payments?: Payments;
  /** This instance's mail worker (src/mail/mailer.ts): told when a transaction queued a mail. */
  mail?: Mailer;
  /** The museum's own cancellations: tickets of an event deleted, of dates dropped, of a day closed. */
  callOff: CallOff;
  /** Removes what the mail transport keeps of these mails outside the database (`.eml` files), after an erasure. */
  forgetMails: ForgetMails;
  /** What the domains count themselves (check-ins by outcome, tickets sold); absent while metrics are off. */
  metrics?: DomainCounters;
}

/**
 * One request's view: who is asking, and what the app is built from. Reads go through prepared SQL
 * (`deps.db.sql`), and so does a write, in a transaction of its own (`deps.db.sql.transaction`).
 */
export interface RequestContext {
  deps: AppDeps;
  auth: Authentication;
  /** The authenticated account, or null; fields that need one are guarded by auth scopes. */
  principal: Principal | null;
  /** The request's `Idempotency-Key` header, unchecked. */
  idempotencyKey: string | null;
  /**
   * What the resolvers of this request share (a page of events and its total), by a key of their own. On
   * the context, not in a WeakMap keyed by it: V8's young-generation collector keeps a WeakMap's values
   * alive, so they would be promoted and outlive the request until a full collection.
   */
  shared: Map<string, unknown>;
  /** Ends when the caller goes away (src/graphql/operations.ts): a subscription's stream ends with it. */
  signal?: AbortSignal;
}
