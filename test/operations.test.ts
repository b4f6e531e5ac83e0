// Operations (issue 12): Prometheus metrics at /metrics, one JSON log line per request with its request id,
// X-Request-Id on every answer.
// @ts-expect-error: the parser ships no types; its result is typed as Family[] below.
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Timings } from '../src/metrics/timings.ts';
import { basic, STAFF, startMuseum, type TestMuseum } from './support/museum.ts';
import { logLines, type RunningServer, spawnServerFor } from './support/server.ts';
import { useMuseum } from './support/use-museum.ts';

interface Family {
  name: string;
  type: string;
  metrics: { labels?: Record<string, string>; value?: string; buckets?: Record<string, string> }[];
}

const museum = useMuseum();

async function scrape(target: TestMuseum): Promise<Family[]> {
  const response = await target.request('GET', '/metrics');
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parsePrometheusTextFormat(response.text) as Family[];
}

const family = (families: Family[], name: string) => families.find((f) => f.name === name);

describe('/metrics', () => {
  it('is open, and counts REST and GraphQL requests under their templates and operation names', async () => {
    const created = await museum.rest('POST', '/special-events', {
      as: 'staff',
      body: {
        name: 'Metrics night',
        location: 'Hall',
        eventDescription: 'Counting',
        dates: ['2031-03-03'],
        price: 1,
      },
    });
    expect(created.status).toBe(201);
    const eventId = created.body.eventId as string;
    expect((await museum.rest('GET', `/special-events/${eventId}`)).status).toBe(200);
    expect((await museum.rest('GET', '/special-events/00000000-0000-4000-8000-000000000000')).status).toBe(
      404,
    );
    expect((await museum.graphql('query NextDays { museumHours(limit: 1) { date } }')).status).toBe(200);
    expect((await museum.graphql('{ me { name } }')).status).toBe(200);

    const families = await scrape(museum);
    const requests = family(families, 'http_requests_total')!;
    expect(requests.type).toBe('COUNTER');
    const count = (route: string, status: string) =>
      Number(
        requests.metrics.find((m) => m.labels?.route === route && m.labels.status === status)?.value ?? 0,
      );
    expect(count('/special-events/{eventId}', '200')).toBeGreaterThanOrEqual(1);
    expect(count('/special-events/{eventId}', '404')).toBeGreaterThanOrEqual(1);
    expect(count('/special-events', '201')).toBeGreaterThanOrEqual(1);
    expect(count('/graphql', '200')).toBeGreaterThanOrEqual(2);
    expect(family(families, 'http_request_duration_seconds')?.type).toBe('HISTOGRAM');

    const operations = family(families, 'graphql_operations_total')!;
    const names = operations.metrics.map((m) => m.labels?.operation_name);
    expect(names).toEqual(
      expect.arrayContaining(['NextDays', 'anonymous', 'getSpecialEvent', 'createSpecialEvent']),
    );
    expect(family(families, 'graphql_operation_duration_seconds')?.type).toBe('HISTOGRAM');
    expect(family(families, 'db_pool_connections')).toBeDefined();
    expect(family(families, 'db_pool_waiting')).toBeDefined();
    expect(family(families, 'process_resident_memory_bytes')).toBeDefined();
    expect(family(families, 'nodejs_eventloop_lag_seconds')).toBeDefined();

    // No raw path or id in any label: only templates.
    const labels = families.flatMap((f) => f.metrics.flatMap((m) => Object.values(m.labels ?? {})));
    expect(labels.some((value) => value.includes(eventId))).toBe(false);
  });

  it('buckets operation names past a hundred, so a client cannot create unbounded series', async () => {
    for (let i = 0; i < 110; i++) await museum.graphql(`query Flood${i} { me { name } }`);
    const operations = family(await scrape(museum), 'graphql_operations_total')!;
    const names = new Set(operations.metrics.map((m) => m.labels?.operation_name));
    // A hundred names, `anonymous` and `other`.
    expect(names.size).toBeLessThanOrEqual(102);
    expect(names.has('other')).toBe(true);
  });

  it('counts the files under /docs and /graphiql/assets as one route each, whatever path was asked', async () => {
    for (const path of [
      '/docs/no-such-file-1',
      '/docs/no-such-file-2',
      '/graphiql/assets/nothing.js',
      '/docs',
    ])
      await museum.request('GET', path);
    const requests = family(await scrape(museum), 'http_requests_total')!;
    const routes = new Set(requests.metrics.map((m) => m.labels?.route));
    expect(routes).toContain('/docs/*');
    expect(routes).toContain('/graphiql/assets/*');
    expect(routes).toContain('/docs');
    for (const raw of ['/docs/no-such-file-1', '/docs/no-such-file-2', '/graphiql/assets/nothing.js'])
      expect(routes).not.toContain(raw);
  });

  it('is absent with MUSEUM_METRICS=off', async () => {
    const quiet = await startMuseum({ MUSEUM_METRICS: 'off' });
    try {
      expect((await quiet.request('GET', '/metrics')).status).toBe(404);
    } finally {
      await quiet.close();
    }
  });
});

