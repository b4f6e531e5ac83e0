// `npm run bench`: the service's speed and memory, measured, never asserted (no timed tests).
//
// 1. Throughput: BENCH_EVENTS events (default 100 000, each on 1–5 dates over three years) in a PostgreSQL
//    database, a started server process, and each hot request driven by BENCH_CONNECTIONS clients for
//    BENCH_SECONDS seconds — with wrk when it is installed (Debian's `wrk`), else with Node's fetch. Reports
//    req/s, p50, p99 and the server's peak RSS per request, and its RSS idle before the load.
// 2. Scale: p50 of GET /special-events (one week) at one connection, at BENCH_SCALES events (default
//    1 000, 100 000 and 1 000 000), on PostgreSQL and on the embedded database: the list must not slow
//    down as the table grows.
//
// BENCH_ONLY=throughput runs part 1 alone.
//
// DATABASE_URL names a PostgreSQL server (its admin database); bench_* databases are created there and
// kept between runs (seeding a million events takes a while). Bounded, loopback only.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { openMuseum } from '../src/app.ts';
import { addDays, isoWeekday } from '../src/common/dates.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { execute, insertAccount } from './support/db.ts';
import { basic } from './support/museum.ts';
import { type RunningServer, spawnServer } from './support/server.ts';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 100_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const SCALES = (process.env.BENCH_SCALES ?? '1000,100000,1000000').split(',').map(Number);
const adminUrl = process.env.DATABASE_URL;
if (!adminUrl?.startsWith('postgres')) {
  console.error('bench: set DATABASE_URL=postgres://… (a server where bench_* databases may be created)');
  process.exit(2);
}

const today = new Date().toISOString().slice(0, 10);
let nextMonday = addDays(today, 1);
while (isoWeekday(nextMonday) !== 1) nextMonday = addDays(nextMonday, 1);
const weekEnd = addDays(nextMonday, 6);
const authorization = basic('bench', 'bench-password');
const hasWrk = spawnSync('wrk', ['--version']).error === undefined;

/** A database of `name` on the PostgreSQL server (created when missing). */
async function postgresDatabase(name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  const exists = await admin.query('select 1 from pg_database where datname = $1', [name]);
  if (exists.rowCount === 0) await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl!);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Brings the database to `events` events (set-based SQL through the real migrations) and a staff account. */
async function seed(env: Record<string, string>, events: number): Promise<string> {
  const museum = await openMuseum(loadConfig({ ...env, LOG_LEVEL: 'silent' }), {
    logger: createLogger('silent'),
    announce: () => {},
  });
  try {
    const { db } = museum.deps;
    const [{ count } = { count: 0 }] = await execute<{ count: number }[]>(
      db,
      'select count(*)::int as count from special_event',
    );
    if (count < events) {
      const started = performance.now();
      // In slices, so the embedded database never holds one huge statement's work at once.
      for (let done = count; done < events; done += 100_000) {
        const slice = Math.min(100_000, events - done);
        await execute(
          db,
          `insert into special_event (id, name, location, event_description, price, created_at)
           select gen_random_uuid(), 'Event ' || n, 'Hall ' || (n % 20), 'Benchmark event ' || n, (n % 100) + 0.5, now()
           from generate_series($1::int + 1, $2::int + $3::int) as n`,
          [done, done, slice],
        );
        await execute(
          db,
          `insert into special_event_date (event_id, date, name, previous_date, listed)
           select e.id, d.date, e.name, lag(d.date) over (partition by e.id order by d.date), true
           from special_event e
           cross join lateral (
             select distinct ($1::date + ((abs(hashtext(e.id::text || k)) % 1095)))::date as date
             from generate_series(1, 1 + abs(hashtext(e.id::text)) % 5) as k
           ) d
           where not exists (select 1 from special_event_date x where x.event_id = e.id)`,
          [today],
        );
      }
      await execute(db, 'analyze');
      console.error(`seeded ${events - count} events in ${Math.round(performance.now() - started)} ms`);
    }
    const [bench] = await execute(db, `select 1 from account where name = 'bench'`);
    if (!bench) await insertAccount(db, { name: 'bench', role: 'staff', password: 'bench-password' });
    const [first] = await execute<{ id: string }[]>(db, 'select id from special_event order by id limit 1');
    return first!.id;
  } finally {
    await museum.close();
  }
}

