// A slot under concurrency (issue 36): 40 buyers race for an entry slot of capacity 5, through two instances
// over one PostgreSQL (with TEST_DATABASE_URL; on the embedded database, one instance, which is one session).
import { describe, expect, it } from 'vitest';
import { execute } from '../support/db.ts';
import { instancesTitle, useTwoInstances } from '../support/instances.ts';
import { basic, upcoming, VISITOR } from '../support/museum.ts';

const instances = useTwoInstances(() => ({ MUSEUM_DAILY_CAPACITY: '100' }));
const { instance } = instances;
const post = (n: number, path: string, body: unknown) => instances.send(n, 'POST', path, { body });

describe(`40 buyers race for an entry slot of 5 (${instancesTitle})`, () => {
  it('sell exactly 5 tickets for the slot, single tickets and order lines alike; the rest get 409 naming entryTime', async () => {
    const day = upcoming([3], 1);
    const set = await instances.museum.graphql(
      'mutation($input: SetDayEntrySlotsInput!) { setDayEntrySlots(input: $input) { minutes } }',
      { input: { date: day, minutes: 30, capacity: 5 } },
      { as: 'staff' },
    );
    expect(set.body.errors).toBeUndefined();
    const line = { ticketType: 'general', ticketDate: day, entryTime: '09:30' };
    const responses = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        i % 2
          ? post(i, '/tickets', { ...line, email: 'racer@example.com' })
          : post(i, '/orders', { email: 'racer@example.com', lines: [{ ...line, quantity: 1 }] }),
      ),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(5);
    expect(statuses.filter((s) => s !== 201 && s !== 409)).toEqual([]);
    for (const [i, refused] of responses.entries())
      if (refused.status === 409)
        expect(refused.body.errors[0].path).toBe(i % 2 ? 'entryTime' : 'lines[0].entryTime');

    const [sold] = await execute<{ tickets: number; counter: number }[]>(
      instances.museum.deps.db,
      `select (select count(*)::int from ticket where ticket_date = $1 and entry_time = '09:30') as tickets,
                (select sold from ticket_sales where scope = 'general 09:30' and date = $2) as counter`,
      [day, day],
    );
    expect(sold).toEqual({ tickets: 5, counter: 5 });
    const slots = await instances.museum.rest('GET', `/entry-slots?date=${day}`);
    expect(slots.body[1]).toMatchObject({ startTime: '09:30', capacity: 5, remaining: 0 });
  });

  it('orders of two slots each, in either order, racing cancellations under a daily capacity: no deadlock, no oversell', async () => {
    const day = upcoming([2], 2);
    await instances.museum.graphql(
      'mutation($input: SetDayEntrySlotsInput!) { setDayEntrySlots(input: $input) { minutes } }',
      { input: { date: day, minutes: 60, capacity: 8 } },
      { as: 'staff' },
    );
    const line = (entryTime: string) => ({ ticketType: 'general', ticketDate: day, entryTime, quantity: 1 });
    const twoSlots = (i: number) => ({
      email: 'racer@example.com',
      lines: i % 2 ? [line('10:00'), line('11:00')] : [line('11:00'), line('10:00')],
    });
    const first = await Promise.all(Array.from({ length: 6 }, (_, i) => post(i, '/orders', twoSlots(i))));
    expect(first.map((r) => r.status)).toEqual(first.map(() => 201));
    // Three of those orders are cancelled while 30 more race for what is left.
    const cancel = (n: number, orderId: string) =>
      instance(n).fetch(`http://museum.test/orders/${orderId}`, {
        method: 'DELETE',
        headers: { authorization: basic(VISITOR.name, VISITOR.password) },
      });
    const [raced, cancelled] = await Promise.all([
      Promise.all(Array.from({ length: 30 }, (_, i) => post(i, '/orders', twoSlots(i)))),
      Promise.all(first.slice(0, 3).map((r, i) => cancel(i, r.body.orderId))),
    ]);
    expect(cancelled.map((r) => r.status)).toEqual([204, 204, 204]);
    expect(raced.map((r) => r.status).filter((s) => s !== 201 && s !== 409)).toEqual([]);

    const counted = await execute<{ scope: string; tickets: number; counter: number }[]>(
      instances.museum.deps.db,
      `select s.scope, s.sold as counter,
              (select count(*)::int from ticket t where t.ticket_date = s.date and t.cancelled_at is null
                 and (s.scope = 'general' or s.scope = 'general ' || to_char(t.entry_time, 'HH24:MI'))) as tickets
       from ticket_sales s where s.date = $1 order by s.scope`,
      [day],
    );
    // The day's counter (a daily capacity of 100) and each slot's agree with the tickets; every order is whole
    // (one ticket in each slot), the three kept from the first wave and each raced order sold, never over 8.
    for (const row of counted) expect(row.counter, row.scope).toBe(row.tickets);
    const sold = 3 + raced.filter((r) => r.status === 201).length;
    expect(sold).toBeGreaterThanOrEqual(5);
    expect(sold).toBeLessThanOrEqual(8);
    expect(counted.map((row) => [row.scope, row.tickets])).toEqual([
      ['general', 2 * sold],
      ['general 10:00', sold],
      ['general 11:00', sold],
    ]);
  });
});
