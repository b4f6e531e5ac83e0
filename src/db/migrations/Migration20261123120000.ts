import { Migration } from '@mikro-orm/migrations';

/**
 * X-Total-Count without counting the range: listed date rows counted per (date, previous date), kept by
 * triggers on special_event_date ('-infinity' stands for no previous date, so the key has no null). A range
 * [s, e] has as many events as the rows with date in [s, e] and previous date before s: summing the
 * counters reads one row per (day, distinct previous date) instead of one per event.
 */
export class Migration20261123120000 extends Migration {
  override name = 'Migration20261123120000';

  override up(): void {
    this.addSql(`create table "special_event_date_count" (
      "date" date not null,
      "previous_date" date not null,
      "row_count" int not null,
      primary key ("date", "previous_date"));`);

    // Statement triggers: an event's dates are written by one statement, which then changes each counter
    // once, in key order, so concurrent writers take the counters' row locks in the same order.
    this.addSql(`create function "special_event_date_count_update"() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into special_event_date_count as c (date, previous_date, row_count)
    select date, coalesce(previous_date, '-infinity'), count(*) from added where listed
    group by 1, 2 order by 1, 2
    on conflict (date, previous_date) do update set row_count = c.row_count + excluded.row_count;
  elsif tg_op = 'DELETE' then
    insert into special_event_date_count as c (date, previous_date, row_count)
    select date, coalesce(previous_date, '-infinity'), -count(*) from removed where listed
    group by 1, 2 order by 1, 2
    on conflict (date, previous_date) do update set row_count = c.row_count + excluded.row_count;
  else
    insert into special_event_date_count as c (date, previous_date, row_count)
    select date, previous_date, sum(change) from (
      select date, coalesce(previous_date, '-infinity') as previous_date, 1 as change from added where listed
      union all
      select date, coalesce(previous_date, '-infinity'), -1 from removed where listed
    ) changes
    group by 1, 2 having sum(change) <> 0 order by 1, 2
    on conflict (date, previous_date) do update set row_count = c.row_count + excluded.row_count;
  end if;
  return null;
end $$;`);

    // A trigger with transition tables serves one event, hence three. They lock special_event_date against
    // writes until the migration commits, so the backfill below is exact.
    this.addSql(`create trigger "special_event_date_count_insert" after insert on "special_event_date"
      referencing new table as added for each statement execute function "special_event_date_count_update"();`);
    this.addSql(`create trigger "special_event_date_count_update" after update on "special_event_date"
      referencing old table as removed new table as added for each statement execute function "special_event_date_count_update"();`);
    this.addSql(`create trigger "special_event_date_count_delete" after delete on "special_event_date"
      referencing old table as removed for each statement execute function "special_event_date_count_update"();`);

    this.addSql(`insert into "special_event_date_count" ("date", "previous_date", "row_count")
      select "date", coalesce("previous_date", '-infinity'), count(*) from "special_event_date"
      where "listed" group by 1, 2;`);
  }

  override down(): void {
    this.addSql(`drop trigger if exists "special_event_date_count_insert" on "special_event_date";`);
    this.addSql(`drop trigger if exists "special_event_date_count_update" on "special_event_date";`);
    this.addSql(`drop trigger if exists "special_event_date_count_delete" on "special_event_date";`);
    this.addSql(`drop function if exists "special_event_date_count_update"();`);
    this.addSql(`drop table if exists "special_event_date_count";`);
  }
}