function rssOf(server: RunningServer): number {
  const status = readFileSync(`/proc/${server.child.pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

interface Scenario {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
  expect: number;
}

interface Measured {
  rate: number;
  p50: number;
  p99: number;
  errors: number;
}

/** wrk with a Lua script for the method, headers and body; its latency distribution gives p50 and p99. */
function withWrk(url: string, scenario: Scenario, connections: number, seconds: number): Measured {
  const dir = mkdtempSync(join(tmpdir(), 'bench-'));
  const script = join(dir, 'request.lua');
  writeFileSync(
    script,
    [
      `wrk.method = "${scenario.method}"`,
      `wrk.headers["Authorization"] = "${authorization}"`,
      ...(scenario.body === undefined
        ? []
        : [
            'wrk.headers["Content-Type"] = "application/json"',
            `wrk.body = [[${JSON.stringify(scenario.body)}]]`,
          ]),
      `done = function(summary, latency, requests)
         io.write(string.format("RESULT %d %d %d %d %d\\n", summary.requests, summary.duration,
           latency:percentile(50), latency:percentile(99),
           summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
       end`,
    ].join('\n'),
  );
  const run = spawnSync(
    'wrk',
    [
      `-t${Math.min(2, connections)}`,
      `-c${connections}`,
      `-d${seconds}s`,
      '-s',
      script,
      `${url}${scenario.path}`,
    ],
    { encoding: 'utf8', timeout: (seconds + 30) * 1000 },
  );
  rmSync(dir, { recursive: true, force: true });
  const [requests, durationUs, p50, p99, errors] = (/RESULT (.*)/.exec(run.stdout)?.[1] ?? '0 1 0 0 1')
    .split(' ')
    .map(Number) as [number, number, number, number, number];
  return { rate: Math.round(requests / (durationUs / 1e6)), p50: p50 / 1000, p99: p99 / 1000, errors };
}

/** The same with Node's fetch, for machines without wrk (it takes more of the CPU it measures). */
async function withFetch(
  url: string,
  scenario: Scenario,
  connections: number,
  seconds: number,
): Promise<Measured> {
  const latencies: number[] = [];
  let errors = 0;
  const deadline = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < deadline) {
        const started = performance.now();
        const response = await fetch(`${url}${scenario.path}`, {
          method: scenario.method,
          headers: {
            authorization,
            ...(scenario.body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          body: scenario.body === undefined ? undefined : JSON.stringify(scenario.body),
        });
        await response.arrayBuffer();
        latencies.push(performance.now() - started);
        if (response.status !== scenario.expect) errors++;
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { rate: Math.round(latencies.length / seconds), p50: at(0.5), p99: at(0.99), errors };
}

const measure = (url: string, scenario: Scenario, connections: number, seconds: number) =>
  hasWrk
    ? Promise.resolve(withWrk(url, scenario, connections, seconds))
    : withFetch(url, scenario, connections, seconds);

const FLAT_LIST = 'POST /graphql specialEvents (one week)';
const NESTED_PAGE = 'POST /graphql specialEventPage of 30 with availability';
const RATIO_PAIRS = 5;

async function throughput() {
  const databaseUrl = await postgresDatabase(`bench_${EVENTS}`);
  const eventId = await seed({ DATABASE_URL: databaseUrl }, EVENTS);
  const server = await spawnServer({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' });
  try {
    const scenarios: Scenario[] = [
      { name: 'GET /museum-hours', method: 'GET', path: '/museum-hours', expect: 200 },
      {
        name: 'GET /special-events (one week)',
        method: 'GET',
        path: `/special-events?startDate=${nextMonday}&endDate=${weekEnd}`,
        expect: 200,
      },
      { name: 'GET /special-events/{id}', method: 'GET', path: `/special-events/${eventId}`, expect: 200 },
      {
        name: FLAT_LIST,
        method: 'POST',
        path: '/graphql',
        body: {
          query: `{ specialEvents(startDate: "${nextMonday}", endDate: "${weekEnd}", limit: 10) { eventId name location eventDescription dates price } }`,
        },
        expect: 200,
      },
      {
        name: NESTED_PAGE,
        method: 'POST',
        path: '/graphql',
        body: {
          query: `{ specialEventPage(startDate: "${nextMonday}", endDate: "${weekEnd}", limit: 30) { total items { id eventId name location eventDescription dates price availability { date capacity remaining } } } }`,
        },
        expect: 200,
      },
      {
        name: 'POST /tickets (general)',
        method: 'POST',
        path: '/tickets',
        body: { ticketType: 'general', ticketDate: nextMonday, email: 'bench@example.com' },
        expect: 201,
      },
    ];
    // One request first, so the credential is verified (scrypt) before the clock runs.
    await fetch(`${server.url}/museum-hours`, { headers: { authorization } });
    const idle = rssOf(server);
    console.log(
      `\n${EVENTS} events on PostgreSQL, ${CONNECTIONS} connections, ${SECONDS} s per request, ${hasWrk ? 'wrk' : 'fetch'}; server RSS idle ${Math.round(idle)} MB`,
    );
    console.log('| request | req/s | p50 ms | p99 ms | errors | peak RSS MB |\n|---|---|---|---|---|---|');
    const rates: Record<string, number> = {};
    for (const scenario of scenarios) {
      let peak = rssOf(server);
      const sampler = setInterval(() => {
        peak = Math.max(peak, rssOf(server));
      }, 100);
      const result = await measure(server.url, scenario, CONNECTIONS, SECONDS);
      clearInterval(sampler);
      rates[scenario.name] = result.rate;
      console.log(
        `| ${scenario.name} | ${result.rate} | ${result.p50.toFixed(1)} | ${result.p99.toFixed(1)} | ${result.errors} | ${Math.round(peak)} |`,
      );
    }
    // Issue 24's goal: a page of 30 events with their availability at ≥ 0.5× the flat list's rate. One
    // sample of each swings by ±0.1 on a busy machine: the two alternate in pairs, and the median pair counts.
    const flat = scenarios.find((scenario) => scenario.name === FLAT_LIST)!;
    const nested = scenarios.find((scenario) => scenario.name === NESTED_PAGE)!;
    const pairs = [rates[NESTED_PAGE]! / rates[FLAT_LIST]!];
    for (let pair = 1; pair < RATIO_PAIRS; pair++) {
      const flatRate = (await measure(server.url, flat, CONNECTIONS, SECONDS)).rate;
      const nestedRate = (await measure(server.url, nested, CONNECTIONS, SECONDS)).rate;
      pairs.push(nestedRate / flatRate);
    }
    pairs.sort((a, b) => a - b);
    console.log(
      `\nnested page ÷ flat specialEvents: ${pairs[(pairs.length - 1) >> 1]!.toFixed(2)}× (median of ${pairs.length} pairs: ${pairs.map((ratio) => ratio.toFixed(2)).join(', ')})`,
    );
  } finally {
    await server.stop();
  }
}

/**
 * What recording metrics costs (issue 12: it must not cost measurable throughput): the same requests
 * against a server with MUSEUM_METRICS=on and one with off, alternating, three rounds each; the medians.
 */
async function metricsCost() {
  const databaseUrl = await postgresDatabase(`bench_${EVENTS}`);
  const eventId = await seed({ DATABASE_URL: databaseUrl }, EVENTS);
  const scenarios: Scenario[] = [
    { name: 'GET /museum-hours', method: 'GET', path: '/museum-hours', expect: 200 },
    { name: 'GET /special-events/{id}', method: 'GET', path: `/special-events/${eventId}`, expect: 200 },
  ];
  const rates: Record<string, Record<'on' | 'off', number[]>> = {};
  for (let round = 0; round < 3; round++) {
    for (const metrics of ['on', 'off'] as const) {
      const server = await spawnServer({
        DATABASE_URL: databaseUrl,
        LOG_LEVEL: 'warn',
        MUSEUM_METRICS: metrics,
      });
      try {
        await fetch(`${server.url}/museum-hours`, { headers: { authorization } });
        for (const scenario of scenarios) {
          await measure(server.url, scenario, CONNECTIONS, 1); // warm-up
          const { rate } = await measure(server.url, scenario, CONNECTIONS, SECONDS);
          rates[scenario.name] ??= { on: [], off: [] };
          rates[scenario.name]![metrics].push(rate);
        }
      } finally {
        await server.stop();
      }
    }
  }
  const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]!;
  console.log(`
Metrics on vs off (MUSEUM_METRICS), ${CONNECTIONS} connections, median of 3 alternating rounds`);
  console.log(
    '| request | req/s on | req/s off | on ÷ off | rounds on | rounds off |\n|---|---|---|---|---|---|',
  );
  for (const [name, { on, off }] of Object.entries(rates)) {
    console.log(
      `| ${name} | ${median(on)} | ${median(off)} | ${(median(on) / median(off)).toFixed(2)} | ${on.join(', ')} | ${off.join(', ')} |`,
    );
  }
}

/** p50 of the week's event list at one connection, for each scale, on one kind of database. */
async function scale(kind: 'postgresql' | 'embedded') {
  const row: string[] = [];
  const p50s: number[] = [];
  for (const events of SCALES) {
    const dataDir = join(tmpdir(), `museum-bench-embedded-${events}`);
    const env: Record<string, string> =
      kind === 'postgresql'
        ? { DATABASE_URL: await postgresDatabase(`bench_${events}`) }
        : { MUSEUM_DATA_DIR: dataDir };
    await seed(env, events);
    const server = await spawnServer({ ...env, LOG_LEVEL: 'warn' });
    try {
      const list: Scenario = {
        name: 'list',
        method: 'GET',
        path: `/special-events?startDate=${nextMonday}&endDate=${weekEnd}`,
        expect: 200,
      };
      await fetch(`${server.url}/museum-hours`, { headers: { authorization } });
      await measure(server.url, list, 1, 1); // warm-up: plans, caches
      const { p50 } = await measure(server.url, list, 1, 3);
      p50s.push(p50);
      row.push(p50.toFixed(2));
    } finally {
      await server.stop();
    }
  }
  const growth = p50s.at(-1)! / p50s[0]!;
  console.log(`| ${kind} | ${row.join(' | ')} | ${growth.toFixed(2)}× |`);
}

// BENCH_ONLY=throughput runs the first part alone.
const only = process.env.BENCH_ONLY;
await throughput();
if (only === 'throughput') process.exit(0);
await metricsCost();
console.log(`\np50 ms of GET /special-events (one week) at one connection, by events in the database`);
console.log(
  `| database | ${SCALES.join(' | ')} | last ÷ first |\n|---|${SCALES.map(() => '---|').join('')}---|`,
);
await scale('postgresql');
await scale('embedded');
