import pg, { type Pool } from 'pg';
import { MuseumClient } from './pg-client.ts';

export type Connection =
  /** A Unix socket directory served by the embedded PGlite: it takes exactly one connection. */
  | { socketDir: string }
  /**
   * `pooler`: `url` is a transaction pooler, so no connection may carry session state (no SET).
   * `statementTimeoutMs`: PostgreSQL cancels a statement of these connections that runs longer.
   */
  | { url: string; poolSize?: number; pooler?: boolean; statementTimeoutMs?: number };

/** The database's name, as PostgreSQL knows it. */
export const databaseNameOf = (connection: Connection): string =>
  'socketDir' in connection ? 'postgres' : decodeURIComponent(new URL(connection.url).pathname.slice(1));

/**
 * What every connection is set to before its first statement, as one simple-protocol message: a generic plan
 * for each prepared statement (those with a parameterised LIMIT were re-planned at every run), and a
 * statement that outlives its operation's deadline cancelled. The embedded database is one session for
 * every connection it ever takes: a new connection starts without the statements an earlier one prepared
 * there, or preparing them again would fail. Behind a transaction pooler a connection is another server
 * session at every transaction: nothing (src/db/sql.ts sends unnamed statements, planned for their values;
 * the pooler's connect_query sets the timeout).
 */
export function settingsOf(connection: Connection): string | null {
  if ('url' in connection && connection.pooler) return null;
  const timeout = 'url' in connection ? connection.statementTimeoutMs : undefined;
  return [
    'set plan_cache_mode = force_generic_plan',
    ...(timeout ? [`set statement_timeout = ${Math.trunc(timeout)}`] : []),
    'deallocate all',
  ].join('; ');
}

/**
 * How values arrive: as pg parses them, but dates, timestamps and intervals (and arrays of them) stay the
 * text PostgreSQL sent ('2030-09-01'), as the statements and the answers take them; an array of them is
 * parsed as pg parses a text[].
 */
function typeParsers(): pg.CustomTypesConfig {
  const types = new pg.TypeOverrides();
  const asText = (text: string) => text;
  const textArray = pg.types.getTypeParser(1009 as never); // text[]
  // date, timestamp, timestamptz, interval
  for (const oid of [1082, 1114, 1184, 1186]) types.setTypeParser(oid, asText);
  // date[], timestamp[], timestamptz[], interval[]
  for (const oid of [1182, 1115, 1185, 1187]) types.setTypeParser(oid, textArray);
  return types;
}

/**
 * The service's connections to the primary (or the embedded database): pg's Pool of the service's client
 * (src/db/pg-client.ts), each connection given `settingsOf` before its first statement (pg-pool's
 * `onConnect`, awaited before the connection is used). A connection the server drops, idle or in use, is
 * discarded by the pool, never an uncaught error.
 */
export function createPool(connection: Connection): Pool {
  const settings = settingsOf(connection);
  const pool = new pg.Pool({
    ...('socketDir' in connection
      ? { host: connection.socketDir, port: 5432, database: 'postgres', user: 'postgres', min: 1, max: 1 }
      : { connectionString: connection.url, min: 0, max: connection.poolSize ?? 10 }),
    types: typeParsers(),
    Client: MuseumClient as unknown as typeof pg.Client,
    ...(settings && {
      onConnect: (client: pg.PoolClient) => client.query(settings).then(() => {}),
    }),
  } as pg.PoolConfig);
  // pg-pool leaves a checked-out connection's errors to its holder (whose statement fails on its own) and
  // re-emits an idle one's on the pool: neither may take the process down.
  pool.on('connect', (client) => client.on('error', () => {}));
  pool.on('error', () => {});
  return pool;
}
