import { createRequire } from 'node:module';

/** pg's `Client.prototype.query`, as the wrappers below see it. */
export type ClientQuery<This = unknown> = (this: This, ...args: unknown[]) => unknown;

/**
 * Replaces pg's `Client.prototype.query`, for every client (MikroORM's through Kysely, src/db/sql.ts's, the
 * replicas'), with `wrap` of the one in place. pg is loaded as CommonJS, before any ES module hook could see
 * it, so its prototype is the one place every statement passes.
 */
export function wrapClientQuery<This>(wrap: (query: ClientQuery) => ClientQuery<This>): void {
  const pg = createRequire(import.meta.url)('pg') as { Client: { prototype: { query: ClientQuery } } };
  pg.Client.prototype.query = wrap(pg.Client.prototype.query) as ClientQuery;
}
