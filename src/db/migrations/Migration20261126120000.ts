import { Migration } from '@mikro-orm/migrations';

/**
 * What a visit costs and when it starts (issue 36): the price list by visitor category (with its default
 * list), per-category event prices, timed entry (the museum's slots and a date's own), and on each ticket
 * its category, what it cost when sold (hundredths of the currency) and its entry slot. Tickets sold before
 * are adult tickets at the prices of this migration: their event's price, or the default adult admission.
 */
export class Migration20261126120000 extends Migration {
  override name = 'Migration20261126120000';

  override up(): void {
    this.addSql(`create table "price_category" (
      "category" varchar(32) not null primary key
        constraint "price_category_category_check" check ("category" ~ '^[a-z0-9-]+$'),
      "name" varchar(100) not null,
      "general_admission" int not null
        constraint "price_category_general_admission_check" check ("general_admission" between 0 and 100000000),
      "position" smallint not null);`);
    this.addSql(`insert into "price_category" ("category", "name", "general_admission", "position") values
      ('adult', 'Adult', 2000, 0), ('reduced', 'Reduced', 1400, 1), ('child', 'Child', 800, 2);`);

    this.addSql(`create table "special_event_price" (
      "event_id" uuid not null,
      "category" varchar(32) not null,
      "price" int not null constraint "special_event_price_price_check" check ("price" between 0 and 100000000),
      primary key ("event_id", "category"));`);
    this.addSql(
      `alter table "special_event_price" add constraint "special_event_price_event_id_foreign" foreign key ("event_id") references "special_event" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "special_event_price" add constraint "special_event_price_category_foreign" foreign key ("category") references "price_category" ("category");`,
    );

    for (const table of ['entry_slots', 'day_entry_slots']) {
      const key =
        table === 'entry_slots'
          ? `"id" smallint not null primary key constraint "entry_slots_id_check" check ("id" = 1)`
          : `"date" date not null primary key`;
      this.addSql(`create table "${table}" (
        ${key},
        "minutes" smallint null constraint "${table}_minutes_check" check ("minutes" between 15 and 240),
        "capacity" int null constraint "${table}_capacity_check" check ("capacity" between 0 and 1000000),
        constraint "${table}_off_check" check (("minutes" is null) = ("capacity" is null)));`);
    }
    this.addSql(`insert into "entry_slots" ("id", "minutes", "capacity") values (1, null, null);`);

    this.addSql(`alter table "ticket"
      add column "category" varchar(32) not null default 'adult',
      add column "price" int not null default 0 constraint "ticket_price_check" check ("price" >= 0),
      add column "entry_time" time(0) null,
      add column "entry_end" time(0) null;`);
    this.addSql(`update "ticket" t set "price" = coalesce(
      (select round(e."price" * 100)::int from "special_event" e where e."id" = t."event_id"), 2000);`);
    this.addSql(
      `alter table "ticket" alter column "category" drop default, alter column "price" drop default;`,
    );
    // Answers kept for Idempotency-Key replays say what their tickets cost too, as a replay now must.
    this.addSql(`update "idempotency_record" r
      set "response" = r."response" || jsonb_build_object('category', t."category", 'price', t."price")
      from "ticket" t where r."response" ? 'ticketId' and t."id" = (r."response"->>'ticketId')::uuid;`);
    this.addSql(`update "idempotency_record" r
      set "response" = jsonb_set(r."response", '{tickets}', (
        select jsonb_agg(x.ticket || jsonb_build_object('category', t."category", 'price', t."price") order by x.n)
        from jsonb_array_elements(r."response"->'tickets') with ordinality as x(ticket, n)
        join "ticket" t on t."id" = (x.ticket->>'ticketId')::uuid))
      where jsonb_typeof(r."response"->'tickets') = 'array' and jsonb_array_length(r."response"->'tickets') > 0;`);
    this.addSql(`alter table "ticket" add constraint "ticket_entry_check"
      check (("entry_time" is null) = ("entry_end" is null) and ("entry_time" is null or "ticket_type" = 'general'));`);
  }

  override down(): void {
    this.addSql(
      `alter table "ticket" drop constraint "ticket_entry_check", drop constraint "ticket_price_check";`,
    );
    this.addSql(
      `alter table "ticket" drop column "category", drop column "price", drop column "entry_time", drop column "entry_end";`,
    );
    this.addSql(`drop table if exists "day_entry_slots";`);
    this.addSql(`drop table if exists "entry_slots";`);
    this.addSql(`drop table if exists "special_event_price";`);
    this.addSql(`drop table if exists "price_category";`);
  }
}
