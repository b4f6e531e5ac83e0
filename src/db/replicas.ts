import { AsyncLocalStorage } from 'node:async_hooks';
import pg, { type Pool } from 'pg';
import { MuseumClient } from './pg-client.ts';

/**
 * Read replicas (DATABASE_READ_URLS): which one may serve a read that may be slightly stale, and which
 * reads must go to the primary. The rules:
 *
 * - A read goes to a replica only when its statement says it may be stale (`statement(…, { mayBeStale })`)
 *   and it runs within a request's scope (`Replicas.scope`): work outside a request (the event feed reading
 *   what a NOTIFY announced, the webhook worker) reads the primary.
 * - Every read of a request that writes goes to the primary: a mutation is marked so before it runs, and
 *   the first write of any other request marks it so too: a transaction, or a statement that writes (an
 *   insert, a `select … for update`, a NOTIFY: `statementKind`), each as src/db/sql.ts runs it
 *   (`Replicas.writing`). Nothing else reaches the primary within a request: every statement goes through
 *   that Sql, and pg's own objects are left as they are.
 * - Read-your-writes: after an account's write commits, the primary's WAL position
 *   (`pg_current_wal_lsn()`) is kept for the account, and its reads go only to replicas that have replayed
 *   past it (`pg_last_wal_replay_lsn()`, polled), else to the primary.
 * - A replica that is down, or further behind than `maxLagSeconds`, is skipped until a poll finds it well.
 *
 * The pins are this instance's: behind a balancer without stickiness, an account's next request may reach an
 * instance that has not seen its write (docs/operations.md says so).
 */
export interface Replicas {
  /** Runs one request's work in a scope of its own (the account, and whether it writes, are noted there). */
  scope<T>(work: () => T): T;
  /**
   * Runs `work` outside the request's scope: authentication, whose own writes (the login counters, some
   * of them not awaited) are not the request's and must not pin the account.
   */
  apart<T>(work: () => T): T;
  /** The request's authenticated account (its writes pin its reads); `writes`: a mutation. */
  enter(account: string | undefined, writes: boolean): void;
  /** A replica for a read that may be stale, within the current scope; undefined: read the primary. */
  pick(): Replica | undefined;
  /**
   * A write is about to run on the primary (a transaction, or a statement that writes): the request reads
   * the primary from now on. Undefined before the operation runs (authentication's own bookkeeping) and
   * outside a request; else `committed` is called once the write has committed, with a way to read the
   * primary's WAL position on the write's connection, and pins the account's reads to it.
   */
  writing(): Write | undefined;
  /** Counts a stale-tolerant read by where it went, for /metrics. */
  counted(target: 'primary' | 'replica'): void;
  status(): ReplicaStatus[];
  reads(): { primary: number; replica: number };
  /** Polls every replica once now (start-up, and tests that stopped one). */
  poll(): Promise<void>;
  close(): Promise<void>;
}

export interface Write {
  committed(currentLsn: () => Promise<string>): Promise<void>;
}

export interface Replica {
  name: string;
  pool: Pool;
  /** A read failed on it: skipped until the next poll finds it answering. */
  failed(): void;
}

export interface ReplicaStatus {
  /** host:port/database, never credentials. */
  name: string;
  up: boolean;
  /** Serving reads: up, in recovery and within the lag bound. */
  serving: boolean;
  /** Seconds its replay is behind the primary (0 when it has replayed everything the primary wrote). */
  lagSeconds: number | null;
  lagBytes: number | null;
}

interface Scope {
  /** The operation runs: its account is known (authentication's own writes came before). */
  entered: boolean;
  account: string | undefined;
  /** Everything of this request reads the primary. */
  primary: boolean;
}

interface ReplicaState extends Replica {
  up: boolean;
  replayLsn: bigint;
  lagSeconds: number | null;
  lagBytes: number | null;
}

/** How often replicas are polled; while some account waits for its write to reach them, more often. */
const POLL_MS = 1_000;
const PINNED_POLL_MS = 100;
const POLL_TIMEOUT_MS = 2_000;

/** `16/B374D848` as a number. */
export const parseLsn = (lsn: string): bigint => {
  const [high, low] = lsn.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
};