describe('request ids and log lines, over HTTP', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await spawnServerFor(museum);
  });
  afterAll(() => server?.stop());

  it('answers with X-Request-Id (the client’s when it is a plain token), and logs it with the request', async () => {
    const staff = basic(STAFF.name, STAFF.password);
    const kept = await fetch(`${server.url}/museum-hours?limit=1`, {
      headers: { authorization: staff, 'x-request-id': 'trace-42.a:b' },
    });
    expect(kept.status).toBe(200);
    expect(kept.headers.get('x-request-id')).toBe('trace-42.a:b');
    const replaced = await fetch(`${server.url}/museum-hours?limit=1`, {
      headers: { authorization: staff, 'x-request-id': 'not a token <script>' },
    });
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const graphql = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { authorization: staff, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ me { name } }' }),
    });
    expect(graphql.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);

    await new Promise((resolve) => setTimeout(resolve, 200));
    const lines = logLines(server);
    const logged = lines.find((line) => line.requestId === 'trace-42.a:b');
    expect(logged).toMatchObject({
      message: 'request',
      method: 'GET',
      route: '/museum-hours',
      status: 200,
      account: STAFF.name,
    });
    expect(typeof logged?.durationMs).toBe('number');
    const graphqlLine = lines.find((line) => line.requestId === graphql.headers.get('x-request-id'));
    expect(graphqlLine).toMatchObject({ route: '/graphql', status: 200, account: STAFF.name });
    const log = server.stderr();
    expect(log).not.toContain(STAFF.password);
    expect(log).not.toContain(staff.slice(6));
  });

  it('leaves one line per request, in order, when more come than one write gathers', async () => {
    const staff = basic(STAFF.name, STAFF.password);
    const ids = Array.from({ length: 75 }, (_, index) => `burst-${index}`);
    const before = Date.now();
    for (const id of ids) {
      const response = await fetch(`${server.url}/museum-hours?limit=1`, {
        headers: { authorization: staff, 'x-request-id': id },
      });
      expect(response.status).toBe(200);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
    const lines = logLines(server).filter((line) => ids.includes(line.requestId as string));
    expect(lines.map((line) => line.requestId)).toEqual(ids);
    for (const line of lines) {
      expect(line).toMatchObject({ level: 'info', message: 'request', route: '/museum-hours', status: 200 });
      const time = Date.parse(line.time as string);
      expect(new Date(time).toISOString()).toBe(line.time);
      expect(time).toBeGreaterThanOrEqual(before - 1);
      expect(time).toBeLessThanOrEqual(Date.now());
    }
  });
});

describe('Timings (the request and operation metrics)', () => {
  it('writes cumulative buckets, +Inf, sum and count per label set, as the Prometheus format says', async () => {
    const registry = new Registry();
    const timings = new Timings(
      registry,
      { counter: 'things_total', counterHelp: 'Things.', histogram: 'thing_seconds', histogramHelp: 'Time.' },
      [0.1, 1],
    );
    for (const seconds of [0.05, 0.1, 0.5, 2]) timings.record('a', () => ({ kind: 'a' }), seconds);
    timings.record('b', () => ({ kind: 'b' }), 0.2);
    const text = await registry.metrics();
    expect(text).toContain('# TYPE things_total counter\nthings_total{kind="a"} 4\nthings_total{kind="b"} 1');
    expect(text).toContain(
      [
        'thing_seconds_bucket{kind="a",le="0.1"} 2',
        'thing_seconds_bucket{kind="a",le="1"} 3',
        'thing_seconds_bucket{kind="a",le="+Inf"} 4',
        'thing_seconds_sum{kind="a"} 2.65',
        'thing_seconds_count{kind="a"} 4',
        'thing_seconds_bucket{kind="b",le="0.1"} 0',
      ].join('\n'),
    );
  });
});
