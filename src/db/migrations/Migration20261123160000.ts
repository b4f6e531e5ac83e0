import { Migration } from '@mikro-orm/migrations';

/**
 * Webhooks: the partners' subscriptions, and the outbox of messages to deliver to them, written in the
 * same transaction as the event change they announce. Workers of any instance take due rows with
 * `for update skip locked` through the partial index of pending rows.
 */
export class Migration20261123160000 extends Migration {
  override name = 'Migration20261123160000';

  override up(): void {
    this.addSql(
      `create table "webhook_subscription" ("id" uuid not null, "url" varchar(2048) not null, "description" varchar(500) null, "secret" varchar(100) not null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `create index "webhook_subscription_created_at_index" on "webhook_subscription" ("created_at", "id");`,
    );
    this.addSql(
      `create table "webhook_delivery" ("id" uuid not null, "webhook_id" varchar(64) not null, "subscription_id" uuid not null, "event_id" uuid not null, "payload" text not null, "status" text not null default 'pending', "attempts" int not null default 0, "last_response_status" int null, "last_response" varchar(1100) null, "next_attempt_at" timestamptz null, "created_at" timestamptz not null, "delivered_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(
      `create index "webhook_delivery_subscription_index" on "webhook_delivery" ("subscription_id", "created_at", "id");`,
    );
    this.addSql(`create index "webhook_delivery_created_at_index" on "webhook_delivery" ("created_at");`);
    this.addSql(
      `create index "webhook_delivery_due_index" on "webhook_delivery" ("next_attempt_at") where "status" = 'pending';`,
    );
    this.addSql(
      `alter table "webhook_delivery" add constraint "webhook_delivery_subscription_id_foreign" foreign key ("subscription_id") references "webhook_subscription" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "webhook_delivery" add constraint "webhook_delivery_status_check" check ("status" in ('pending', 'delivered', 'failed'));`,
    );
  }

  override down(): void {
    this.addSql(`drop table if exists "webhook_delivery" cascade;`);
    this.addSql(`drop table if exists "webhook_subscription" cascade;`);
  }
}
