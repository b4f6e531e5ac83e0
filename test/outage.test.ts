// The database going away under load (issue 12): a PostgreSQL server of the test's own is stopped and
// started again (and killed) while purchases run. Every purchase is answered 201 or 503 with Retry-After,
// /health/ready says 503 meanwhile, the pool recovers by itself, and every acknowledged ticket is there.
// PostgreSQL only (TEST_DATABASE_URL set, Debian's server binaries present); it needs root to run the
// private server as the postgres user, as .ci/run does.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, STAFF, upcomingOpenDay } from './support/museum.ts';
import { freePort, type RunningServer, spawnServer } from './support/server.ts';

const pgBin = (() => {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return null;
  const version = readdirSync(base).sort((a, b) => Number(b) - Number(a))[0];
  return version ? join(base, version, 'bin') : null;
})();
const runnable = Boolean(process.env.TEST_DATABASE_URL) && pgBin !== null && process.getuid?.() === 0;

const asPostgres = (command: string) =>
  execFileSync('su', ['postgres', '-s', '/bin/sh', '-c', command], { stdio: 'pipe', timeout: 60_000 });

describe.skipIf(!runnable)('PostgreSQL stopping and crashing during purchases', () => {
  let dir: string;
  let port: number;
  let server: RunningServer;
  const authorization = basic(STAFF.name, STAFF.password);
  const ctl = (action: string) =>
    asPostgres(
      `${pgBin}/pg_ctl -D ${dir}/data -l ${dir}/log -w -m fast -o "-p ${port} -c listen_addresses=127.0.0.1 -k ${dir}" ${action}`,
    );

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'museum-outage-'));
    execFileSync('chown', ['postgres', dir]);
    port = await freePort();
    asPostgres(`${pgBin}/initdb -D ${dir}/data -U postgres --auth=trust -E UTF8 --locale=C.UTF-8`);
    ctl('start');
    server = await spawnServer({
      DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/postgres`,
      MUSEUM_ADMIN_USER: STAFF.name,
      MUSEUM_ADMIN_PASSWORD: STAFF.password,
      LOG_LEVEL: 'warn',
    });
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    spawnSync('su', ['postgres', '-s', '/bin/sh', '-c', `${pgBin}/pg_ctl -D ${dir}/data -m immediate stop`]);
    rmSync(dir, { recursive: true, force: true });
  });

  /** Buys tickets with `clients` loops until `stop` says so; every answer's status and ticket. */
  function purchaseLoop(clients: number) {
    const answers: { status: number; retryAfter: string | null; ticketId?: string }[] = [];
    let running = true;
    const loops = Array.from({ length: clients }, async () => {
      while (running) {
        try {
          const response = await fetch(`${server.url}/tickets`, {
            method: 'POST',
            headers: { authorization, 'content-type': 'application/json' },
            body: JSON.stringify({
              ticketType: 'general',
              ticketDate: upcomingOpenDay(0),
              email: 'a@example.com',
            }),
          });
          const body = (await response.json()) as { ticketId?: string };
          answers.push({ status: response.status, retryAfter: response.headers.get('retry-after'), ...body });
        } catch {
          answers.push({ status: 0, retryAfter: null });
        }
      }
    });
    return {
      answers,
      async stop() {
        running = false;
        await Promise.all(loops);
      },
    };
  }

  const until = async (check: () => Promise<boolean>, what: string) => {
    const deadline = Date.now() + 30_000;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  const ready = async () => (await fetch(`${server.url}/health/ready`)).status;

  it.each([
    ['stopped and started again', 'stop', 'fast'],
    ['killed (crash) and started again', 'kill', 'immediate'],
  ])(
    '%s: only 201 and 503, then 201 again, and every 201 ticket is kept',
    async (_name, _how, mode) => {
      expect(await ready()).toBe(200);
      const loop = purchaseLoop(4);
      await until(async () => loop.answers.some((a) => a.status === 201), 'a first purchase');
      asPostgres(`${pgBin}/pg_ctl -D ${dir}/data -m ${mode} stop`);
      await until(async () => (await ready()) === 503, '/health/ready to say 503');
      await until(async () => loop.answers.some((a) => a.status === 503), 'a 503 purchase');
      ctl('start');
      const restarted = loop.answers.length;
      await until(async () => loop.answers.slice(restarted).some((a) => a.status === 201), 'purchases again');
      await loop.stop();
      expect(await ready()).toBe(200);

      const statuses = new Set(loop.answers.map((a) => a.status));
      expect([...statuses].sort()).toEqual([201, 503]);
      for (const answer of loop.answers.filter((a) => a.status === 503))
        expect(answer.retryAfter).toBeTruthy();
      const sold = loop.answers.filter((a) => a.status === 201).map((a) => a.ticketId!);
      for (const ticketId of sold) {
        const read = await fetch(`${server.url}/tickets/${ticketId}`, { headers: { authorization } });
        expect(read.status, ticketId).toBe(200);
      }
    },
    120_000,
  );
});
