// A statement still running when its operation's deadline (REQUEST_TIMEOUT_MS) passes is cancelled by
// PostgreSQL (statement_timeout: the service's own connections directly, the pooler's connect_query behind
// PgBouncer, as .ci/run and docs/operations.md configure it), and the client is answered 503 with
// Retry-After. The embedded database has one connection (nothing can hold a lock against it) and no
// statement timeout, so this runs on PostgreSQL only.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { eventBody } from '../support/museum.ts';
import { eventually } from '../support/receiver.ts';
import { useMuseum } from '../support/use-museum.ts';

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);
const behindPooler = Boolean(process.env.TEST_DATABASE_DIRECT_URL);

describe.skipIf(!onPostgres)('a statement that outlives its operation', () => {
  const museum = useMuseum({ REQUEST_TIMEOUT_MS: '1000' });

  it('is answered 503 with Retry-After, and PostgreSQL stops it', { timeout: 60_000 }, async () => {
    const made = await museum.rest('POST', '/special-events', { as: 'staff', body: eventBody() });
    expect(made.status).toBe(201);
    const direct = new pg.Client({
      connectionString: museum.databaseEnv.DATABASE_DIRECT_URL ?? museum.databaseUrl,
    });
    await direct.connect();
    const waitingForTheLock = async () =>
      (
        await direct.query<{ waiting: number }>(
          `select count(*)::int as waiting from pg_stat_activity
            where datname = current_database() and wait_event_type = 'Lock' and pid <> pg_backend_pid()`,
        )
      ).rows[0]!.waiting;
    try {
      // Held until the end: without a statement timeout the service's read would wait for it that long.
      await direct.query('begin');
      await direct.query('lock table special_event in access exclusive mode');
      const answer = await museum.rest('GET', `/special-events/${made.body.eventId}`);
      expect(answer.status).toBe(503);
      expect(answer.headers.get('retry-after')).toBe('5');
      expect(answer.body).toMatchObject({
        status: 503,
        detail: 'The request took too long; try again shortly',
      });
      // The pooler's connect_query sets 15 s; the service's own connections REQUEST_TIMEOUT_MS.
      await eventually(async () => (await waitingForTheLock()) === 0, behindPooler ? 25_000 : 5_000);
    } finally {
      await direct.query('rollback').catch(() => {});
      await direct.end();
    }
  });
});
