import { DeadlockException } from '@mikro-orm/core';
import { PostgreSqlPlatform } from '@mikro-orm/postgresql';
import type { Client, Pool, PoolClient } from 'pg';
import { type Replica, type Replicas, statementKind } from './replicas.ts';

/**
 * A statement sent by name: each connection parses and plans it once (a generic plan, see mikro-orm.config.ts)
 * and then only binds values to it. Behind a transaction pooler the name is not sent (see createSql).
 * `Row` is one row of its answer (never: it answers none that is read) and `Params` the values bound to $1,
 * $2, …, declared beside its text so that every call is checked against them.
 */
export interface Statement<Row = unknown, Params extends readonly unknown[] = readonly unknown[]> {
  readonly name: string;
  readonly text: string;
  /** A read whose answer may be slightly stale: a read replica may serve it (src/db/replicas.ts). */
  readonly mayBeStale: boolean;
  /**
   * It writes (or locks, or notifies): run outside a transaction, its request reads the primary from then on,
   * and its account's reads wait for replicas that have it (src/db/replicas.ts).
   */
  readonly writes: boolean;
  /** The row and the parameters, for the compiler only: never set. */
  readonly types?: { row: Row; params: Params };
}

const texts = new Map<string, string>();

/** Declares a named statement. pg refuses a name used with two texts, so that is caught here, at import. */
export function statement<Row = never, Params extends readonly unknown[] = []>(
  name: string,
  text: string,
  options: { mayBeStale?: boolean } = {},
): Statement<Row, Params> {
  const known = texts.get(name);
  if (known !== undefined && known !== text) throw new Error(`Two statements are named ${name}`);
  texts.set(name, text);
  const writes = statementKind(text) !== 'read';
  if (writes && options.mayBeStale)
    throw new Error(`Statement ${name} writes: it cannot be read from a replica`);
  return { name, text, mayBeStale: options.mayBeStale ?? false, writes };
}

/** A timestamptz column as RFC 3339 in UTC (`2030-09-01T08:30:00.000Z`), what the `DateTime` scalar speaks. */
export const rfc3339 = (column: string) =>
  `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** The same to the microsecond, as timestamptz holds it: a sort key that must compare equal to its column. */
export const rfc3339Micros = (column: string) =>
  `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

export interface Queryable {
  /** The rows of one statement, as plain objects; values bind to $1, $2, … */
  query<Row, Params extends readonly unknown[]>(
    statement: Statement<Row, Params>,
    values: Params,
  ): Promise<Row[]>;
}

export interface Sql extends Queryable {
  /**
   * Runs `work` on one connection in a transaction: committed when it resolves, rolled back when it throws.
   * The one way to a transaction. When PostgreSQL aborts it to break a deadlock (40P01: writers of the shared
   * counter rows can meet in opposite orders, and one of them is chosen to fail), `work` runs again in a new
   * one, three times at most: so `work` does nothing outside the database that it would not do twice.
   */
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * LISTENs on `channel` on a connection of its own, kept until `stop` and replaced when it breaks (what
   * was notified meanwhile is missed). PostgreSQL only: the embedded database is one session.
   */
  listen(channel: string, onPayload: (payload: string) => void, onBroken: (error: Error) => void): Listening;
  /** Stops every listening (their connections end). */
  stopListening(): Promise<void>;
}

export interface Listening {
  stop(): Promise<void>;
}

const RELISTEN_MS = 1_000;

export interface SqlOptions {
  /**
   * `pool` reaches a transaction pooler: every statement goes unnamed (parsed and planned at each run) and
   * no connection is given session settings, since each transaction may run on another server session.
   */
  pooler?: boolean;
  /** Where LISTEN connects when not through the pool's settings: the server itself (DATABASE_DIRECT_URL). */
  listenUrl?: string;
  /** Read replicas for the statements that may be stale. */
  replicas?: Replicas;
}

/**
 * `{ name, text, values }` is sent by name; `{ text, values }` unnamed, its `statement` (which pg does not
 * read) naming it for tracing only.
 */
type QueryConfig = { name?: string; statement?: string; text: string; values: unknown[] };

// A failed statement becomes MikroORM's exception for its SQLSTATE (UniqueConstraintViolationException,
// DeadlockException, …), which the services and the error mask know: MikroORM's own converter, with no ORM.
const converter = new PostgreSqlPlatform().getExceptionConverter();
export const toDriverError = (error: Error): Error => converter.convertException(error as never);

/** The primary's WAL position, read once a write committed, for read-your-writes (src/db/replicas.ts). */
const CURRENT_LSN = statement<{ lsn: string }>(
  'replicas_current_lsn',
  'select pg_current_wal_lsn()::text as lsn',
);

/** Deadlocks a transaction is tried through before its failure is the caller's. */
const DEADLOCK_TRIES = 3;

/**
 * Every statement of the service: prepared statements over the primary's `pg` pool (its connections'
 * settings: src/db/connection.ts), a stale-tolerant read on a replica when one may serve it, and
 * transactions. A failure is MikroORM's exception for it (`toDriverError`).
 */
