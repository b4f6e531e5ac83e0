import { Migration } from '@mikro-orm/migrations';

export class Migration20261122063858 extends Migration {
  override name = 'Migration20261122063858';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "idempotency_record" ("account_id" uuid not null, "key" varchar(255) not null, "request_hash" varchar(64) not null, "response" jsonb null, "created_at" timestamptz not null, primary key ("account_id", "key"));`,
    );
    this.addSql(`create index "idempotency_record_created_at_index" on "idempotency_record" ("created_at");`);

    this.addSql(
      `create table "ticket_sales" ("scope" varchar(36) not null, "date" date not null, "sold" int not null, primary key ("scope", "date"));`,
    );

    this.addSql(`alter table "ticket" drop constraint "ticket_account_id_foreign";`);

    this.addSql(`alter table "special_event" add "capacity" int null;`);

    this.addSql(`alter table "ticket" alter column "account_id" drop not null;`);
    this.addSql(
      `alter table "ticket" add constraint "ticket_account_id_foreign" foreign key ("account_id") references "account" ("id") on delete set null;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "idempotency_record" cascade;`);
    this.addSql(`drop table if exists "ticket_sales" cascade;`);

    this.addSql(`alter table "ticket" drop constraint "ticket_account_id_foreign";`);

    this.addSql(`alter table "special_event" drop column "capacity";`);

    this.addSql(`alter table "ticket" alter column "account_id" set not null;`);
    this.addSql(
      `alter table "ticket" add constraint "ticket_account_id_foreign" foreign key ("account_id") references "account" ("id") on update no action on delete no action;`,
    );
  }
}
