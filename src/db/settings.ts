// What the configuration (src/config.ts) says of the database: the embedded one, or a PostgreSQL server.

export interface EmbeddedSettings {
  kind: 'embedded';
  /** Where the database is kept; null: in memory, gone when the process ends. */
  dataDir: string | null;
  /** Where a new in-memory database's initdb result is kept for the next start (src/db/fresh-cluster.ts). */
  cacheDir?: string;
}

export interface PostgresSettings {
  kind: 'postgres';
  /** Request traffic: the server itself, or a transaction-mode pooler in front of it. */
  url: string;
  /**
   * DATABASE_DIRECT_URL: the server itself, when `url` is a transaction pooler (its presence says so).
   * Migrations, their lock and LISTEN use it; request traffic then holds nothing beyond a transaction.
   */
  directUrl: string | null;
  /** DATABASE_READ_URLS: streaming replicas for reads that may be slightly stale. */
  readUrls: string[];
  /** A replica whose replay is further behind than this many seconds is skipped. */
  replicaMaxLagSeconds: number;
  /**
   * REQUEST_TIMEOUT_MS (at least 1 s): PostgreSQL cancels a statement that runs longer (`statement_timeout`), so
   * an operation answered 503 for its deadline stops its work too. Behind a pooler the pooler sets it
   * (docs/operations.md).
   */
  statementTimeoutMs: number;
}

export type DatabaseSettings = EmbeddedSettings | PostgresSettings;
