// The server as `npm start` runs it: a child process on a free port of 127.0.0.1.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { record, recordedServerEnv } from './leak-recording.ts';
import { basic, eventBody, STAFF, TEST_DATA_DIR, type TestMuseum } from './museum.ts';
import { eventually } from './receiver.ts';

/**
 * `npm start`'s environment (its `NAME=value` prefixes) and arguments to node (its V8 flags, then
 * src/start.mjs): a spawned server runs as it runs.
 */
export const { serverEnv, serverArgs } = (() => {
  const root = new URL('../../', import.meta.url);
  const { scripts } = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
  const words = (scripts.start as string).split(' ');
  const serverEnv: Record<string, string> = {};
  while (/^[A-Z_]+=/.test(words[0]!)) {
    const [name, value] = words.shift()!.split('=') as [string, string];
    serverEnv[name] = value;
  }
  const [command, ...args] = words;
  if (command !== 'node') throw new Error(`npm start runs ${command}, not node`);
  return {
    serverEnv,
    serverArgs: args.map((arg) => (arg.startsWith('-') ? arg : new URL(arg, root).pathname)),
  };
})();

export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

export interface RunningServer {
  child: ChildProcess;
  url: string;
  stdout(): string;
  stderr(): string;
  exited: Promise<number | null>;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/**
 * `untraced`: with the leak scan on, a spawned server is traced (to this process); a test of what the server
 * loads turns that off, as the OTLP exporter loads modules a server without tracing never does.
 */
export async function spawnServer(
  env: Record<string, string>,
  { untraced = false }: { untraced?: boolean } = {},
): Promise<RunningServer> {
  const port = await freePort();
  const child = spawn(process.execPath, serverArgs, {
    env: {
      PATH: process.env.PATH,
      ...serverEnv,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      // With the leak scan on: at debug level, traced (a test's own settings come after).
      ...recordedServerEnv({ untraced }),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk) => {
    out += chunk;
  });
  child.stderr!.on('data', (chunk) => {
    err += chunk;
  });
  // What it wrote goes to the leak scan once it is done writing.
  child.once('close', () => record('servers', `${out}\n${err}`));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  // Ready when /health/live answers 200 (it answers 503 while the database is being opened), whatever
  // the LOG_LEVEL.
  const deadline = Date.now() + 30_000;
  const live = () =>
    fetch(`http://127.0.0.1:${port}/health/live`).then(
      (response) => response.status === 200,
      () => false,
    );
  while (!(await live())) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server did not start:\n${out}\n${err}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    child,
    url: `http://127.0.0.1:${port}`,
    stdout: () => out,
    stderr: () => err,
    exited,
    stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/** The JSON log lines a server process has written to stderr so far. */
export function logLines(server: RunningServer): Record<string, unknown>[] {
  return server
    .stderr()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** The server's log lines whose message starts with `prefix`, once there is one (the log is written in batches, up to 100 ms late). */
export function loggedLines(server: RunningServer, prefix: string): Promise<Record<string, unknown>[]> {
  return eventually(async () => {
    const lines = logLines(server).filter((line) => String(line.message).startsWith(prefix));
    return lines.length > 0 && lines;
  });
}

/** A server process over the test museum's database (PostgreSQL), or its own in memory, with the staff account. */
export function spawnServerFor(
  museum: TestMuseum,
  env: Record<string, string> = {},
  options: { untraced?: boolean } = {},
): Promise<RunningServer> {
  return spawnServer(
    {
      MUSEUM_DATA_DIR: TEST_DATA_DIR,
      DATABASE_URL: 'memory://',
      ...museum.databaseEnv,
      MUSEUM_ADMIN_USER: STAFF.name,
      MUSEUM_ADMIN_PASSWORD: STAFF.password,
      ...env,
    },
    options,
  );
}

/** A started server's GraphQL-over-WebSocket URL. */
export const wsUrl = (server: RunningServer) => `${server.url.replace('http:', 'ws:')}/graphql`;

/** Waits until `count` specialEventPublished subscriptions are open on `server` (its /metrics says so). */
export const whenSubscribed = (server: RunningServer, count: number) =>
  eventually(async () =>
    new RegExp(`^live_subscriptions ${count}$`, 'm').test(
      await (await fetch(`${server.url}/metrics`)).text(),
    ),
  );

/** An event made through `server` (REST, as staff); its id. */
export async function makeEvent(server: Pick<RunningServer, 'url'>): Promise<string> {
  const made = await fetch(`${server.url}/special-events`, {
    method: 'POST',
    headers: { authorization: basic(STAFF.name, STAFF.password), 'content-type': 'application/json' },
    body: JSON.stringify(eventBody()),
  });
  if (made.status !== 201) throw new Error(`making an event: ${made.status} ${await made.text()}`);
  return ((await made.json()) as { eventId: string }).eventId;
}

/**
 * Makes events through `maker` until `heard` names one of them, and returns it. An instance that has just
 * started may not be listening to the others yet (its LISTEN connection opens in the background), so the
 * first event made elsewhere can pass it by.
 */
export async function makeEventUntilHeard(
  maker: Pick<RunningServer, 'url'>,
  heard: () => string | undefined,
) {
  const made: string[] = [];
  let madeAt = 0;
  return eventually(async () => {
    const id = heard();
    if (id !== undefined && made.includes(id)) return id;
    // One more every half second until one is heard.
    if (Date.now() - madeAt > 500) {
      made.push(await makeEvent(maker));
      madeAt = Date.now();
    }
    return undefined;
  }, 30_000);
}
