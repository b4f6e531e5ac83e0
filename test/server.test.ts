// The started process on a real port: what `npm start` gives a newcomer.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../src/common/dates.ts';
import { basic, STAFF, todayUtc, upcomingOpenDay } from './support/museum.ts';
import { type RunningServer, serverArgs, serverEnv, spawnServer, spawnServerFor } from './support/server.ts';
import { useMuseum } from './support/use-museum.ts';

describe('npm start on the configured database', () => {
  let server: RunningServer;
  const auth = { authorization: basic(STAFF.name, STAFF.password) };

  // Migrated by the test harness; the server finds the schema current and the admin in place.
  const museum = useMuseum();
  beforeAll(async () => {
    // Untraced even with the leak scan on: the OTLP exporter would load undici, which the last test rules out.
    server = await spawnServerFor(museum, { NODE_OPTIONS: `--import=${EXIT_PROBE}` }, { untraced: true });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('answers health, REST and GraphQL over HTTP', async () => {
    expect((await fetch(`${server.url}/health/ready`)).status).toBe(200);
    const hours = await fetch(`${server.url}/museum-hours?limit=2`, { headers: auth });
    expect(hours.status).toBe(200);
    expect(await hours.json()).toHaveLength(2);
    const created = await fetch(`${server.url}/special-events`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'Night at the museum',
        location: 'Main hall',
        eventDescription: 'Torches and tales.',
        dates: [upcomingOpenDay(1)],
        price: 12.5,
      }),
    });
    expect(created.status).toBe(201);
    const { eventId } = await created.json();
    const gql = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ query: `{ specialEvent(eventId: "${eventId}") { name price } }` }),
    });
    expect(await gql.json()).toEqual({
      data: { specialEvent: { name: 'Night at the museum', price: 12.5 } },
    });
  });

  it('logs no password or Authorization header', () => {
    expect(server.stderr()).not.toContain(STAFF.password);
    expect(server.stderr()).not.toContain(auth.authorization.slice(6));
  });

  it('drains on SIGTERM: finishes the request in flight, then exits 0', async () => {
    const inFlight = fetch(`${server.url}/museum-hours?limit=30`, { headers: auth });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const code = await server.stop();
    expect((await inFlight).status).toBe(200);
    expect(code).toBe(0);
    expect(server.stderr()).toContain('"message":"stopped"');
  });

  it('never loaded what no request needs: the TypeScript stripper (start.mjs strips in a child) or undici', () => {
    // Written by EXIT_PROBE as the process exited, after the requests above.
    const line = server
      .stderr()
      .split('\n')
      .find((text) => text.startsWith('LOADED '));
    expect(JSON.parse(line!.slice('LOADED '.length))).toEqual({ typeScriptStripper: false, undici: false });
  });
});

/** Reports at exit which of Node's own heavy modules the process loaded (both are memory it keeps). */
const EXIT_PROBE = `data:text/javascript,${encodeURIComponent(`
  process.on('exit', () => {
    const loaded = process.moduleLoadList.join(' ');
    console.error('LOADED ' + JSON.stringify({ typeScriptStripper: loaded.includes('amaro'), undici: loaded.includes('undici') }));
  });`)}`;

describe('SIGTERM while the docs bundle is being compressed at its best', () => {
  const museum = useMuseum();

  // Its first brotli answer starts the best compression (~12 s of one core for 4.3 MB) in the background. A
  // process exits only once its thread pool's running task has ended: fed in one piece, that task was the
  // whole compression, and the server took 6–9 s to exit (over a minute under CI's load, failing a hook).
  it('exits within seconds, not after the compression', async () => {
    const server = await spawnServerFor(museum);
    try {
      const bundle = await fetch(`${server.url}/docs/assets/scalar-standalone.js`, {
        headers: { 'accept-encoding': 'br' },
      });
      expect(bundle.headers.get('etag')).toMatch(/-br5"$/);
      await bundle.arrayBuffer();
    } finally {
      const asked = Date.now();
      expect(await server.stop()).toBe(0);
      // ~0.5 s here now, against 6–9 s before.
      expect(Date.now() - asked).toBeLessThan(3_000);
    }
  });
});

describe('npm start on the embedded default', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'museum-data-'));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  // Two start-ups, each opening the embedded database, and a CLI: past 30 s on a busy 2-core runner.
  it('creates an admin with a printed password and the ten demo events, and keeps them across restarts', async () => {
    const first = await spawnServer({ MUSEUM_DATA_DIR: dataDir });
    const password = /password: (\S+)/.exec(first.stdout())?.[1];
    expect(password).toBeDefined();
    const auth = { authorization: basic('admin', password!) };
    const listAll = async (url: string) => {
      const response = await fetch(`${url}/special-events?endDate=${addDays(todayUtc(), 200)}&limit=30`, {
        headers: auth,
      });
      return response.json();
    };
    const events = await listAll(first.url);
    expect(events).toHaveLength(10);
    expect(events.map((e: { name: string }) => e.name)).toContain('Pirate Coding Workshop');
    expect(events.every((e: { dates: string[] }) => e.dates.every((date) => date > todayUtc()))).toBe(true);
    const users = spawnSync(
      process.execPath,
      [new URL('../src/cli/users.ts', import.meta.url).pathname, 'list'],
      {
        env: { PATH: process.env.PATH, MUSEUM_DATA_DIR: dataDir },
        encoding: 'utf8',
      },
    );
    expect(users.status).toBe(1);
    expect(users.stderr).toMatch(/is in use by process \d+; stop that process first/);
    expect(await first.stop()).toBe(0);

    const second = await spawnServer({ MUSEUM_DATA_DIR: dataDir });
    expect(second.stdout()).not.toContain('password');
    expect(await listAll(second.url)).toEqual(events);
    expect(await second.stop()).toBe(0);
  }, 120_000);
});

