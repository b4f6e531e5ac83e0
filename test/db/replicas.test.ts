// Read replicas (issue 26): a real streaming standby of the test server (pg_basebackup -R), replaying 2 s
// behind (recovery_min_apply_delay), so that a naive read is provably stale. Reads that may be stale go to
// it; the visitor who just bought a ticket sees it at once (read-your-writes: its reads stay on the primary
// until the standby has replayed past the purchase); everyone else's reads are served by the standby,
// which shows in its stale answers; a stopped standby is skipped; /health/ready and /metrics show the lag.
// On PostgreSQL only (TEST_DATABASE_URL); it needs root to run the standby as the postgres user, as
// .ci/run does. In CI (CI=true) a missing pg_basebackup fails rather than skips.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentedEnv } from '../support/docs.ts';
import {
  basic,
  directTestUrl,
  openSecondInstance,
  startMuseum,
  type TestMuseum,
  upcomingOpenDay,
  VISITOR,
} from '../support/museum.ts';
import { eventually } from '../support/receiver.ts';
import { freePort, loggedLines, spawnServer } from '../support/server.ts';

const APPLY_DELAY_S = 2;
const onPostgres = Boolean(process.env.TEST_DATABASE_URL);
const pgBin = (() => {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return null;
  const version = readdirSync(base).sort((a, b) => Number(b) - Number(a))[0];
  return version ? join(base, version, 'bin') : null;
})();
const missing =
  pgBin === null || !existsSync(join(pgBin, 'pg_basebackup'))
    ? 'pg_basebackup (Debian: apt-get install postgresql)'
    : process.getuid?.() !== 0
      ? 'root (to run the standby as the postgres user)'
      : null;

const asPostgres = (command: string) =>
  execFileSync('su', ['postgres', '-s', '/bin/sh', '-c', command], { stdio: 'pipe', timeout: 120_000 });

const generalTicket = (n: number) => ({
  ticketType: 'general',
  ticketDate: upcomingOpenDay(n),
  email: 'todd@example.com',
});

