// `npm run soak`: a started server under mixed traffic for a while, and whether it stays healthy.
//
// A server process as `npm start` runs it (its V8 flags, LOG_LEVEL=info, its log lines to a file), on
// DATABASE_URL (a PostgreSQL database; it is migrated) or else the embedded database in a temporary
// directory, with a staff account. For SOAK_SECONDS (default 600) it gets an open-loop load at a fixed rate
// (SOAK_RATE requests/s, default 200: well below saturation, so latency reads the server's health and not the
// machine's) of:
//
//   reads       GET /museum-hours, GET /special-events, GET /special-events/{id}, a GraphQL query
//   purchases   POST /tickets (general tickets spread over the open days)
//   edits       PATCH /special-events/{id} (a new name each time), and now and then a POST /special-events
//
// while one server-sent-events subscriber and one graphql-ws subscriber listen to specialEventPublished and
// must hear every edit. Each window (60 s; a third of the run when it is shorter than three minutes) reports
// the requests answered, their p50/p99/max (from the moment each was due, so a stalled server shows), the
// server's RSS (/proc) and its event-loop delay (p99 and max, from /metrics: prom-client resets its
// histogram on each scrape, and the soak is the only scraper).
//
// Pass: no unexpected status, no failed request, no lost subscription event (as many messages for each event
// as it had changes, its last state among them), no subscriber dropped; and RSS, event-loop p99 and request
// p99 of the last window at most 10 % above the first window's. Each window also shows the server's CPU and
// the whole machine's, to tell the server's own drift from a neighbour's load. Exit 0 or 1;
// SOAK_REPORT=file.json writes the figures as JSON.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { freePort, serverArgs, serverEnv } from './support/server.ts';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 600);
const RATE = Number(process.env.SOAK_RATE ?? 200);
const WINDOW = Number(process.env.SOAK_WINDOW ?? (SECONDS >= 180 ? 60 : SECONDS / 3));
const WARMUP = Number(process.env.SOAK_WARMUP ?? 15);
const TOLERANCE = 0.1;
const cores = availableParallelism();
const ADMIN = { name: 'soak-admin', password: 'soak-admin-password' };
const authorization = `Basic ${Buffer.from(`${ADMIN.name}:${ADMIN.password}`).toString('base64')}`;
const databaseUrl = process.env.DATABASE_URL;
if (databaseUrl && !databaseUrl.startsWith('postgres')) {
  console.error('soak: DATABASE_URL must be a postgres:// URL of a database to use (or unset: embedded)');
  process.exit(2);
}

// ——— the server ———

interface Server {
  child: ChildProcess;
  url: string;
  exited: Promise<number | null>;
}

const workDir = mkdtempSync(join(tmpdir(), 'soak-'));
const logFile = join(workDir, 'server.log');

