// A statement declares its row and its parameters beside its text (src/db/sql.ts): every call is checked
// against them by `tsc --noEmit` (CI), which fails on an `@ts-expect-error` below that no longer finds an
// error; the calls themselves run against the real database.
import { expect, it } from 'vitest';
import { statement } from '../../src/db/sql.ts';
import { eventBody } from '../support/museum.ts';
import { useMuseum } from '../support/use-museum.ts';

const museum = useMuseum();

const EVENT_NAME = statement<{ name: string }, [eventId: string]>(
  'test_event_name',
  'select name from special_event where id = $1::uuid',
);

it('reads the row it declares, and refuses at compile time what the database would refuse', async () => {
  const created = await museum.rest('POST', '/special-events', {
    as: 'staff',
    body: eventBody({ name: 'Typed' }),
  });
  const { sql } = museum.deps.db;
  const [row] = await sql.query(EVENT_NAME, [created.body.eventId]);
  const name: string = row!.name;
  expect(name).toBe('Typed');
  // @ts-expect-error: the row has no such column
  expect(row!.location).toBeUndefined();
  // @ts-expect-error: a number where the statement binds a uuid's text
  await expect(sql.query(EVENT_NAME, [42])).rejects.toThrow();
  // @ts-expect-error: a value missing
  await expect(sql.query(EVENT_NAME, [])).rejects.toThrow();
});
