// A visit under concurrency (issue 27): orders against capacity and scans at the door, on two instances over
// one PostgreSQL (with TEST_DATABASE_URL; on the embedded database, one instance, which is one session).
import { beforeAll, describe, expect, it } from 'vitest';
import { execute } from '../support/db.ts';
import { instancesTitle, useTwoInstances } from '../support/instances.ts';
import { addGateAccount, eventBody, GATE, upcomingOpenDay, VISITOR } from '../support/museum.ts';
import { eventLine, general, openToday, order } from '../support/visit.ts';

const instances = useTwoInstances(() => ({ MUSEUM_DAILY_CAPACITY: '10' }));
beforeAll(() => addGateAccount(instances.museum));

const send = (
  n: number,
  method: string,
  path: string,
  who: { name: string; password: string },
  body: unknown,
) => instances.send(n, method, path, { who, body });

describe(`50 concurrent orders against a daily capacity of 10 (${instancesTitle})`, () => {
  it('sell exactly 10 general tickets; every order is sold whole or not at all', async () => {
    const day = upcomingOpenDay(3);
    const created = await instances.museum.rest('POST', '/special-events', {
      as: 'staff',
      body: eventBody({ capacity: 10, dates: [day] }),
    });
    const eventId = created.body.eventId;
    // Half take two general seats; half one general seat and one of the event's, so that an order can fail
    // on its second line after its first took a seat.
    const bodies = Array.from({ length: 50 }, (_, i) =>
      i % 2 ? order(general(day), general(day)) : order(eventLine(eventId, day), general(day)),
    );
    const responses = await Promise.all(bodies.map((body, i) => send(i, 'POST', '/orders', VISITOR, body)));
    const statuses = responses.map((r) => r.status);
    const tally = statuses.map(String).sort().join(' ');
    expect(
      statuses.filter((s) => s !== 201 && s !== 409),
      tally,
    ).toEqual([]);
    for (const refused of responses.filter((r) => r.status === 409))
      expect(refused.body.errors[0].path).toMatch(/^lines\[[01]\]$/);
    const tickets = await execute<{ order_id: string; ticket_type: string }[]>(
      instances.museum.deps.db,
      'select order_id, ticket_type from ticket where ticket_date = $1',
      [day],
    );
    expect(
      tickets.filter((t) => t.ticket_type === 'general'),
      tally,
    ).toHaveLength(10);
    const placed = responses.filter((r) => r.status === 201).map((r) => r.body.orderId as string);
    // No order in part: each placed order has its two tickets, and no other order has any.
    expect(new Set(tickets.map((t) => t.order_id))).toEqual(new Set(placed));
    for (const orderId of placed) expect(tickets.filter((t) => t.order_id === orderId)).toHaveLength(2);
    const [orders] = await execute<{ n: number }[]>(
      instances.museum.deps.db,
      `select count(*)::int as n from ticket_order o where not exists (select from ticket t where t.order_id = o.id)`,
    );
    expect(orders!.n).toBe(0);
    // The counters agree with the tickets (one whose orders all failed has no row: it was rolled back).
    const counters = await execute<{ scope: string; sold: number }[]>(
      instances.museum.deps.db,
      'select scope, sold from ticket_sales where date = $1',
      [day],
    );
    const sold = (scope: string) => counters.find((c) => c.scope === scope)?.sold ?? 0;
    expect(sold('general')).toBe(10);
    expect(sold(eventId)).toBe(tickets.filter((t) => t.ticket_type === 'event').length);
  });
});

describe(`20 concurrent scans of one ticket (${instancesTitle})`, () => {
  it('admit exactly one', async () => {
    const today = await openToday(instances.museum);
    const created = await instances.museum.rest('POST', '/special-events', {
      as: 'staff',
      body: eventBody({ dates: [today] }),
    });
    const ticket = await instances.museum.rest('POST', '/tickets', {
      body: { ticketType: 'event', eventId: created.body.eventId, ticketDate: today, email: 'a@example.com' },
    });
    const { confirmationCode, ticketId } = ticket.body;
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => send(i, 'POST', '/check-ins', GATE, { confirmationCode })),
    );
    const statuses = responses.map((r) => r.status);
    expect(
      statuses.filter((s) => s === 201),
      statuses.join(' '),
    ).toHaveLength(1);
    expect(
      statuses.filter((s) => s === 409),
      statuses.join(' '),
    ).toHaveLength(19);
    const { checkedInAt } = responses.find((r) => r.status === 201)!.body;
    for (const refused of responses.filter((r) => r.status === 409))
      expect(refused.body.detail).toBe(`already checked in at ${checkedInAt}`);
    const [row] = await execute<{ at: string | Date }[]>(
      instances.museum.deps.db,
      'select checked_in_at as at from ticket where id = $1',
      [ticketId],
    );
    expect(new Date(row!.at).toISOString()).toBe(checkedInAt);
  });
});
