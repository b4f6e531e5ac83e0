import { Migration } from '@mikro-orm/migrations';

/**
 * Buyers' personal data (issue 39): a buyer's address may be erased from tickets and orders (the sale stays),
 * each export and erasure is recorded without the address in clear, and the key of that record's hash is kept.
 */
export class Migration20261130000000 extends Migration {
  override name = 'Migration20261130000000';

  override up(): void | Promise<void> {
    this.addSql(`alter table "ticket" alter column "email" drop not null;`);
    this.addSql(`alter table "ticket_order" alter column "email" drop not null;`);
    this.addSql(
      `create table "privacy_request" ("id" uuid not null, "kind" text not null, "requested_by" text not null, "account_id" uuid null, "subject_hash" varchar(64) null, "retention_date" date null, "orders" int not null default 0, "tickets" int not null default 0, "mails" int not null default 0, "idempotency_records" int not null default 0, "accounts" int not null default 0, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "privacy_request_created_at_index" on "privacy_request" ("created_at", "id");`);
    this.addSql(
      `create index "privacy_request_subject_hash_index" on "privacy_request" ("subject_hash") where "subject_hash" is not null;`,
    );
    this.addSql(
      `alter table "privacy_request" add constraint "privacy_request_retention_date_key" unique ("retention_date");`,
    );
    this.addSql(
      `alter table "privacy_request" add constraint "privacy_request_kind_check" check ("kind" in ('export', 'erasure', 'account_deletion', 'retention'));`,
    );
    this.addSql(
      `alter table "privacy_request" add constraint "privacy_request_requested_by_check" check ("requested_by" in ('staff', 'account_holder', 'retention'));`,
    );
    this.addSql(
      `create table "privacy_key" ("id" smallint not null, "key" varchar(128) not null, primary key ("id"));`,
    );
    this.addSql(`alter table "privacy_key" add constraint "privacy_key_one_row_check" check ("id" = 1);`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "privacy_key" cascade;`);
    this.addSql(`drop table if exists "privacy_request" cascade;`);
  }
}