describe.skipIf(!onPostgres)('read replicas: a streaming standby of the test server', () => {
  if (missing) {
    // Outside CI a machine without it skips; CI must run these tests.
    it.skipIf(!process.env.CI)('needs a standby', () => {
      throw new Error(`the replica tests need ${missing}`);
    });
    return;
  }

  let dir: string;
  let port: number;
  let museum: TestMuseum;
  let replicaName: string;
  /** The standby's settings: its port, its delay, and what a hot standby needs as high as its primary. */
  let options: string;
  const ctl = (action: string) =>
    asPostgres(`${pgBin}/pg_ctl -D ${dir}/data -l ${dir}/log -w -m fast ${action}`);

  /** The standby's own view of a ticket: whether it has replayed its purchase yet. */
  async function onStandby(sql: string, values: unknown[]) {
    const client = new pg.Client({
      connectionString: `postgres://postgres@127.0.0.1:${port}/${replicaName}`,
    });
    await client.connect();
    try {
      return (await client.query(sql, values)).rows;
    } finally {
      await client.end();
    }
  }

  const metric = async (pattern: RegExp) => {
    const text = (await museum.request('GET', '/metrics')).text;
    const found = text.match(pattern);
    return found ? Number(found[1]) : undefined;
  };
  const replicaReads = () => metric(/^db_stale_tolerant_reads_total\{target="replica"\} (\d+)$/m);
  const ready = async () => (await museum.request('GET', '/health/ready')).body;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'museum-standby-'));
    execFileSync('chown', ['postgres', dir]);
    port = await freePort();
    const server = new URL(directTestUrl()!);
    // A hot standby needs these at least as high as its primary's.
    const primary = new pg.Client({ connectionString: server.toString() });
    await primary.connect();
    const { rows } = await primary.query<{ name: string; setting: string }>(
      `select name, setting from pg_settings where name in
         ('max_connections', 'max_worker_processes', 'max_wal_senders', 'max_prepared_transactions',
          'max_locks_per_transaction')`,
    );
    await primary.end();
    options = [
      `-p ${port} -c listen_addresses=127.0.0.1 -k ${dir} -c recovery_min_apply_delay=${APPLY_DELAY_S}s`,
      ...rows.map((row) => `-c ${row.name}=${row.setting}`),
    ].join(' ');
    asPostgres(
      `${pgBin}/pg_basebackup -h ${server.hostname} -p ${server.port || 5432} -U postgres -D ${dir}/data -R -X stream -c fast`,
    );
    ctl(`-o "${options}" start`);
    museum = await startMuseum(
      { DATABASE_REPLICA_MAX_LAG: '30' },
      {
        envFor: (name) => {
          replicaName = name;
          return { DATABASE_READ_URLS: `postgres://postgres@127.0.0.1:${port}/${name}` };
        },
      },
    );
    // The standby has the museum's database (and its visitors) once it has replayed them; the server may be
    // busy with other test files meanwhile, so it is not asked to have replayed everything.
    await eventually(async () => {
      const replayed = await onStandby('select 1 from account where name = $1', ['visitor']).catch(() => []);
      return replayed.length === 1 && (await ready()).replicas?.[0]?.serving;
    }, 30_000);
  }, 120_000);

  afterAll(async () => {
    await museum?.close();
    spawnSync('su', ['postgres', '-s', '/bin/sh', '-c', `${pgBin}/pg_ctl -D ${dir}/data -m immediate stop`]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('the visitor sees the ticket it just bought; anyone else reads the standby, which has not replayed it yet', async () => {
    const bought = await museum.rest('POST', '/tickets', { body: generalTicket(0) });
    expect(bought.status).toBe(201);
    const { ticketId } = bought.body;
    const readsBefore = (await replicaReads()) ?? 0;

    // Staff may read every ticket: served by the standby, 2 s behind, it is not there yet.
    const naive = await museum.rest('GET', `/tickets/${ticketId}`, { as: 'staff' });
    expect(naive.status).toBe(404);
    expect(await onStandby('select id from ticket where id = $1', [ticketId])).toEqual([]);
    expect(await replicaReads()).toBeGreaterThan(readsBefore);

    // The buyer's own reads, right after, always see it: REST and GraphQL, one ticket and the list.
    for (let i = 0; i < 5; i++) {
      const own = await museum.rest('GET', `/tickets/${ticketId}`);
      expect(own.status).toBe(200);
      expect(own.body).toMatchObject({ ticketId, status: 'valid' });
      const list = await museum.rest('GET', '/tickets?limit=30');
      expect(list.status).toBe(200);
      expect(list.body.map((ticket: { ticketId: string }) => ticket.ticketId)).toContain(ticketId);
      const me = await museum.graphql('{ me { tickets(limit: 30) { items { ticketId } } } }');
      expect(me.body.data.me.tickets.items.map((ticket: { ticketId: string }) => ticket.ticketId)).toContain(
        ticketId,
      );
    }

    // Once the standby has replayed the purchase, everyone sees it there, and the buyer reads the standby again.
    await eventually(
      async () => (await museum.rest('GET', `/tickets/${ticketId}`, { as: 'staff' })).status === 200,
      15_000,
    );
    expect(await onStandby('select id from ticket where id = $1', [ticketId])).toHaveLength(1);
    await eventually(async () => {
      const before = (await replicaReads()) ?? 0;
      expect((await museum.rest('GET', '/tickets')).status).toBe(200);
      return ((await replicaReads()) ?? 0) > before;
    }, 15_000);
  });

  it('every read of a request that writes goes to the primary', async () => {
    // A mutation that reads the event it creates: the standby could not have it.
    const created = await museum.graphql(
      `mutation($input: CreateSpecialEventInput!) {
         createSpecialEvent(input: $input) { eventId name }
       }`,
      {
        input: {
          name: 'Replayed later',
          location: 'Hall 2',
          eventDescription: 'An event the standby does not have yet.',
          dates: [upcomingOpenDay(2)],
          price: 10,
        },
      },
      { as: 'staff' },
    );
    expect(created.body.errors).toBeUndefined();
    expect(created.body.data.createSpecialEvent.name).toBe('Replayed later');
    const { eventId } = created.body.data.createSpecialEvent;
    // A visitor, who did not write it, reads the standby: not there yet.
    expect((await museum.rest('GET', `/special-events/${eventId}`)).status).toBe(404);
    // The staff account that wrote it reads the primary.
    expect((await museum.rest('GET', `/special-events/${eventId}`, { as: 'staff' })).status).toBe(200);
  });

  it('/health/ready and /metrics show the standby and its lag', async () => {
    const before = await ready();
    expect(before).toMatchObject({
      status: 'ok',
      replicas: [{ name: `127.0.0.1:${port}/${replicaName}`, up: true }],
    });
    // A write makes it lag: it replays 2 s later.
    expect((await museum.rest('POST', '/tickets', { body: generalTicket(1) })).status).toBe(201);
    await eventually(async () => {
      const lag = (await ready()).replicas[0].lagSeconds as number;
      return lag > 0.5 && lag < 10;
    }, 10_000);
    const label = `replica="127.0.0.1:${port}/${replicaName}"`;
    const text = (await museum.request('GET', '/metrics')).text;
    expect(text).toContain(`db_replica_up{${label}} 1`);
    expect(text).toMatch(new RegExp(`^db_replica_lag_seconds\\{${label}\\} [0-9.]+$`, 'm'));
    expect(text).toMatch(new RegExp(`^db_replica_lag_bytes\\{${label}\\} \\d+$`, 'm'));
  });

  it('docs/operations.md, "Read replicas": starts as pasted (this server for 5432, the standby for 5433 and 5434)', async () => {
    const primary = new URL(directTestUrl()!).host;
    const env = documentedEnv(
      'docs/operations.md',
      'Read replicas',
      {
        '127.0.0.1:5432': primary,
        '127.0.0.1:5433': `127.0.0.1:${port}`,
        '127.0.0.1:5434': `127.0.0.1:${port}`,
      },
      { user: 'postgres', database: replicaName },
    );
    expect(Object.keys(env).sort()).toEqual([
      'DATABASE_READ_URLS',
      'DATABASE_URL',
      'MUSEUM_ADMIN_PASSWORD',
      'MUSEUM_ADMIN_USER',
    ]);
    // On the museum's own database, which the standby has (through the pooler, when this run has one).
    const server = await spawnServer({ ...env, ...museum.databaseEnv });
    try {
      const said = await loggedLines(server, 'database: ');
      expect(said).toHaveLength(1);
      expect(said[0]!.message).toMatch(
        /; 2 read replicas \(127\.0\.0\.1:\d+\/museum_test_\w+, 127\.0\.0\.1:\d+\/museum_test_\w+\) for reads that may be stale, read-your-writes per account, skipped beyond 30 s of lag$/,
      );
      const ready = (await (await fetch(`${server.url}/health/ready`)).json()) as { replicas: unknown[] };
      expect(ready.replicas).toHaveLength(2);
    } finally {
      await server.stop();
    }
  });

  it('a standby lagging beyond DATABASE_REPLICA_MAX_LAG is skipped, and serves again once it caught up', async () => {
    // Another instance that allows 1 s of lag. While the primary keeps writing, the standby (2 s behind) is
    // always about 2 s late.
    const strict = await openSecondInstance(museum, {
      DATABASE_READ_URLS: `postgres://postgres@127.0.0.1:${port}/${replicaName}`,
      DATABASE_REPLICA_MAX_LAG: '1',
    });
    const status = () => strict.deps.db.replicas!.status()[0]!;
    const reads = () => strict.deps.db.replicas!.reads();
    const read = (path: string) =>
      strict.fetch(`http://museum.test${path}`, {
        headers: { authorization: basic(VISITOR.name, VISITOR.password) },
      });
    let writing = true;
    const writer = (async () => {
      const client = new pg.Client({
        connectionString: museum.databaseEnv.DATABASE_DIRECT_URL ?? museum.databaseUrl,
      });
      await client.connect();
      await client.query('create table if not exists lag_probe (at timestamptz)');
      while (writing) {
        await client.query('insert into lag_probe values (now())');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await client.end();
    })();
    try {
      await eventually(async () => {
        await strict.deps.db.replicas!.poll();
        return !status().serving && (status().lagSeconds ?? 0) > 1;
      }, 15_000);
      expect(status()).toMatchObject({ up: true, serving: false });
      // Skipped: a visitor's reads there go to the primary.
      const before = reads();
      expect((await read('/special-events')).status).toBe(200);
      expect((await read('/museum-hours')).status).toBe(200);
      const after = reads();
      expect(after.replica).toBe(before.replica);
      expect(after.primary).toBeGreaterThan(before.primary);
    } finally {
      writing = false;
      await writer;
    }
    // The writes over, it catches up and serves again. The standby replays the whole test server, which the
    // file running beside this one may keep writing to: 2 s behind, it would wait for a quiet second that
    // may not come. Restarted without its apply delay, it catches up at once (and gets it back after).
    ctl(
      `-o "${options.replace(`recovery_min_apply_delay=${APPLY_DELAY_S}s`, 'recovery_min_apply_delay=0')}" restart`,
    );
    try {
      await eventually(async () => {
        await strict.deps.db.replicas!.poll();
        return status().serving;
      }, 30_000);
      // A read may first meet a connection the restart closed (answered by the primary); then the standby.
      const before = reads().replica;
      await eventually(async () => {
        expect((await read('/special-events')).status).toBe(200);
        return reads().replica > before;
      }, 10_000);
    } finally {
      ctl(`-o "${options}" restart`);
      await strict.close();
    }
  }, 90_000);

  it('a stopped standby is skipped: reads go to the primary, and readiness stays 200', async () => {
    const event = await museum.rest('POST', '/special-events', {
      as: 'staff',
      body: { name: 'Seen', location: 'Hall', eventDescription: 'x', dates: [upcomingOpenDay(3)], price: 1 },
    });
    expect(event.status).toBe(201);
    ctl('stop');
    try {
      // The first read may find the standby gone: it is answered by the primary all the same.
      for (let i = 0; i < 5; i++) {
        const read = await museum.rest('GET', `/special-events/${event.body.eventId}`);
        expect(read.status).toBe(200);
        expect(read.body.name).toBe('Seen');
      }
      await museum.deps.db.replicas!.poll();
      const answer = await museum.request('GET', '/health/ready');
      expect(answer.status).toBe(200);
      expect(answer.body.replicas).toEqual([
        {
          name: `127.0.0.1:${port}/${replicaName}`,
          up: false,
          serving: false,
          lagSeconds: null,
          lagBytes: null,
        },
      ]);
      const text = (await museum.request('GET', '/metrics')).text;
      expect(text).toContain(`db_replica_up{replica="127.0.0.1:${port}/${replicaName}"} 0`);
      const before = (await replicaReads()) ?? 0;
      expect((await museum.rest('GET', '/special-events')).status).toBe(200);
      expect(await replicaReads()).toBe(before);
    } finally {
      ctl(`-o "${options}" start`);
    }
    // Back, it serves again once a poll finds it.
    await eventually(async () => (await ready()).replicas[0].serving === true, 30_000);
  });
});
