import pg from 'pg';
import { vi } from 'vitest';

/**
 * The texts of the background workers' statements. The mail worker queues the mails owed, takes, reads the
 * tickets of, records, and looks ahead; the webhook worker looks for subscriptions, takes due deliveries,
 * records, and looks ahead (woken by an event's change, a round may start while a later request runs).
 */
const WORKER_TEXT =
  /^(with owed as \(|update mail\b|select case when exists \(select from ticket where mail_owed\)|update webhook_delivery\b|select exists \(select 1 from webhook_subscription\)|select extract\(epoch from min\(next_attempt_at\) - now\(\)\)::float8 as seconds\s+from webhook_delivery)|from unnest\(\$1::uuid\[\]\) with ordinality as wanted/;
const WORKER_NAME = /^(mail_worker_|webhook_(take_due|record_attempt|next_due|any_subscription)$)/;
/**
 * A credential's check: the login counters taken and given back, and the account read. A request whose
 * cached credential is half its age renews it in the background (src/accounts/authenticator.ts), and that
 * renewal may run while a later request is counted (the cache itself: test/units.test.ts).
 */
const LOGIN_TEXT =
  /^(insert into login_throttle |with cleared as \(\s*delete from login_throttle |select "a0"\.\* from "account" as "a0" where "a0"\."name" = )/;

type Sent = string | { text: string; name?: string };

/**
 * Whether a statement belongs to the background rather than the request counted. The workers' own
 * statements (src/mail/, src/webhooks/dispatcher.ts), woken by a sale or a change, are known by name, or by
 * text behind a pooler, where statements go unnamed; a credential's check by its text.
 */
function ranBeside(sent: Sent): boolean {
  if (typeof sent === 'string') return LOGIN_TEXT.test(sent);
  return WORKER_NAME.test(sent.name ?? '') || WORKER_TEXT.test(sent.text) || LOGIN_TEXT.test(sent.text);
}

/**
 * The SQL statements `send` causes, counted at the `pg` client that both MikroORM (through Kysely) and the
 * prepared statements of src/db/sql.ts go through; what runs beside it in the background
 * (the workers, a credential's renewal) is left out.
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
    const sent = args[0] as Sent;
    if (!ranBeside(sent)) statements.push(typeof sent === 'string' ? sent : sent.text);
    return (query as (...args: unknown[]) => unknown).apply(this, args);
  } as typeof query);
  try {
    return { response: await send(), statements };
  } finally {
    spy.mockRestore();
  }
}
