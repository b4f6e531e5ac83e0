import { Migration } from '@mikro-orm/migrations';

/**
 * Paying for a visit (issue 37): an order's state and its hold, its Stripe Checkout Session and payment; a
 * ticket whose order is not paid yet; the refund outbox; the Stripe events that took effect. Orders placed
 * before are confirmed, or cancelled when every ticket of theirs was given back.
 */
export class Migration20261127000000 extends Migration {
  override name = 'Migration20261127000000';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "refund" ("id" uuid not null, "order_id" uuid not null, "amount" int not null, "payment_intent" varchar(255) not null, "reason" text not null, "status" text not null default 'pending', "attempts" int not null default 0, "next_attempt_at" timestamptz null, "stripe_refund_id" varchar(255) null, "last_error" varchar(500) null, "created_at" timestamptz not null, "refunded_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(`create index "refund_order_id_index" on "refund" ("order_id");`);
    this.addSql(
      `create index "refund_due_index" on "refund" ("next_attempt_at") where "status" = 'pending';`,
    );

    this.addSql(
      `create table "stripe_event" ("id" varchar(255) not null, "type" varchar(100) not null, "received_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "stripe_event_received_at_index" on "stripe_event" ("received_at");`);

    this.addSql(
      `alter table "ticket_order" add "status" text not null default 'confirmed', add "expires_at" timestamptz null, add "checkout_session_id" varchar(255) null, add "checkout_url" varchar(2048) null, add "paid_amount" int null, add "payment_intent" varchar(255) null;`,
    );
    this.addSql(
      `alter table "ticket_order" add constraint "ticket_order_checkout_session_id_key" unique ("checkout_session_id");`,
    );
    this.addSql(
      `create index "ticket_order_expires_at_index" on "ticket_order" ("expires_at") where "status" = 'pending';`,
    );
    this.addSql(
      `alter table "ticket_order" add constraint "ticket_order_hold_check" check ("status" <> 'pending' or "expires_at" is not null);`,
    );
    this.addSql(
      `alter table "ticket_order" add constraint "ticket_order_status_check" check ("status" in ('pending', 'confirmed', 'expired', 'cancelled', 'refunded'));`,
    );

    this.addSql(`alter table "ticket" add "awaiting_payment" boolean not null default false;`);
    this.addSql(`update "ticket_order" o set "status" = 'cancelled'
      where not exists (select from "ticket" t where t."order_id" = o."id" and t."cancelled_at" is null);`);

    this.addSql(
      `alter table "refund" add constraint "refund_order_id_foreign" foreign key ("order_id") references "ticket_order" ("id") on delete no action;`,
    );
    this.addSql(`alter table "refund" add constraint "refund_amount_check" check ("amount" > 0);`);
    this.addSql(
      `alter table "refund" add constraint "refund_reason_check" check ("reason" in ('cancelled', 'late_payment'));`,
    );
    this.addSql(
      `alter table "refund" add constraint "refund_status_check" check ("status" in ('pending', 'succeeded', 'failed'));`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "refund" cascade;`);
    this.addSql(`drop table if exists "stripe_event" cascade;`);

    this.addSql(`alter table "ticket" drop column "awaiting_payment";`);

    this.addSql(`alter table "ticket_order" drop constraint "ticket_order_checkout_session_id_key";`);
    this.addSql(`drop index "ticket_order_expires_at_index";`);
    this.addSql(`alter table "ticket_order" drop constraint "ticket_order_hold_check";`);
    this.addSql(`alter table "ticket_order" drop constraint "ticket_order_status_check";`);
    this.addSql(
      `alter table "ticket_order" drop column "status", drop column "expires_at", drop column "checkout_session_id", drop column "checkout_url", drop column "paid_amount", drop column "payment_intent";`,
    );
  }
}
