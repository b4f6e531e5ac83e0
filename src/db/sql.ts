import type { Client, Pool, PoolClient } from 'pg';
import type { Replica, Replicas } from './replicas.ts';

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
  return { name, text, mayBeStale: options.mayBeStale ?? false };
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
  /** Runs `work` on one connection in a transaction: committed when it resolves, rolled back when it throws. */
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

/**
 * Prepared statements over MikroORM's own `pg` pool, for the hot paths that need no entities (its
 * connections' settings: mikro-orm.config.ts).
 * `toDriverError` turns a `pg` error into MikroORM's exception, so both paths fail alike.
 */
export function createSql(pool: Pool, toDriverError: (error: Error) => Error, options: SqlOptions = {}): Sql {
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
      const client = await connect();
      // Released after `run` has returned, not inside it: releasing in the statement's own continuation (two
      // promises fewer) made the event list promote ~50 MB/s to the old generation after a phase of
      // GET /museum-hours (19 full collections in 10 s instead of none, p99 ×2; node --trace-gc, 1M events).
      try {
        return await run<Row>(client, statement, values);
      } finally {
        client.release(brokenConnections.has(client) ? new Error('connection broken') : undefined);
      }
    },
    async transaction(work) {
      const client = await connect();
      let broken: Error | undefined;
      try {
        await run(client, 'begin');
        const result = await work({
          query: <Row, Params extends readonly unknown[]>(
            statement: Statement<Row, Params>,
            values: Params,
          ) => run<Row>(client, statement, values),
        });
        await run(client, 'commit');
        return result;
      } catch (error) {
        await run(client, 'rollback').catch((rollbackError: Error) => {
          broken = rollbackError;
        });
        throw error;
      } finally {
        // A connection that broke, or could not roll back, is closed rather than handed to the next caller.
        client.release(
          broken ?? (brokenConnections.has(client) ? new Error('connection broken') : undefined),
        );
      }
    },
  };
}
