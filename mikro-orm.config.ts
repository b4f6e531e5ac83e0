import { join } from 'node:path';
import { Migrator } from '@mikro-orm/migrations';
import { defineConfig } from '@mikro-orm/postgresql';
import { Account } from './src/accounts/account.entity.ts';
import { LoginThrottle } from './src/accounts/login-throttle.entity.ts';
import { MuseumClient } from './src/db/pg-client.ts';
import { EventDate, EventDateCount, EventPrice, SpecialEvent } from './src/events/event.entity.ts';
import { DayEntrySlots, EntrySlots } from './src/hours/entry-slots.entity.ts';
import { DayHours, WeeklyHours } from './src/hours/hours.entity.ts';
import { Mail } from './src/mail/mail.entity.ts';
import { Refund, StripeEvent } from './src/payments/payment.entity.ts';
import { PriceCategory } from './src/prices/price-category.entity.ts';
import { PrivacyKey, PrivacyRequest } from './src/privacy/privacy.entity.ts';
import { IdempotencyRecord } from './src/tickets/idempotency.entity.ts';
import { Order } from './src/tickets/order.entity.ts';
import { Ticket } from './src/tickets/ticket.entity.ts';
import { TicketSales } from './src/tickets/ticket-sales.entity.ts';
import { WebhookDelivery, WebhookSubscription } from './src/webhooks/webhook.entity.ts';

export type Connection =
  /** A Unix socket directory served by the embedded PGlite: it takes exactly one connection. */
  | { socketDir: string }
  /**
   * `pooler`: `url` is a transaction pooler, so no connection may carry session state (no SET).
   * `statementTimeoutMs`: PostgreSQL cancels a statement of these connections that runs longer.
   */
  | { url: string; poolSize?: number; pooler?: boolean; statementTimeoutMs?: number };

export const migrationsPath = join(import.meta.dirname, 'src', 'db', 'migrations');

/**
 * What every connection is set to before its first statement, as one simple-protocol message: a generic plan
 * for each prepared statement (those with a parameterised LIMIT were re-planned at every run), and a
 * statement that outlives its operation's deadline cancelled. The embedded database is one session for
 * every connection it ever takes: a new connection starts without the statements an earlier one prepared
 * there, or preparing them again would fail. Behind a transaction pooler a connection is another server
 * session at every transaction: nothing (src/db/sql.ts sends unnamed statements, planned for their values;
 * the pooler's connect_query sets the timeout).
 */
function settingsOf(connection: Connection): string | null {
  if ('url' in connection && connection.pooler) return null;
  const timeout = 'url' in connection ? connection.statementTimeoutMs : undefined;
  return [
    'set plan_cache_mode = force_generic_plan',
    ...(timeout ? [`set statement_timeout = ${Math.trunc(timeout)}`] : []),
    'deallocate all',
  ].join('; ');
}

/** MikroORM options for the museum, over either connection; entities are listed, never discovered. */
export function ormConfig(connection: Connection) {
  const settings = settingsOf(connection);
  return defineConfig({
    ...('socketDir' in connection
      ? {
          host: connection.socketDir,
          port: 5432,
          dbName: 'postgres',
          user: 'postgres',
          pool: { min: 1, max: 1 },
        }
      : { clientUrl: connection.url, pool: { min: 0, max: connection.poolSize ?? 10 } }),
    entities: [
      Account,
      WeeklyHours,
      DayHours,
      EntrySlots,
      DayEntrySlots,
      PriceCategory,
      SpecialEvent,
      EventDate,
      EventPrice,
      // Only so that the schema diff knows the counter table; no code reads it through the ORM.
      EventDateCount,
      Order,
      Ticket,
      TicketSales,
      IdempotencyRecord,
      LoginThrottle,
      WebhookSubscription,
      WebhookDelivery,
      Refund,
      StripeEvent,
      Mail,
      PrivacyRequest,
      PrivacyKey,
    ],
    extensions: [Migrator],
    migrations: {
      path: migrationsPath,
      glob: '!(*.d).ts',
      emit: 'ts',
      snapshot: false,
      silent: true,
      transactional: true,
      allOrNothing: true,
    },
    // Every connection is the service's pg client (src/db/pg-client.ts), through pg-pool's `Client` option,
    // and starts with the settings below (pg-pool's `onConnect`, awaited before the connection is used).
    driverOptions: {
      Client: MuseumClient,
      ...(settings && {
        onConnect: (client: { query(text: string): Promise<unknown> }) => client.query(settings),
      }),
    },
    debug: false,
    allowGlobalContext: false,
  });
}

export default ormConfig({ url: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/museum' });
