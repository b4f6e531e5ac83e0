import { Migration } from '@mikro-orm/migrations';

/**
 * Each event's version, raised by every change: its entity tag (`ETag: "v3"`, GraphQL `version`), which
 * `If-Match` (REST) and `ifMatch` (GraphQL) compare against while the event's row is locked.
 */
export class Migration20261123140000 extends Migration {
  override name = 'Migration20261123140000';

  override up(): void {
    this.addSql(`alter table "special_event" add column "version" int not null default 1;`);
  }

  override down(): void {
    this.addSql(`alter table "special_event" drop column "version";`);
  }
}
