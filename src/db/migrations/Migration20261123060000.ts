import { Migration } from '@mikro-orm/migrations';

/**
 * Login attempts are reserved before the password check, per (address, account name) pair, per address and
 * per account name; each row carries the limit past which its key is refused (none for an account name,
 * which is only slowed, so that nobody can lock another person out). Rows of the old scheme are dropped.
 */
export class Migration20261123060000 extends Migration {
  override name = 'Migration20261123060000';

  override up(): void {
    this.addSql(`delete from "login_throttle";`);
    this.addSql(`alter table "login_throttle" add column "failure_limit" int null;`);
  }

  override down(): void {
    this.addSql(`alter table "login_throttle" drop column "failure_limit";`);
  }
}