async function startServer(): Promise<Server> {
  const port = await freePort();
  const log = openSync(logFile, 'a');
  const child = spawn(process.execPath, serverArgs, {
    env: {
      PATH: process.env.PATH,
      ...serverEnv,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      MUSEUM_ADMIN_USER: ADMIN.name,
      MUSEUM_ADMIN_PASSWORD: ADMIN.password,
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : { MUSEUM_DATA_DIR: join(workDir, 'data') }),
    },
    stdio: ['ignore', log, log],
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    const live = await fetch(`${url}/health/ready`).then(
      (response) => response.status === 200,
      () => false,
    );
    if (live) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the server did not start; its log: ${logFile}`);
    }
    await sleep(100);
  }
  return { child, url, exited };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** CPU seconds so far: the server process's, and the whole machine's busy and total (all cores). */
function cpuSeconds(server: Server) {
  const ticks = 100; // USER_HZ
  const fields = readFileSync(`/proc/${server.child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  const all = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.split(/\s+/).slice(1).map(Number);
  const idle = all[3]! + all[4]!;
  const total = all.slice(0, 8).reduce((sum, value) => sum + value, 0);
  return {
    server: (Number(fields[11]) + Number(fields[12])) / ticks,
    busy: (total - idle) / ticks,
    total: total / ticks,
  };
}

function rssMb(server: Server): number {
  const status = readFileSync(`/proc/${server.child.pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

/** The event-loop delay since the previous scrape (ms): prom-client's monitorEventLoopDelay histogram. */
async function eventLoop(server: Server): Promise<{ p99: number; max: number }> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
  return {
    p99: value('nodejs_eventloop_lag_p99_seconds') * 1000,
    max: value('nodejs_eventloop_lag_max_seconds') * 1000,
  };
}

// ——— HTTP requests ———

// At most 24 requests at once, as a few browsers behind one address would send them: the server refuses a
// client's 33rd concurrent request (MAX_CONCURRENT_REQUESTS_PER_CLIENT, 32; the SSE stream is one). Requests
// due while all 24 are busy wait here, and their latency counts from when they were due.
// First in, first out: every socket stays busy at the soak's rate, so none sits idle towards the server's
// keep-alive timeout (5 s), where a request sent as the server closes it meets a reset it never saw.
const agent = new Agent({ keepAlive: true, maxSockets: 24, scheduling: 'fifo' });

interface Answer {
  status: number;
  body: string;
}

function send(base: string, method: string, path: string, body?: unknown): Promise<Answer> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      `${base}${path}`,
      {
        method,
        agent,
        headers: {
          authorization,
          accept: 'application/json',
          ...(payload === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.setTimeout(30_000, () => req.destroy(new Error('timed out after 30 s')));
    req.on('error', reject);
    req.end(payload);
  });
}

/** A request that must answer `status`; its JSON body. */
async function expectOk(base: string, method: string, path: string, body?: unknown, status = 200) {
  const answer = await send(base, method, path, body);
  if (answer.status !== status) throw new Error(`${method} ${path}: ${answer.status} ${answer.body}`);
  return JSON.parse(answer.body);
}

// ——— the traffic ———

interface Kind {
  name: string;
  weight: number;
  expect: number;
  make(): { method: string; path: string; body?: unknown };
  /** What a 2xx answer means besides its status (a GraphQL error in a 200 is a failure). */
  check?(answer: Answer): string | undefined;
  done?(answer: Answer): void;
}

const soakName = (n: number) => `Soak edit ${n}`;

async function traffic(server: Server) {
  const base = server.url;
  // Open days to buy tickets for, and events to read and edit (ten of the soak's own; the embedded database
  // also holds the demo events).
  const days = ((await expectOk(base, 'GET', '/museum-hours?limit=30')) as { date: string }[]).map(
    (day) => day.date,
  );
  const eventBody = (name: string) => ({
    name,
    location: 'Soak hall',
    eventDescription: 'An event the soak run reads, edits and sells tickets for.',
    dates: [days[0], days[Math.min(3, days.length - 1)]],
    price: 25,
  });
  const events: string[] = [];
  for (let i = 0; i < 10; i++)
    events.push(
      (
        (await expectOk(base, 'POST', '/special-events', eventBody(`Soak seed ${i}`), 201)) as {
          eventId: string;
        }
      ).eventId,
    );
  return { days, events, eventBody };
}

// ——— the subscribers ———

const SUBSCRIPTION = 'subscription Soak { specialEventPublished { eventId name } }';

interface Subscriber {
  /** The names heard (each edit gives its event a new one). */
  heard: Set<string>;
  /** The messages heard, by event. */
  messages: Map<string, number>;
  failures: string[];
  close(): void;
}

/** Takes a specialEventPublished payload into `heard` and `messages`. */
function hear(subscriber: Pick<Subscriber, 'heard' | 'messages'>, event: unknown) {
  const { eventId, name } = (event ?? {}) as { eventId?: string; name?: string };
  if (typeof eventId !== 'string' || typeof name !== 'string') return;
  subscriber.heard.add(name);
  subscriber.messages.set(eventId, (subscriber.messages.get(eventId) ?? 0) + 1);
}

/** A server-sent-events subscriber, read off the stream as a browser's EventSource would. */
async function sseSubscriber(base: string): Promise<Subscriber> {
  const heard = new Set<string>();
  const messages = new Map<string, number>();
  const failures: string[] = [];
  const abort = new AbortController();
  let closing = false;
  const response = await fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { accept: 'text/event-stream', 'content-type': 'application/json', authorization },
    body: JSON.stringify({ query: SUBSCRIPTION }),
    signal: abort.signal,
  });
  if (response.status !== 200 || !response.body) throw new Error(`SSE subscription: ${response.status}`);
  const reader = response.body.getReader();
  void (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = block
            .split('\n')
            .filter((line) => line.startsWith('data:'))
            .map((line) => line.slice(5).trim())
            .join('\n');
          if (!block.includes('event: next') || !data) continue;
          const payload = JSON.parse(data);
          if (payload.errors) failures.push(`SSE: ${JSON.stringify(payload.errors)}`);
          hear({ heard, messages }, payload.data?.specialEventPublished);
        }
      }
      if (!closing) failures.push('SSE: the server ended the stream');
    } catch (error) {
      if (!closing) failures.push(`SSE: ${(error as Error).message}`);
    }
  })();
  return {
    heard,
    messages,
    failures,
    close() {
      closing = true;
      abort.abort();
    },
  };
}

/** A graphql-ws subscriber (subprotocol graphql-transport-ws), as docs/live.md sets one up. */
async function wsSubscriber(base: string): Promise<Subscriber> {
  const heard = new Set<string>();
  const messages = new Map<string, number>();
  const failures: string[] = [];
  let closing = false;
  let opened!: () => void;
  const subscribed = new Promise<void>((resolve) => {
    opened = resolve;
  });
  const client = createClient({
    url: `${base.replace('http:', 'ws:')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization },
    retryAttempts: 0,
    on: {
      connected: () => opened(),
      closed: (event) => {
        if (!closing) failures.push(`WebSocket closed: ${(event as { code?: number }).code}`);
      },
    },
  });
  client.subscribe<{ specialEventPublished: { eventId: string; name: string } }>(
    { query: SUBSCRIPTION },
    {
      next: (result) => {
        if (result.errors) failures.push(`WebSocket: ${JSON.stringify(result.errors)}`);
        hear({ heard, messages }, result.data?.specialEventPublished);
      },
      error: (error) => {
        if (!closing)
          failures.push(`WebSocket: ${error instanceof Error ? error.message : JSON.stringify(error)}`);
      },
      complete: () => {
        if (!closing) failures.push('WebSocket: the server completed the subscription');
      },
    },
  );
  await subscribed;
  return {
    heard,
    messages,
    failures,
    close() {
      closing = true;
      void client.dispose();
    },
  };
}

// ——— the measurement ———

interface Window {
  window: number;
  requests: number;
  failed: number;
  p50: number;
  p99: number;
  max: number;
  rssMb: number;
  peakRssMb: number;
  loopP99: number;
  loopMax: number;
  /** The server's CPU over the window, and the whole machine's (all cores, load generator and database included), in % of one core. */
  serverCpu: number;
  machineCpu: number;
}

const quantile = (sorted: number[], q: number) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

let running: Server | undefined;

async function main() {
  const server = await startServer();
  running = server;
  const { days, events, eventBody } = await traffic(server);
  const sse = await sseSubscriber(server.url);
  const ws = await wsSubscriber(server.url);
  // Both subscriptions open before anything is edited (the server counts them).
  for (const deadline = Date.now() + 10_000; ; ) {
    const text = await (await fetch(`${server.url}/metrics`)).text();
    if (/^live_subscriptions 2$/m.test(text)) break;
    if (Date.now() > deadline) throw new Error('the subscriptions did not open');
    await sleep(50);
  }

  // Every change made (a PATCH or a POST answered 2xx): its name, and the changes by event.
  const published: string[] = [];
  const changes = new Map<string, number>();
  const changed = (answer: Answer) => {
    const { eventId, name } = JSON.parse(answer.body) as { eventId: string; name: string };
    published.push(name);
    changes.set(eventId, (changes.get(eventId) ?? 0) + 1);
  };
  let edits = 0;
  let purchases = 0;
  const pick = <T>(list: T[]) => list[Math.floor(Math.random() * list.length)]!;
  const graphqlQuery = {
    query: `query SoakRead { museumHours(limit: 5) { date timeOpen timeClose } specialEvents(limit: 10) { eventId name dates price } }`,
  };
  const kinds: Kind[] = [
    {
      name: 'GET /museum-hours',
      weight: 25,
      expect: 200,
      make: () => ({ method: 'GET', path: '/museum-hours' }),
    },
    {
      name: 'GET /special-events',
      weight: 20,
      expect: 200,
      make: () => ({ method: 'GET', path: '/special-events' }),
    },
    {
      name: 'GET /special-events/{id}',
      weight: 20,
      expect: 200,
      make: () => ({ method: 'GET', path: `/special-events/${pick(events)}` }),
    },
    {
      name: 'POST /graphql (query)',
      weight: 20,
      expect: 200,
      make: () => ({ method: 'POST', path: '/graphql', body: graphqlQuery }),
      check: (answer) => (answer.body.includes('"errors"') ? answer.body.slice(0, 300) : undefined),
    },
    {
      name: 'POST /tickets',
      weight: 12,
      expect: 201,
      make: () => {
        purchases++;
        return {
          method: 'POST',
          path: '/tickets',
          body: { ticketType: 'general', ticketDate: pick(days), email: `soak${purchases}@example.com` },
        };
      },
    },
    {
      name: 'PATCH /special-events/{id}',
      weight: 3,
      expect: 200,
      make: () => {
        const name = soakName(++edits);
        return { method: 'PATCH', path: `/special-events/${pick(events)}`, body: { name } };
      },
      done: changed,
    },
  ];
  // Now and then an event is created rather than edited (one in 20 edits).
  const create: Kind = {
    name: 'POST /special-events',
    weight: 0,
    expect: 201,
    make: () => ({ method: 'POST', path: '/special-events', body: eventBody(soakName(++edits)) }),
    done: changed,
  };
  // A fixed, shuffled cycle of 100 slots by weight.
  const cycle: Kind[] = kinds.flatMap((kind) => Array.from({ length: kind.weight }, () => kind));
  for (let i = cycle.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [cycle[i], cycle[j]] = [cycle[j]!, cycle[i]!];
  }

  const windows = Math.max(1, Math.round(SECONDS / WINDOW));
  const latencies: number[][] = Array.from({ length: windows }, () => []);
  const failed: number[] = Array.from({ length: windows }, () => 0);
  const statuses = new Map<string, number>();
  const failures: string[] = [];
  const rss: number[][] = Array.from({ length: windows }, () => []);
  const byKind = new Map<string, number>();

  console.log(
    `soak: ${SECONDS} s at ${RATE} req/s (${windows} windows of ${WINDOW} s after ${WARMUP} s of warm-up), ${databaseUrl ? 'PostgreSQL' : 'embedded database'}, server ${server.url}, log ${logFile}`,
  );
  // The same traffic for WARMUP seconds first (answers checked, latencies not kept): the first window
  // then measures a warmed-up server (JIT, compiled documents, credential cache), not its start.
  const begin = performance.now();
  const started = begin + WARMUP * 1000;
  const total = Math.floor((WARMUP + SECONDS) * RATE);
  let warmupFailed = 0;
  let sent = 0;
  let inFlight = 0;
  let slot = 0;
  const rows: Window[] = [];

  const fire = (due: number) => {
    const window = due < started ? -1 : Math.min(windows - 1, Math.floor((due - started) / 1000 / WINDOW));
    const isCreate = cycle[slot % cycle.length]!.name.startsWith('PATCH') && edits % 20 === 19;
    const kind = isCreate ? create : cycle[slot % cycle.length]!;
    slot++;
    const { method, path, body } = kind.make();
    byKind.set(kind.name, (byKind.get(kind.name) ?? 0) + 1);
    inFlight++;
    send(server.url, method, path, body).then(
      (answer) => {
        inFlight--;
        if (window >= 0) latencies[window]!.push(performance.now() - due);
        const problem =
          answer.status !== kind.expect
            ? `${answer.status} ${answer.body.slice(0, 300)}`
            : kind.check?.(answer);
        if (problem) {
          if (window >= 0) failed[window]!++;
          else warmupFailed++;
          const key = `${kind.name} → ${answer.status}`;
          statuses.set(key, (statuses.get(key) ?? 0) + 1);
          if (failures.length < 20) failures.push(`${method} ${path}: ${problem}`);
        } else kind.done?.(answer);
      },
      (error: Error) => {
        inFlight--;
        if (window < 0) warmupFailed++;
        else {
          latencies[window]!.push(performance.now() - due);
          failed[window]!++;
        }
        if (failures.length < 20) failures.push(`${method} ${path}: ${error.message}`);
      },
    );
  };

  // Open loop: every 5 ms, send what is due by now, whether or not earlier requests have been answered.
  await new Promise<void>((resolve) => {
    const tick = setInterval(() => {
      const now = performance.now();
      const due = Math.min(total, Math.floor(((now - begin) / 1000) * RATE));
      while (sent < due) {
        fire(begin + (sent / RATE) * 1000);
        sent++;
      }
      if (sent >= total) {
        clearInterval(tick);
        resolve();
      }
    }, 5);
    const sampler = setInterval(() => {
      const window = Math.min(windows - 1, Math.floor((performance.now() - started) / 1000 / WINDOW));
      if (window >= 0) rss[window]!.push(rssMb(server));
    }, 1000);
    // At each window's end: its event-loop delay, and its row.
    let closed = 0;
    const closeWindow = async () => {
      const window = closed++;
      const loop = await eventLoop(server);
      const now = cpuSeconds(server);
      const elapsed = (now.total - cpu.total) / cores;
      const [serverCpu, machineCpu] = [now.server - cpu.server, now.busy - cpu.busy].map(
        (seconds) => (100 * seconds) / elapsed,
      );
      cpu = now;
      // Requests due in this window may still be in flight; the row is completed below, at the end.
      rows[window] = {
        window: window + 1,
        requests: 0,
        failed: 0,
        p50: 0,
        p99: 0,
        max: 0,
        rssMb: rssMb(server),
        serverCpu: serverCpu!,
        machineCpu: machineCpu!,
        peakRssMb: 0,
        loopP99: loop.p99,
        loopMax: loop.max,
      };
      console.error(
        `  window ${window + 1}/${windows}: RSS ${rows[window]!.rssMb.toFixed(0)} MB, event loop p99 ${loop.p99.toFixed(1)} ms, server CPU ${serverCpu!.toFixed(0)} %, machine ${machineCpu!.toFixed(0)} %, ${inFlight} in flight`,
      );
      if (closed < windows)
        setTimeout(closeWindow, started + (closed + 1) * WINDOW * 1000 - performance.now());
      else clearInterval(sampler);
    };
    // The event-loop histogram and the CPU counts restart when the measurement does.
    let cpu = cpuSeconds(server);
    setTimeout(() => {
      cpu = cpuSeconds(server);
      void eventLoop(server);
    }, WARMUP * 1000);
    setTimeout(closeWindow, (WARMUP + WINDOW) * 1000);
  });
  // The last requests, the last window, then the subscribers' last events.
  for (
    const deadline = Date.now() + 35_000;
    (inFlight > 0 || rows.length < windows) && Date.now() < deadline;
  )
    await sleep(50);
  // A change is announced with the event as it is when each instance reads it (PostgreSQL: NOTIFY names
  // the event), so two edits of one event in quick succession may both be heard with the later name. Lost
  // is therefore: an event with fewer messages than changes, or whose final name was never heard.
  const finalNames = new Map<string, string>();
  for (const eventId of changes.keys())
    finalNames.set(
      eventId,
      ((await expectOk(server.url, 'GET', `/special-events/${eventId}`)) as { name: string }).name,
    );
  const lost = (subscriber: Subscriber) =>
    [...changes].filter(
      ([eventId, count]) =>
        (subscriber.messages.get(eventId) ?? 0) < count || !subscriber.heard.has(finalNames.get(eventId)!),
    );
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
    if (lost(sse).length + lost(ws).length === 0) break;
    await sleep(100);
  }
  sse.close();
  ws.close();
  const messages = (subscriber: Subscriber) => [...subscriber.messages.values()].reduce((a, b) => a + b, 0);
  const lostSse = lost(sse).map(([eventId]) => eventId);
  const lostWs = lost(ws).map(([eventId]) => eventId);

  for (let w = 0; w < windows; w++) {
    const sorted = latencies[w]!.sort((a, b) => a - b);
    Object.assign(rows[w]!, {
      requests: sorted.length,
      failed: failed[w],
      p50: quantile(sorted, 0.5),
      p99: quantile(sorted, 0.99),
      max: sorted.at(-1) ?? 0,
      peakRssMb: Math.max(rows[w]!.rssMb, ...rss[w]!),
    });
  }

  const first = rows[0]!;
  const last = rows.at(-1)!;
  const within = (end: number, start: number) => end <= start * (1 + TOLERANCE);
  const checks = {
    'no failed request': rows.every((row) => row.failed === 0) && warmupFailed === 0 && inFlight === 0,
    'no lost event (SSE)': lostSse.length === 0,
    'no lost event (WebSocket)': lostWs.length === 0,
    'subscribers stayed': sse.failures.length === 0 && ws.failures.length === 0,
    'RSS within 10 %': within(last.rssMb, first.rssMb),
    'event-loop p99 within 10 %': within(last.loopP99, first.loopP99),
    'request p99 within 10 %': within(last.p99, first.p99),
  };

  console.log(
    `\n${sent} requests (${[...byKind].map(([name, count]) => `${name} ${count}`).join(', ')}); ${published.length} changes of ${changes.size} events, messages heard over SSE ${messages(sse)} (${published.filter((name) => sse.heard.has(name)).length} of the names), over WebSocket ${messages(ws)} (${published.filter((name) => ws.heard.has(name)).length} of the names)`,
  );
  console.log(
    '\n| window | requests | failed | p50 ms | p99 ms | max ms | RSS MB (end, peak) | event loop p99 ms | event loop max ms | server CPU % | machine CPU % |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const row of rows)
    console.log(
      `| ${row.window} | ${row.requests} | ${row.failed} | ${row.p50.toFixed(1)} | ${row.p99.toFixed(1)} | ${row.max.toFixed(0)} | ${row.rssMb.toFixed(0)}, ${row.peakRssMb.toFixed(0)} | ${row.loopP99.toFixed(1)} | ${row.loopMax.toFixed(1)} | ${row.serverCpu.toFixed(0)} | ${row.machineCpu.toFixed(0)} |`,
    );
  console.log(
    `\nlast ÷ first window: RSS ${(last.rssMb / first.rssMb).toFixed(2)}, event-loop p99 ${(last.loopP99 / first.loopP99).toFixed(2)}, request p99 ${(last.p99 / first.p99).toFixed(2)}`,
  );
  for (const [check, ok] of Object.entries(checks)) console.log(`${ok ? 'pass' : 'FAIL'}  ${check}`);
  for (const failure of [...failures, ...sse.failures, ...ws.failures]) console.log(`  ${failure}`);
  if (lostSse.length + lostWs.length > 0)
    console.log(
      `  lost over SSE: ${lostSse.slice(0, 5).join(', ')}; over WebSocket: ${lostWs.slice(0, 5).join(', ')}`,
    );
  if (process.env.SOAK_REPORT)
    writeFileSync(
      process.env.SOAK_REPORT,
      JSON.stringify(
        {
          seconds: SECONDS,
          rate: RATE,
          database: databaseUrl ? 'postgresql' : 'embedded',
          rows,
          checks,
          statuses: Object.fromEntries(statuses),
          failures,
        },
        null,
        2,
      ),
    );

  server.child.kill('SIGTERM');
  const code = await server.exited;
  agent.destroy();
  const ok = Object.values(checks).every(Boolean) && code === 0;
  if (code !== 0) console.log(`FAIL  the server exited with ${code} (log: ${logFile})`);
  if (ok) rmSync(workDir, { recursive: true, force: true });
  process.exit(ok ? 0 : 1);
}

main().catch((error) => {
  console.error(error);
  running?.child.kill('SIGTERM');
  process.exit(1);
});
