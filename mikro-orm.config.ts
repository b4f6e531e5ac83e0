import { join } from 'node:path';
import { Migrator } from '@mikro-orm/migrations';
import { defineConfig } from '@mikro-orm/postgresql';
import { CompiledQuery } from 'kysely';
import { Account } from './src/accounts/account.entity.ts';
import { LoginThrottle } from './src/accounts/login-throttle.entity.ts';
import { MuseumClient } from './src/db/pg-client.ts';
import { EventDate, EventDateCount, EventPrice, SpecialEvent } from './src/events/event.entity.ts';
import { DayEntrySlots, EntrySlots } from './src/hours/entry-slots.entity.ts';
import { DayHours, WeeklyHours } from './src/hours/hours.entity.ts';
import { Mail } from './src/mail/mail.entity.ts';
import { Order } from './src/orders/order.entity.ts';
import { Refund, StripeEvent } from './src/payments/payment.entity.ts';
import { PriceCategory } from './src/prices/price-category.entity.ts';
import { PrivacyKey, PrivacyRequest } from './src/privacy/privacy.entity.ts';
import { IdempotencyRecord } from './src/tickets/idempotency.entity.ts';
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

/** MikroORM options for the museum, over either connection; entities are listed, never discovered. */
export function ormConfig(connection: Connection) {
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
    // Statements with a parameterised LIMIT were re-planned on every run; a generic plan is reused. A
    // statement that outlives its operation's deadline is cancelled. Behind a transaction pooler a connection
    // is a different server session at every transaction: no SET there (src/db/sql.ts sends unnamed
    // statements, planned for their values anyway; the pooler's connect_query sets the timeout).
    ...('url' in connection && connection.pooler
      ? {}
      : {
          onCreateConnection: async (created: unknown) => {
            const timeout = 'url' in connection ? connection.statementTimeoutMs : undefined;
            const settings = [
              'set plan_cache_mode = force_generic_plan',
              ...(timeout ? [`set statement_timeout = ${Math.trunc(timeout)}`] : []),
            ];
            // One round trip: a query without parameters goes as one simple-protocol message.
            await (created as { executeQuery(query: CompiledQuery): Promise<unknown> }).executeQuery(
              CompiledQuery.raw(settings.join('; ')),
            );
          },
        }),
    // Every connection is the service's pg client (src/db/pg-client.ts), through pg-pool's `Client` option.
    driverOptions: { Client: MuseumClient },
    debug: false,
    allowGlobalContext: false,
  });
}

export default ormConfig({ url: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/museum' });
