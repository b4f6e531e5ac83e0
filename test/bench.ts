// `npm run bench`: throughput and latency of the main requests against a started server process.
// Seeds BENCH_EVENTS events (default 100 000, each on 1–5 dates over three years) into the database
// that DATABASE_URL names (default: a fresh embedded in-memory one), then drives each request with
// BENCH_CONNECTIONS concurrent clients for BENCH_SECONDS seconds. Bounded, loopback only.
import { performance } from 'node:perf_hooks';
import { Account } from '../src/accounts/account.entity.ts';
import { hashPassword } from '../src/accounts/passwords.ts';
import { openMuseum } from '../src/app.ts';
import { addDays, isoWeekday } from '../src/common/dates.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { basic } from './support/museum.ts';
import { spawnServer } from './support/server.ts';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 100_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const databaseUrl = process.env.DATABASE_URL;

const today = new Date().toISOString().slice(0, 10);
let nextOpenDay = addDays(today, 1);
while (isoWeekday(nextOpenDay) > 5) nextOpenDay = addDays(nextOpenDay, 1);

if (!databaseUrl) {
  console.error('bench: set DATABASE_URL=postgres://… (the embedded database serves one process at a time)');
  process.exit(2);
}

// Seed with set-based SQL: events on 1–5 dates spread over three years from today.
const museum = await openMuseum(loadConfig({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' }), {
  logger: createLogger('silent'),
  announce: () => {},
});
const em = museum.deps.db.fork();
const [{ count } = { count: 0 }] = await em.execute<{ count: number }[]>(
  'select count(*)::int as count from special_event',
);
if (count < EVENTS) {
  const started = performance.now();
  await em.execute(
    `insert into special_event (id, name, location, event_description, price, created_at)
     select gen_random_uuid(), 'Event ' || n, 'Hall ' || (n % 20), 'Benchmark event ' || n, (n % 100) + 0.5, now()
     from generate_series(1, ?) as n`,
    [EVENTS - count],
  );
  await em.execute(
    `insert into special_event_date (event_id, date, name, previous_date, listed)
     select e.id, d.date, e.name, lag(d.date) over (partition by e.id order by d.date), true
     from special_event e
     cross join lateral (
       select distinct (?::date + ((abs(hashtext(e.id::text || k)) % 1095)))::date as date
       from generate_series(1, 1 + abs(hashtext(e.id::text)) % 5) as k
     ) d
     where not exists (select 1 from special_event_date x where x.event_id = e.id)`,
    [today],
  );
  await em.execute('analyze');
  console.log(`seeded ${EVENTS - count} events in ${Math.round(performance.now() - started)} ms`);
}
if (!(await em.findOne(Account, { name: 'bench' }))) {
  em.create(Account, { name: 'bench', role: 'staff', passwordHash: await hashPassword('bench-password') });
  await em.flush();
}
const [first] = await em.execute<{ id: string }[]>('select id from special_event limit 1');
const eventId = first!.id;
await museum.close();

const server = await spawnServer({ DATABASE_URL: databaseUrl });
const authorization = basic('bench', 'bench-password');

interface Scenario {
  name: string;
  request: () => Promise<Response>;
  expect: number;
}

const scenarios: Scenario[] = [
  {
    name: 'GET /museum-hours',
    expect: 200,
    request: () => fetch(`${server.url}/museum-hours`, { headers: { authorization } }),
  },
  {
    name: 'GET /special-events (one week)',
    expect: 200,
    request: () =>
      fetch(`${server.url}/special-events?startDate=${nextOpenDay}`, { headers: { authorization } }),
  },
  {
    name: 'GET /special-events/{id}',
    expect: 200,
    request: () => fetch(`${server.url}/special-events/${eventId}`, { headers: { authorization } }),
  },
  {
    name: 'POST /tickets (general)',
    expect: 201,
    request: () =>
      fetch(`${server.url}/tickets`, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json' },
        body: JSON.stringify({ ticketType: 'general', ticketDate: nextOpenDay, email: 'bench@example.com' }),
      }),
  },
  {
    name: 'POST /graphql (hours + events)',
    expect: 200,
    request: () =>
      fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json' },
        body: JSON.stringify({
          query: `{ museumHours(limit: 5) { date timeOpen } specialEvents(startDate: "${nextOpenDay}") { eventId name price } }`,
        }),
      }),
  },
];

try {
  console.log(`${EVENTS} events, ${CONNECTIONS} connections, ${SECONDS} s per request`);
  console.log('| request | req/s | p50 ms | p99 ms | errors |\n|---|---|---|---|---|');
  for (const scenario of scenarios) {
    const latencies: number[] = [];
    let errors = 0;
    const deadline = performance.now() + SECONDS * 1000;
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (performance.now() < deadline) {
          const started = performance.now();
          const response = await scenario.request();
          await response.arrayBuffer();
          latencies.push(performance.now() - started);
          if (response.status !== scenario.expect) errors++;
        }
      }),
    );
    latencies.sort((a, b) => a - b);
    const at = (q: number) =>
      latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!.toFixed(1);
    const rate = Math.round(latencies.length / SECONDS);
    console.log(`| ${scenario.name} | ${rate} | ${at(0.5)} | ${at(0.99)} | ${errors} |`);
  }
  const rss = process.memoryUsage().rss;
  console.log(`(load generator RSS ${Math.round(rss / 2 ** 20)} MiB)`);
} finally {
  await server.stop();
}
