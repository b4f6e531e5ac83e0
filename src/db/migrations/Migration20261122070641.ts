import { Migration } from '@mikro-orm/migrations';

export class Migration20261122070641 extends Migration {
  override name = 'Migration20261122070641';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "login_throttle" ("key" varchar(100) not null, "failures" int not null, "window_started_at" timestamptz not null, "blocked_until" timestamptz null, primary key ("key"));`,
    );
    this.addSql(
      `create index "login_throttle_window_started_at_index" on "login_throttle" ("window_started_at");`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "login_throttle" cascade;`);
  }
}
