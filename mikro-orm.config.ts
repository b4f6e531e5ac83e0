// The entities, for MikroORM's tools only: `npm run db:migration:create` (src/cli/create-migration.ts) and the
// schema test compare them with the migrations. The service itself reads and writes by typed statements
// (src/db/sql.ts) and applies the migrations without them (src/db/migrate.ts).
import { Migrator } from '@mikro-orm/migrations';
import { defineConfig } from '@mikro-orm/postgresql';
import { Account } from './src/accounts/account.entity.ts';
import { LoginThrottle } from './src/accounts/login-throttle.entity.ts';
import { type Connection, settingsOf } from './src/db/connection.ts';
import { migrationOptions } from './src/db/migrate.ts';
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

/** Every entity, listed, never discovered. */
export const entities = [
  Account,
  WeeklyHours,
  DayHours,
  EntrySlots,
  DayEntrySlots,
  PriceCategory,
  SpecialEvent,
  EventDate,
  EventPrice,
  // Only so that the schema diff knows the counter table, kept by triggers.
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
];

/** MikroORM options for the museum's entities and migrations, over either connection (MikroORM's CLI). */
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
    entities,
    extensions: [Migrator],
    migrations: migrationOptions,
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
