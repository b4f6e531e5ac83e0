import pg from 'pg';
import { vi } from 'vitest';

/**
 * The SQL statements `send` causes, counted at the `pg` client that both MikroORM (through Kysely) and the
 * prepared statements of src/db/sql.ts go through.
 */
/**
 * The texts of the mail worker's statements: it queues the mails owed, takes, reads the tickets of, records,
 * and looks ahead.
 */
const MAIL_WORKER_TEXT =
  /^(with owed as \(|update mail\b|select case when exists \(select from ticket where mail_owed\))|from unnest\(\$1::uuid\[\]\) with ordinality as wanted/;

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
    const text = typeof sent === 'string' ? sent : sent.text;
    // The mail worker's own statements (src/mail/outbox.ts, mail.service.ts) run beside requests, woken by a
    // sale: known by name, or by text behind a pooler, where statements go unnamed.
    const worker =
      typeof sent !== 'string' && (sent.name?.startsWith('mail_worker_') || MAIL_WORKER_TEXT.test(text));
    if (!worker) statements.push(text);
    return (query as (...args: unknown[]) => unknown).apply(this, args);
  } as typeof query);
  try {
    return { response: await send(), statements };
  } finally {
    spy.mockRestore();
  }
}
