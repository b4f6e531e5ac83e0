import { Migration } from '@mikro-orm/migrations';

/**
 * The museum's own cancellations (issue 55): a ticket records who cancelled it and, when the museum did, why;
 * an order whose Checkout Session was replaced (some of its tickets called off while it waited for payment)
 * remembers the sessions it no longer takes, so a payment through one of them is refunded rather than lost.
 * Tickets of events deleted before this change read as cancelled through their event: they become cancelled
 * by the museum, as a deletion now cancels them itself (nothing is refunded or mailed for them afterwards).
 */
export class Migration20261201000000 extends Migration {
  override name = 'Migration20261201000000';

  override up(): void | Promise<void> {
    this.addSql(
      `alter table "ticket" add column "cancelled_by" text null, add column "cancellation_reason" varchar(500) null;`,
    );
    this.addSql(
      `alter table "ticket" add constraint "ticket_cancelled_by_check" check ("cancelled_by" in ('visitor', 'museum'));`,
    );
    this.addSql(
      `alter table "ticket" add constraint "ticket_cancellation_check" check ("cancelled_at" is not null or ("cancelled_by" is null and "cancellation_reason" is null));`,
    );
    this.addSql(
      `update "ticket" t set "cancelled_at" = e."deleted_at", "cancelled_by" = 'museum' from "special_event" e
       where e."id" = t."event_id" and e."deleted_at" is not null and t."cancelled_at" is null and t."checked_in_at" is null;`,
    );
    this.addSql(`alter table "ticket_order" add column "superseded_sessions" text[] not null default '{}';`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "ticket_order" drop column if exists "superseded_sessions";`);
    this.addSql(`alter table "ticket" drop constraint if exists "ticket_cancellation_check";`);
    this.addSql(`alter table "ticket" drop constraint if exists "ticket_cancelled_by_check";`);
    this.addSql(
      `alter table "ticket" drop column if exists "cancelled_by", drop column if exists "cancellation_reason";`,
    );
  }
}
