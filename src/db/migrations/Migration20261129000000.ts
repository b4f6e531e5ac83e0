import { Migration } from '@mikro-orm/migrations';

/**
 * The tickets mail of a ticket sold on its own is owed as a flag on the ticket, which the mail worker turns
 * into its outbox row (issue 38): the sale writes one row and one small partial index entry, not two rows.
 * Mails already queued stay in the outbox as they are.
 */
export class Migration20261129000000 extends Migration {
  override name = 'Migration20261129000000';

  override up(): void | Promise<void> {
    this.addSql(`alter table "ticket" add column "mail_owed" boolean not null default false;`);
    this.addSql(`create index "ticket_mail_owed_index" on "ticket" ("created_at") where "mail_owed";`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index if exists "ticket_mail_owed_index";`);
    this.addSql(`alter table "ticket" drop column if exists "mail_owed";`);
  }
}
