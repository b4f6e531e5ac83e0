import pg from 'pg';

/** A statement as pg's promise form takes it: its text, and the name it is prepared under (or traced as). */
export interface StatementConfig {
  text: string;
  name?: string;
  /** The statement's name where it goes unnamed (behind a transaction pooler), for tracing only. */
  statement?: string;
}

/** Runs a statement (`run`) for `client`: where tracing puts its span around it. */
export type StatementHook = (
  client: { database?: string; host?: string; port?: number },
  statement: StatementConfig,
  run: () => Promise<unknown>,
) => Promise<unknown>;

let statementHook: StatementHook | null = null;

/** Puts `hook` around every statement sent from now on (src/tracing.ts, once tracing starts). */
export function aroundStatements(hook: StatementHook): void {
  statementHook = hook;
}

/** pg's Client as this module sees it: `query`'s many overloads taken as one. */
interface PgClient {
  query(...args: unknown[]): unknown;
}

/**
 * pg's Client as every pool of the service makes it: MikroORM's (given as its `driverOptions.Client`, the
 * option pg-pool documents), the read replicas', and the LISTEN connections. Its one change is `query`'s
 * promise form, the form MikroORM (through Kysely) and src/db/sql.ts use:
 * - it is answered through pg's callback form: the promise pg makes itself kept each result alive through
 *   V8's young-generation collections until the next full one (~0.6 MB promoted per scavenge under load,
 *   against ~4 KB through the callback; docs/performance.md);
 * - with tracing on, each statement runs inside the hook's span.
 * Cursors, callbacks and pg-pool's own calls pass through as they are.
 */
export class MuseumClient extends (pg.Client as unknown as new (config?: unknown) => PgClient) {
  override query(...args: unknown[]): unknown {
    const [config] = args;
    if (
      config == null ||
      typeof (config as { submit?: unknown }).submit === 'function' ||
      args.some((arg) => typeof arg === 'function')
    )
      return super.query(...args);
    const run = () =>
      new Promise((resolve, reject) => {
        super.query(...args, (error: unknown, result: unknown) => (error ? reject(error) : resolve(result)));
      });
    const statement = (typeof config === 'string' ? { text: config } : config) as StatementConfig;
    if (!statementHook || typeof statement.text !== 'string') return run();
    return statementHook(this as never, statement, run);
  }
}