export function createSql(pool: Pool, options: SqlOptions = {}): Sql {
  const { pooler = false, replicas } = options;
  const configOf = (statement: Statement, values: readonly unknown[]): QueryConfig =>
    pooler
      ? { statement: statement.name, text: statement.text, values: values as unknown[] }
      : { name: statement.name, text: statement.text, values: values as unknown[] };

  /** Runs one statement; a failure tells whether the connection itself broke (then it is not reused). */
  const run = async <T>(
    client: PoolClient,
    statement: Statement | string,
    values: readonly unknown[] = [],
  ): Promise<T[]> => {
    try {
      const result =
        typeof statement === 'string'
          ? await client.query(statement)
          : await client.query(configOf(statement, values));
      return result.rows as T[];
    } catch (error) {
      // An error the server answered (it has a severity) leaves the connection as good as before.
      const converted = toDriverError(error as Error);
      if (!(error as { severity?: string }).severity) brokenConnections.add(client);
      throw converted;
    }
  };
  const brokenConnections = new WeakSet<PoolClient>();

  /**
   * A read on a replica; undefined when the replica could not answer it (the primary answers then). A
   * replica that cannot be reached is skipped until its next poll; an error it answered (a query
   * cancelled by recovery, say) sends this read alone to the primary, which answers it or fails it as ever.
   */
  const onReplica = async <T>(replica: Replica, statement: Statement, values: readonly unknown[]) => {
    let client: PoolClient;
    try {
      client = await replica.pool.connect();
    } catch {
      replica.failed();
      replicas?.counted('primary');
      return undefined;
    }
    try {
      const result = await client.query(configOf(statement, values));
      client.release();
      replicas?.counted('replica');
      return { rows: result.rows as T[] };
    } catch (error) {
      const answered = Boolean((error as { severity?: string }).severity);
      client.release(answered ? undefined : (error as Error));
      if (!answered) replica.failed();
      replicas?.counted('primary');
      return undefined;
    }
  };

  const connect = () =>
    pool.connect().catch((error: Error) => {
      throw toDriverError(error);
    });

  // A connection of its own, outside the pool (whose connections all serve requests), with the pool's
  // settings; replaced a second after it breaks.
  function listen(
    channel: string,
    onPayload: (payload: string) => void,
    onBroken: (error: Error) => void,
  ): Listening {
    const ListenerClient = (pool as unknown as { Client: new (options: unknown) => Client }).Client;
    let client: Client | undefined;
    let stopped = false;
    let retry: NodeJS.Timeout | undefined;
    const broken = (error: Error) => {
      if (stopped) return;
      client?.end().catch(() => {});
      client = undefined;
      onBroken(error);
      retry = setTimeout(open, RELISTEN_MS);
      retry.unref();
    };
    const open = async () => {
      const connecting = new ListenerClient(
        options.listenUrl ? { connectionString: options.listenUrl } : pool.options,
      );
      client = connecting;
      connecting.on('notification', (message) => {
        if (message.channel === channel && message.payload !== undefined) onPayload(message.payload);
      });
      connecting.on('error', broken);
      try {
        await connecting.connect();
        await connecting.query(`listen "${channel}"`);
      } catch (error) {
        if (client === connecting) broken(error as Error);
      }
    };
    void open();
    const listening: Listening = {
      async stop() {
        listenings.delete(listening);
        stopped = true;
        clearTimeout(retry);
        await client?.end().catch(() => {});
        client = undefined;
      },
    };
    listenings.add(listening);
    return listening;
  }
  const listenings = new Set<Listening>();

  return {
    listen,
    async stopListening() {
      await Promise.all([...listenings].map((listening) => listening.stop()));
    },
    // Not pool.query(): it closes the connection after any failed statement, a unique violation
    // included, and reconnecting costs a round trip (on the embedded database, a race with its one slot).
    async query<Row, Params extends readonly unknown[]>(
      statement: Statement<Row, Params>,
      values: Params,
    ): Promise<Row[]> {
      const replica = statement.mayBeStale ? replicas?.pick() : undefined;
      if (replica) {
        const answer = await onReplica<Row>(replica, statement, values);
        if (answer) return answer.rows;
      } else if (statement.mayBeStale) replicas?.counted('primary');
      // A write of the request: its reads go to the primary from now on, and once it is done its account's
      // reads wait for the replicas to have it.
      const write = statement.writes ? replicas?.writing() : undefined;
      const client = await connect();
      // Released after `run` has returned, not inside it: releasing in the statement's own continuation (two
      // promises fewer) made the event list promote ~50 MB/s to the old generation after a phase of
      // GET /museum-hours (19 full collections in 10 s instead of none, p99 ×2; node --trace-gc, 1M events).
      try {
        const rows = await run<Row>(client, statement, values);
        if (write) await write.committed(() => lsnOf(client));
        return rows;
      } finally {
        client.release(brokenConnections.has(client) ? new Error('connection broken') : undefined);
      }
    },
    async transaction(work) {
      for (let attempt = 1; ; attempt++) {
        try {
          return await once(work);
        } catch (error) {
          if (!(error instanceof DeadlockException) || attempt >= DEADLOCK_TRIES) throw error;
        }
      }
    },
  };

  async function lsnOf(client: PoolClient): Promise<string> {
    const [row] = await run<{ lsn: string }>(client, CURRENT_LSN, []);
    return row!.lsn;
  }

  async function once<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    // Every statement of a transaction goes to the primary, and so do the request's reads from now on.
    const write = replicas?.writing();
    const client = await connect();
    let broken: Error | undefined;
    try {
      await run(client, 'begin');
      const result = await work({
        query: <Row, Params extends readonly unknown[]>(statement: Statement<Row, Params>, values: Params) =>
          run<Row>(client, statement, values),
      });
      await run(client, 'commit');
      if (write) await write.committed(() => lsnOf(client));
      return result;
    } catch (error) {
      await run(client, 'rollback').catch((rollbackError: Error) => {
        broken = rollbackError;
      });
      throw error;
    } finally {
      // A connection that broke, or could not roll back, is closed rather than handed to the next caller.
      client.release(broken ?? (brokenConnections.has(client) ? new Error('connection broken') : undefined));
    }
  }
}
