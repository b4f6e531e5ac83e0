import { Migration } from '@mikro-orm/migrations';

/** The mail outbox (issue 38): each mail owed to a buyer, written with the sale or change it tells of. */
export class Migration20261128000000 extends Migration {
  override name = 'Migration20261128000000';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "mail" ("id" uuid not null, "kind" text not null, "order_id" uuid null, "ticket_ids" uuid[] not null, "recipient" varchar(320) null, "amount" int null, "resent" boolean not null default false, "status" text not null default 'pending', "attempts" int not null default 0, "next_attempt_at" timestamptz null, "last_attempt_at" timestamptz null, "last_error" varchar(500) null, "sent_at" timestamptz null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "mail_due_index" on "mail" ("next_attempt_at") where "status" = 'pending';`);
    // Partial indexes: the mail of a ticket sold on its own (the hot path) has the ticket's id, and is in the
    // due index only while pending.
    this.addSql(
      `create index "mail_order_index" on "mail" ("order_id", "created_at") where "order_id" is not null;`,
    );
    this.addSql(
      `create index "mail_ticket_copies_index" on "mail" (("ticket_ids"[1])) where "resent" and "order_id" is null;`,
    );
    this.addSql(
      `alter table "mail" add constraint "mail_kind_check" check ("kind" in ('tickets', 'cancellation', 'refund', 'expired'));`,
    );
    this.addSql(
      `alter table "mail" add constraint "mail_status_check" check ("status" in ('pending', 'sent', 'failed'));`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "mail" cascade;`);
  }
}