/** What a statement does to read-your-writes: opens a transaction, ends one, writes, or only reads. */
export function statementKind(text: string): 'begin' | 'commit' | 'rollback' | 'inside' | 'read' | 'write' {
  const head = text.trimStart().slice(0, 24).toLowerCase();
  if (head.startsWith('begin') || head.startsWith('start transaction')) return 'begin';
  if (head.startsWith('commit') || head.startsWith('end')) return 'commit';
  if (head.startsWith('rollback to') || head.startsWith('savepoint') || head.startsWith('release'))
    return 'inside';
  if (head.startsWith('rollback') || head.startsWith('abort')) return 'rollback';
  if (
    head.startsWith('select') &&
    !/\bfor\s+(no\s+key\s+)?(update|share|key\s+share)\b|pg_notify|nextval/i.test(text)
  )
    return 'read';
  return 'write';
}

const nameOf = (url: string) => {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
};

export function createReplicas(options: {
  urls: string[];
  primary: Pool;
  maxLagSeconds: number;
  /** PostgreSQL cancels a statement on a replica that runs longer (as on the primary). */
  statementTimeoutMs?: number;
  /** Behind a pooler: replicas' connections carry no session state either (unnamed statements). */
  onConnect?: (client: pg.Client) => Promise<void>;
  /** Told when a replica stops or starts serving. */
  onChange?: (status: ReplicaStatus) => void;
}): Replicas {
  const storage = new AsyncLocalStorage<Scope>();
  /** Accounts that wrote, with the primary's WAL position after the write and when it was noted. */
  const pins = new Map<string, { lsn: bigint; at: number }>();
  // A pin older than this is dropped: a replica that had not replayed it would be too far behind to serve.
  const pinMs = (options.maxLagSeconds + 2) * 1000;
  const counts = { primary: 0, replica: 0 };
  let primaryLsn = 0n;
  let next = 0;
  let closed = false;
  const replicas: ReplicaState[] = options.urls.map((url) => {
    const pool = new pg.Pool({
      connectionString: url,
      max: 10,
      connectionTimeoutMillis: 2_000,
      idleTimeoutMillis: 30_000,
      application_name: 'museum-api',
      ...(options.statementTimeoutMs ? { statement_timeout: options.statementTimeoutMs } : {}),
      Client: MuseumClient,
      ...(options.onConnect ? { onConnect: options.onConnect } : {}),
    } as pg.PoolConfig);
    // An idle connection that breaks (the replica stopped) must not crash the process.
    pool.on('error', () => {});
    const state: ReplicaState = {
      name: nameOf(url),
      pool,
      up: false,
      replayLsn: 0n,
      lagSeconds: null,
      lagBytes: null,
      failed() {
        state.up = false;
      },
    };
    return state;
  });

  const serving = (replica: ReplicaState) =>
    replica.up && replica.lagSeconds !== null && replica.lagSeconds <= options.maxLagSeconds;

  const statusOf = (replica: ReplicaState): ReplicaStatus => ({
    name: replica.name,
    up: replica.up,
    serving: serving(replica),
    lagSeconds: replica.lagSeconds,
    lagBytes: replica.lagBytes,
  });

  async function pollOne(replica: ReplicaState) {
    const before = serving(replica);
    try {
      // A replica that does not answer in time (a network gone silent) is down until a poll finds it.
      let timer: NodeJS.Timeout | undefined;
      const { rows } = await Promise.race([
        replica.pool.query<{ lsn: string | null; standby: boolean }>(
          'select pg_last_wal_replay_lsn()::text as lsn, pg_is_in_recovery() as standby',
        ),
        new Promise<never>((_, reject) => {
          timer = setTimeout(reject, POLL_TIMEOUT_MS, new Error('no answer'));
        }),
      ]).finally(() => clearTimeout(timer));
      const row = rows[0]!;
      // A server that is not in recovery (a promoted standby, or a primary named by mistake) has no replay
      // position: it serves no replica reads, as nothing says how far it is behind.
      replica.up = row.standby && row.lsn !== null;
      replica.replayLsn = row.lsn ? parseLsn(row.lsn) : 0n;
      const bytes = primaryLsn > replica.replayLsn ? primaryLsn - replica.replayLsn : 0n;
      replica.lagBytes = Number(bytes);
      replica.lagSeconds = secondsBehind(replica.replayLsn);
    } catch {
      replica.up = false;
      replica.lagSeconds = null;
      replica.lagBytes = null;
    }
    if (before !== serving(replica)) options.onChange?.(statusOf(replica));
  }

  /**
   * The primary's WAL positions as polled, oldest first, over the last `maxLagSeconds` and a little more:
   * a replica is as far behind as the oldest position it has not replayed. (The replica's own
   * pg_last_xact_replay_timestamp() says when the last transaction it replayed committed, which on a quiet
   * primary is long ago even for a replica that has replayed everything.)
   */
  const positions: { at: number; lsn: bigint }[] = [];
  const secondsBehind = (replayed: bigint): number => {
    const first = positions.find((position) => position.lsn > replayed);
    return first ? Math.round(performance.now() - first.at) / 1000 : 0;
  };

  async function poll() {
    try {
      const { rows } = await options.primary.query<{ lsn: string }>(
        'select pg_current_wal_lsn()::text as lsn',
      );
      primaryLsn = parseLsn(rows[0]!.lsn);
      const now = performance.now();
      if (positions.at(-1)?.lsn !== primaryLsn) positions.push({ at: now, lsn: primaryLsn });
      // Beyond the bound (and a margin) only the oldest position matters: the replica is too far behind.
      while (positions.length > 1 && now - positions[1]!.at > (options.maxLagSeconds + 5) * 1000)
        positions.shift();
    } catch {
      // The primary away: the replicas' lag is measured against the last position known.
    }
    await Promise.all(replicas.map(pollOne));
    // An account whose write every replica has replayed reads them again (until then, pick() skips those
    // that have not); so does one whose write is older than any serving replica's lag can be.
    const now = performance.now();
    for (const [account, pin] of pins) {
      if (now - pin.at > pinMs || replicas.every((replica) => replica.replayLsn >= pin.lsn))
        pins.delete(account);
    }
  }

  let timer: NodeJS.Timeout | undefined;
  const schedule = () => {
    if (closed) return;
    timer = setTimeout(
      () => {
        void poll().finally(schedule);
      },
      pins.size > 0 ? PINNED_POLL_MS : POLL_MS,
    );
    timer.unref();
  };
  schedule();

  /** The primary's WAL position once a write of the account committed: its reads wait for it. */
  async function pin(scope: Scope, currentLsn: () => Promise<string>) {
    if (!scope.account) return;
    let lsn: bigint;
    try {
      lsn = parseLsn(await currentLsn());
    } catch {
      // The write has committed; where it ended is unknown: the account reads the primary until the pin ages.
      lsn = 2n ** 64n - 1n;
    }
    const known = pins.get(scope.account);
    if (known === undefined || lsn > known.lsn) pins.set(scope.account, { lsn, at: performance.now() });
    // Poll sooner than the idle pace, so that the account goes back to the replicas soon.
    if (timer && pins.size === 1) {
      clearTimeout(timer);
      // Outside this request's scope: the timer would otherwise carry it.
      storage.exit(schedule);
    }
  }

  return {
    scope: (work) => storage.run({ entered: false, account: undefined, primary: false }, work),
    apart: (work) => storage.exit(work),
    enter(account, writes) {
      const scope = storage.getStore();
      if (!scope) return;
      scope.entered = true;
      scope.account = account;
      if (writes) scope.primary = true;
    },
    pick() {
      const scope = storage.getStore();
      if (!scope || scope.primary || replicas.length === 0) return undefined;
      const needed = scope.account === undefined ? undefined : pins.get(scope.account)?.lsn;
      for (let tried = 0; tried < replicas.length; tried++) {
        const replica = replicas[next++ % replicas.length]!;
        if (serving(replica) && (needed === undefined || replica.replayLsn >= needed)) return replica;
      }
      return undefined;
    },
    writing() {
      const scope = storage.getStore();
      if (!scope?.entered) return undefined;
      scope.primary = true;
      return { committed: (currentLsn) => pin(scope, currentLsn) };
    },
    counted(target) {
      counts[target]++;
    },
    status: () => replicas.map(statusOf),
    reads: () => ({ ...counts }),
    poll,
    async close() {
      closed = true;
      clearTimeout(timer);
      await Promise.all(replicas.map((replica) => replica.pool.end().catch(() => {})));
    },
  };
}
