import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { entities } from '../mikro-orm.config.ts';
import { openMigrator } from '../src/db/migrate.ts';
import { printedSchema } from '../src/graph/schema.ts';
import { execute } from './support/db.ts';
import { DOC_PAGES, readPage } from './support/docs.ts';
import { useMuseum } from './support/use-museum.ts';

describe('schema/schema.graphql', () => {
  it('is the printed schema (run `npm run schema:print` after changing types)', async () => {
    const committed = await readFile(new URL('../schema/schema.graphql', import.meta.url), 'utf8');
    expect(committed).toBe(printedSchema());
  });
});

describe('directives', () => {
  const museum = useMuseum();

  it("include the specification's (@skip, @include) beside @defer and @stream", async () => {
    const response = await museum.graphql(
      'query($full: Boolean!) { priceList { currency @include(if: $full) categories @skip(if: $full) { category } } }',
      { full: true },
    );
    expect(response.body).toEqual({ data: { priceList: { currency: 'EUR' } } });
  });
});

describe('migrations', () => {
  const museum = useMuseum();

  it('build exactly the schema the entities declare (add a migration after changing an entity)', async () => {
    const { db } = museum.deps;
    const orm = await openMigrator(db.pool, db.connection, entities);
    try {
      const diff = await orm.schema.getUpdateSchemaSQL({ wrap: false });
      expect(diff.trim()).toBe('');
    } finally {
      await orm.close(true);
    }
  });

  it('give a new database the regular weekly schedule', async () => {
    const rows = await execute(
      museum.deps.db,
      'select weekday, time_open, time_close from weekly_hours order by weekday',
    );
    expect(rows).toEqual([
      { weekday: 1, time_open: '09:00:00', time_close: '18:00:00' },
      { weekday: 2, time_open: '09:00:00', time_close: '18:00:00' },
      { weekday: 3, time_open: '09:00:00', time_close: '18:00:00' },
      { weekday: 4, time_open: '09:00:00', time_close: '18:00:00' },
      { weekday: 5, time_open: '10:00:00', time_close: '16:00:00' },
      { weekday: 6, time_open: null, time_close: null },
      { weekday: 7, time_open: null, time_close: null },
    ]);
  });

  it('index the event listing so the range query walks the index', async () => {
    const em = await museum.deps.db.pool.connect();
    await em.query('set enable_seqscan = off');
    const { rows: plan } = await em.query(
      `explain select event_id from special_event_date where listed and date between '2030-01-01' and '2030-01-08'
       and (previous_date is null or previous_date < '2030-01-01') order by date, name, event_id limit 10`,
    );
    expect(JSON.stringify(plan)).toContain('special_event_date_listing_idx');
    await em.query('reset enable_seqscan');
    em.release();
  });

  it("reads an event's or an order's tickets through the partial indexes that leave out tickets without one", async () => {
    const em = await museum.deps.db.pool.connect();
    await em.query('set enable_seqscan = off');
    const { rows: byEvent } = await em.query(
      `explain select count(*) from ticket where event_id = '00000000-0000-4000-8000-000000000000'
       and ticket_date = '2030-01-01' and cancelled_at is null`,
    );
    expect(JSON.stringify(byEvent)).toContain('ticket_event_id_ticket_date_index');
    const { rows: byOrder } = await em.query(
      `explain select id from ticket where order_id = '00000000-0000-4000-8000-000000000000' order by order_position`,
    );
    expect(JSON.stringify(byOrder)).toContain('ticket_order_id_index');
    await em.query('reset enable_seqscan');
    em.release();
  });
});

describe('the documentation', () => {
  it("lists exactly the code's REST routes, in the README and wherever else it tables them", async () => {
    const { routes } = await import('../src/rest/routes.ts');
    const actual = routes
      .map(
        (route) =>
          `${route.method} ${route.path.replace(/:(\w+)/g, '{$1}')} ${route.operationId} ${route.status}`,
      )
      .sort();
    const tables = DOC_PAGES.map((page) => ({
      page,
      routes: [
        ...readPage(page).matchAll(
          /^\|\s*(GET|POST|PUT|PATCH|DELETE)\s*\|\s*(\S+)\s*\|\s*(\w+)\s*\|\s*(\d{3})\s*\|/gm,
        ),
      ]
        .map(([, method, path, operationId, status]) => `${method} ${path} ${operationId} ${status}`)
        .sort(),
    })).filter((table) => table.routes.length > 0);
    expect(tables.map((table) => table.page)).toContain('README.md');
    for (const table of tables) expect(table).toEqual({ page: table.page, routes: actual });
  });
});