/** Runs the server entry with `env`, to its exit: the exit code and what it wrote to stderr. */
async function runToExit(env: Record<string, string>) {
  const child = spawn(process.execPath, serverArgs, {
    env: { PATH: process.env.PATH, ...serverEnv, ...env },
  });
  let err = '';
  let out = '';
  child.stderr.on('data', (chunk) => {
    err += chunk;
  });
  child.stdout.on('data', (chunk) => {
    out += chunk;
  });
  const code = await new Promise((resolve) => child.on('exit', resolve));
  return { code, err, out };
}

/** The lines a failed start-up printed that are not JSON log lines. */
const plainLines = (text: string) =>
  text
    .trim()
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('{'));

describe('start-up failures: one line, exit code 1, no stack', () => {
  it('names every bad variable at once', async () => {
    const { code, err } = await runToExit({
      PORT: 'eighty',
      MUSEUM_TIMEZONE: 'Atlantis/Capital',
      MUSEUM_ADMIN_USER: 'x',
    });
    expect(code).toBe(1);
    expect(plainLines(err)).toHaveLength(1);
    expect(err).toMatch(/PORT must be a whole number/);
    expect(err).toMatch(/MUSEUM_TIMEZONE/);
    expect(err).toMatch(/MUSEUM_ADMIN_PASSWORD must be set together with MUSEUM_ADMIN_USER/);
  });

  it('a port in use stops start-up before any account is created or password printed', async () => {
    const holder = createNetServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as { port: number };
    try {
      const { code, err, out } = await runToExit({ PORT: String(port), DATABASE_URL: 'memory://' });
      expect(code).toBe(1);
      expect(plainLines(err)).toEqual([
        `Port ${port} on 127.0.0.1 is already in use: stop what holds it, or set PORT`,
      ]);
      expect(out).not.toMatch(/password/i);
      expect(err).not.toMatch(/\bat .*\.ts/);
    } finally {
      holder.close();
    }
  });

  it('a HOST that is not an address of this machine', async () => {
    const { code, err } = await runToExit({ HOST: '192.0.2.123', PORT: '0', DATABASE_URL: 'memory://' });
    expect(code).toBe(1);
    expect(plainLines(err)).toHaveLength(1);
    expect(err).toMatch(/^HOST 192\.0\.2\.123 is not an address of this machine/);
  });

  it('an unreachable database, after MUSEUM_DB_CONNECT_TIMEOUT of retrying', async () => {
    const started = Date.now();
    const { code, err } = await runToExit({
      PORT: '0',
      DATABASE_URL: 'postgres://postgres@127.0.0.1:9/museum',
      MUSEUM_DB_CONNECT_TIMEOUT: '2',
      LOG_LEVEL: 'silent',
    });
    expect(code).toBe(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_000);
    expect(plainLines(err)).toHaveLength(1);
    expect(err).toMatch(/^The database is unreachable .*gave up after 2 s \(MUSEUM_DB_CONNECT_TIMEOUT\)/);
  });
});

describe('a Node.js older than 24', () => {
  // The machine's own Node, when it is older than the project's (Debian's, on these machines).
  const older = ['/usr/bin/node', '/usr/local/bin/node', '/bin/node'].find((path) => {
    const version = spawnSync(path, ['--version'], { encoding: 'utf8' }).stdout?.trim();
    return version !== undefined && /^v\d+/.test(version) && Number(version.slice(1).split('.')[0]) < 24;
  });
  it.skipIf(!older)('is told in one line what it needs and how to get it', () => {
    const started = spawnSync(older!, [new URL('../src/start.mjs', import.meta.url).pathname], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH },
    });
    expect(started.status).toBe(1);
    expect(started.stderr.trim().split('\n')).toHaveLength(1);
    expect(started.stderr).toMatch(
      /^Node\.js \S+ is too old: the Museum API needs Node\.js 24\. `npm ci` installs it/,
    );
  });
});

describe('bad configuration', () => {
  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://localhost/museum' }, 'DATABASE_URL'],
    [{ MUSEUM_TIMEZONE: 'Atlantis/Capital' }, 'MUSEUM_TIMEZONE'],
    [{ MUSEUM_CURRENCY: 'Euro' }, 'MUSEUM_CURRENCY'],
  ])('%o stops start-up with one line naming %s', async (env, variable) => {
    const child = spawn(process.execPath, serverArgs, {
      env: { PATH: process.env.PATH, ...serverEnv, ...env },
    });
    let err = '';
    child.stderr.on('data', (chunk) => {
      err += chunk;
    });
    const code = await new Promise((resolve) => child.on('exit', resolve));
    expect(code).toBe(1);
    expect(err.trim().split('\n')).toHaveLength(1);
    expect(err).toMatch(new RegExp(`^Invalid configuration: ${variable} `));
  });
});
