import pg from 'pg';
import { vi } from 'vitest';

/**
 * The SQL statements `send` causes, counted at the `pg` client that both MikroORM (through Kysely) and the
 * prepared statements of src/db/sql.ts go through.
 */
export async function statementsSentBy<T>(
  send: () => Promise<T>,
): Promise<{ response: T; statements: string[] }> {
  const statements: string[] = [];
  const query = pg.Client.prototype.query;
  const spy = vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (
    this: pg.Client,
    ...args: unknown[]
  ) {
    const sent = args[0] as string | { text: string; name?: string };
    // The mail worker's own statements (src/mail/outbox.ts) run beside requests, woken by a sale.
    if (typeof sent !== 'string' && sent.name?.startsWith('mail_worker_'))
      return query.apply(this, args as never);
    statements.push(typeof sent === 'string' ? sent : sent.text);
    return (query as (...args: unknown[]) => unknown).apply(this, args);
  } as typeof query);
  try {
    return { response: await send(), statements };
  } finally {
    spy.mockRestore();
  }
}
