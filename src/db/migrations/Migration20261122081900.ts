import { Migration } from '@mikro-orm/migrations';

/**
 * The listing index also carries each row's previous date, so both the page query and the count of a
 * range are answered from the index alone (the count visited the table for every match: 7 ms a week at
 * 100 000 events).
 */
export class Migration20261122081900 extends Migration {
  override name = 'Migration20261122081900';

  override up(): void {
    this.addSql(`drop index "special_event_date_listing_idx";`);
    this.addSql(
      `create index "special_event_date_listing_idx" on "special_event_date" ("date", "name", "event_id") include ("previous_date") where "listed";`,
    );
  }
}
