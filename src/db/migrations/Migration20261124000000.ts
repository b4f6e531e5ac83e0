import { Migration } from '@mikro-orm/migrations';

/**
 * A visit (issue 27): the `gate` role (a door scanner); orders of several tickets (`ticket_order`, which the
 * tickets bought in one point at, in the order of its lines); when a ticket was checked in at the door or
 * cancelled (never both).
 */
export class Migration20261124000000 extends Migration {
  override name = 'Migration20261124000000';

  override up(): void {
    this.addSql(`alter table "account" drop constraint "account_role_check";`);
    this.addSql(
      `alter table "account" add constraint "account_role_check" check ("role" in ('visitor', 'staff', 'gate'));`,
    );

    this.addSql(`create table "ticket_order" (
      "id" uuid not null primary key,
      "account_id" uuid null,
      "email" varchar(254) not null,
      "created_at" timestamptz not null);`);
    this.addSql(`create index "ticket_order_account_id_index" on "ticket_order" ("account_id");`);
    this.addSql(
      `alter table "ticket_order" add constraint "ticket_order_account_id_foreign" foreign key ("account_id") references "account" ("id") on delete set null;`,
    );

    this.addSql(`alter table "ticket"
      add column "order_id" uuid null,
      add column "order_position" smallint null,
      add column "checked_in_at" timestamptz null,
      add column "cancelled_at" timestamptz null;`);
    this.addSql(`create index "ticket_order_id_index" on "ticket" ("order_id");`);
    this.addSql(
      `alter table "ticket" add constraint "ticket_order_id_foreign" foreign key ("order_id") references "ticket_order" ("id");`,
    );
    this.addSql(
      `alter table "ticket" add constraint "ticket_order_check" check (("order_id" is null) = ("order_position" is null));`,
    );
    this.addSql(
      `alter table "ticket" add constraint "ticket_visit_check" check ("checked_in_at" is null or "cancelled_at" is null);`,
    );
  }

  override down(): void {
    this.addSql(`alter table "ticket" drop constraint "ticket_visit_check";`);
    this.addSql(`alter table "ticket" drop constraint "ticket_order_check";`);
    this.addSql(`alter table "ticket" drop constraint "ticket_order_id_foreign";`);
    this.addSql(`alter table "ticket"
      drop column "order_id", drop column "order_position", drop column "checked_in_at", drop column "cancelled_at";`);
    this.addSql(`drop table if exists "ticket_order" cascade;`);
    this.addSql(`delete from "account" where "role" = 'gate';`);
    this.addSql(`alter table "account" drop constraint "account_role_check";`);
    this.addSql(
      `alter table "account" add constraint "account_role_check" check ("role" in ('visitor', 'staff'));`,
    );
  }
}
