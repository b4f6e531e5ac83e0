import { Migration } from '@mikro-orm/migrations';

/**
 * A ticket's event and order indexes hold only the tickets that have one: a general admission ticket bought
 * alone (most of them) was entered into both under a null, two index insertions per purchase that no query
 * reads (`event_id = …` and `order_id = …` never match a null).
 */
export class Migration20261125000000 extends Migration {
  override name = 'Migration20261125000000';

  override up(): void {
    this.addSql(`drop index "ticket_event_id_ticket_date_index";`);
    this.addSql(
      `create index "ticket_event_id_ticket_date_index" on "ticket" ("event_id", "ticket_date") where "event_id" is not null;`,
    );
    this.addSql(`drop index "ticket_order_id_index";`);
    this.addSql(
      `create index "ticket_order_id_index" on "ticket" ("order_id") where "order_id" is not null;`,
    );
  }

  override down(): void {
    this.addSql(`drop index "ticket_order_id_index";`);
    this.addSql(`create index "ticket_order_id_index" on "ticket" ("order_id");`);
    this.addSql(`drop index "ticket_event_id_ticket_date_index";`);
    this.addSql(`create index "ticket_event_id_ticket_date_index" on "ticket" ("event_id", "ticket_date");`);
  }
}
