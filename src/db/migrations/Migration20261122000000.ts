import { Migration } from '@mikro-orm/migrations';

/** The museum's schema, and the regular weekly schedule every new database starts with. */
export class Migration20261122000000 extends Migration {
  override name = 'Migration20261122000000';

  override up(): void {
    this.addSql(`create table "account" (
      "id" uuid not null primary key,
      "name" varchar(64) not null constraint "account_name_key" unique,
      "role" text not null constraint "account_role_check" check ("role" in ('visitor', 'staff')),
      "password_hash" text not null,
      "created_at" timestamptz not null);`);

    this.addSql(`create table "weekly_hours" (
      "weekday" smallint primary key constraint "weekly_hours_weekday_check" check ("weekday" between 1 and 7),
      "time_open" time(0) null,
      "time_close" time(0) null,
      constraint "weekly_hours_times_check" check (("time_open" is null and "time_close" is null) or "time_open" < "time_close"));`);

    this.addSql(`create table "day_hours" (
      "date" date not null primary key,
      "time_open" time(0) null,
      "time_close" time(0) null,
      constraint "day_hours_times_check" check (("time_open" is null and "time_close" is null) or "time_open" < "time_close"));`);

    this.addSql(`create table "special_event" (
      "id" uuid not null primary key,
      "name" varchar(200) not null,
      "location" varchar(200) not null,
      "event_description" varchar(5000) not null,
      "price" numeric(9,2) not null constraint "special_event_price_check" check ("price" between 0 and 1000000),
      "deleted_at" timestamptz null,
      "created_at" timestamptz not null);`);

    // Names sort by code point ("C"): the same order on every server, whatever its locale.
    this.addSql(`create table "special_event_date" (
      "event_id" uuid not null constraint "special_event_date_event_id_foreign" references "special_event" ("id") on delete cascade,
      "date" date not null,
      "name" varchar(200) collate "C" not null,
      "previous_date" date null,
      "listed" boolean not null default true,
      primary key ("event_id", "date"));`);
    this.addSql(
      `create index "special_event_date_listing_idx" on "special_event_date" ("date", "name", "event_id") where "listed";`,
    );

    this.addSql(`create table "ticket" (
      "id" uuid not null primary key,
      "account_id" uuid not null constraint "ticket_account_id_foreign" references "account" ("id"),
      "ticket_type" text not null constraint "ticket_ticket_type_check" check ("ticket_type" in ('general', 'event')),
      "ticket_date" date not null,
      "event_id" uuid null constraint "ticket_event_id_foreign" references "special_event" ("id"),
      "email" varchar(254) not null,
      "confirmation_code" varchar(32) not null constraint "ticket_confirmation_code_key" unique,
      "created_at" timestamptz not null,
      constraint "ticket_event_check" check (("ticket_type" = 'event') = ("event_id" is not null)));`);
    this.addSql(`create index "ticket_account_id_index" on "ticket" ("account_id");`);
    this.addSql(`create index "ticket_event_id_ticket_date_index" on "ticket" ("event_id", "ticket_date");`);
    this.addSql(`create index "ticket_ticket_date_index" on "ticket" ("ticket_date");`);

    this.addSql(`insert into "weekly_hours" ("weekday", "time_open", "time_close") values
      (1, '09:00', '18:00'), (2, '09:00', '18:00'), (3, '09:00', '18:00'), (4, '09:00', '18:00'),
      (5, '10:00', '16:00'), (6, null, null), (7, null, null);`);
  }
}
