// Orders (issue 27, C8): several tickets bought together, all or nothing, over REST and GraphQL alike;
// who may read them; the rules of each line; Idempotency-Key.
import { beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../src/common/dates.ts';
import { placeOrder } from '../support/actions.ts';
import { errorPaths, expectProblem, expectValidation, graphqlPaths } from '../support/assertions.ts';
import { execute } from '../support/db.ts';
import { UNKNOWN_EVENT } from '../support/documents.ts';
import {
  addGateAccount,
  type Caller,
  eventBody,
  todayUtc,
  upcomingClosedDay,
  upcomingOpenDay,
} from '../support/museum.ts';
import { useMuseum } from '../support/use-museum.ts';
import { eventLine, general, ORDER_QUERY, order, PLACE_ORDER } from '../support/visit.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const CODE = /^ticket-(general|event)-[0-9a-f]{6}-[0-9a-f]{5}$/;

const museum = useMuseum();
let event: { eventId: string; name: string; dates: string[] };
beforeAll(async () => {
  await addGateAccount(museum);
  const created = await museum.rest('POST', '/special-events', {
    as: 'staff',
    body: eventBody({ capacity: 3, dates: [upcomingOpenDay(0), upcomingOpenDay(3)] }),
  });
  if (created.status !== 201) throw new Error(created.text);
  event = created.body;
});

const place = (body: unknown, as: Caller = 'visitor', headers: Record<string, string> = {}) =>
  placeOrder(museum, body, as, headers);

async function countRows(sql: string, values: unknown[] = []): Promise<number> {
  const [row] = await execute<{ n: number }[]>(museum.deps.db, sql, values);
  return row!.n;
}

describe('POST /orders', () => {
  it('sells a family its tickets in one order: 201, Location, each ticket with its own id and code', async () => {
    const day = upcomingOpenDay(1);
    const response = await place(order(general(day, 2), eventLine(event.eventId, event.dates[1]!, 2)));
    expect(response.status, response.text).toBe(201);
    const { orderId, tickets } = response.body;
    expect(orderId).toMatch(UUID);
    expect(response.headers.get('location')).toBe(`/orders/${orderId}`);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.body).toEqual({
      orderId,
      email: 'family@example.com',
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      // What it cost (issue 36): two adult general tickets at 20, two adult event tickets at the event's 30.
      total: 100,
      currency: 'EUR',
      tickets: [
        ...[0, 1].map((i) => ({
          message: 'Museum general entry ticket purchased',
          ticketId: tickets[i].ticketId,
          ticketType: 'general',
          ticketDate: day,
          confirmationCode: tickets[i].confirmationCode,
          category: 'adult',
          price: 20,
          status: 'valid',
        })),
        ...[2, 3].map((i) => ({
          message: 'Museum special event ticket purchased',
          ticketId: tickets[i].ticketId,
          ticketType: 'event',
          ticketDate: event.dates[1],
          confirmationCode: tickets[i].confirmationCode,
          eventId: event.eventId,
          eventName: event.name,
          category: 'adult',
          price: 30,
          status: 'valid',
        })),
      ],
    });
    expect(new Set(tickets.map((t: { ticketId: string }) => t.ticketId)).size).toBe(4);
    for (const ticket of tickets) {
      expect(ticket.ticketId).toMatch(UUID);
      expect(ticket.confirmationCode).toMatch(CODE);
      // Each is a ticket like any other: readable, with its QR code.
      const read = await museum.rest('GET', `/tickets/${ticket.ticketId}`);
      const { status: _status, ...confirmation } = ticket;
      expect(read.body).toEqual({ ...confirmation, status: 'valid' });
      expect((await museum.rest('GET', `/tickets/${ticket.ticketId}/qr`)).status).toBe(200);
    }
    const again = await museum.rest('GET', `/orders/${orderId}`);
    expect(again.status).toBe(200);
    // The order as it was answered, and how its tickets mail is doing (issue 38), which moves on by itself.
    const { emailDelivery, ...answered } = again.body;
    expect(answered).toEqual(response.body);
    expect(['pending', 'sent']).toContain(emailDelivery.status);
  });

  it('is placeOrder over GraphQL, read back with order(orderId) and listed by me.orders, newest first', async () => {
    const day = upcomingOpenDay(2);
    const placed = await museum.graphql(PLACE_ORDER, { input: order(general(day, 3)) });
    expect(placed.body.errors, placed.text).toBeUndefined();
    const mine = placed.body.data.placeOrder;
    expect(mine.tickets).toHaveLength(3);
    expect(mine.tickets[0]).toMatchObject({ ticketType: 'general', ticketDate: day, eventId: null });
    expect(mine.tickets[0].checkedInAt).toBeNull();
    const read = await museum.graphql(ORDER_QUERY, { orderId: mine.orderId });
    expect(read.body.data.order).toEqual(mine);
    const listed = await museum.graphql('{ me { orders(limit: 30) { orderId tickets { ticketId } } } }');
    expect(listed.body.data.me.orders[0]).toEqual({
      orderId: mine.orderId,
      tickets: mine.tickets.map((t: { ticketId: string }) => ({ ticketId: t.ticketId })),
    });
    const theirs = await museum.graphql('{ me { orders { orderId } } }', {}, { as: 'other' });
    expect(theirs.body.data.me.orders.map((o: { orderId: string }) => o.orderId)).not.toContain(mine.orderId);
  });

  it('is for visitors and staff: a gate account is 403, no credentials 401', async () => {
    const body = order(general(upcomingOpenDay(4)));
    expect((await place(body, 'staff')).status).toBe(201);
    expectProblem(await place(body, 'gate'), 403, 'Forbidden');
    expectProblem(await place(body, 'anonymous'), 401, 'Unauthorized');
    const gql = await museum.graphql(PLACE_ORDER, { input: body }, { as: 'gate' });
    expect(gql.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });
});

describe('GET /orders/{orderId}', () => {
  let orderId: string;
  beforeAll(async () => {
    orderId = (await place(order(general(upcomingOpenDay(5), 2)))).body.orderId;
  });

  it('shows the owner and staff the order; anyone else gets 404, as for an order that does not exist', async () => {
    expect((await museum.rest('GET', `/orders/${orderId}`, { as: 'visitor' })).status).toBe(200);
    expect((await museum.rest('GET', `/orders/${orderId}`, { as: 'staff' })).status).toBe(200);
    const other = await museum.rest('GET', `/orders/${orderId}`, { as: 'other' });
    const unknown = await museum.rest('GET', `/orders/${UNKNOWN_EVENT}`, { as: 'other' });
    expectProblem(other, 404, 'Not found');
    expect(other.body).toEqual(unknown.body);
    expect((await museum.graphql(ORDER_QUERY, { orderId }, { as: 'other' })).body.data.order).toBeNull();
    expect((await museum.graphql(ORDER_QUERY, { orderId }, { as: 'staff' })).body.data.order.orderId).toBe(
      orderId,
    );
  });

  it('refuses a gate account (403) and no credentials (401); a bad orderId is 400', async () => {
    expectProblem(await museum.rest('GET', `/orders/${orderId}`, { as: 'gate' }), 403, 'Forbidden');
    expectProblem(await museum.rest('GET', `/orders/${orderId}`, { as: 'anonymous' }), 401, 'Unauthorized');
    expect(
      (await museum.graphql(ORDER_QUERY, { orderId }, { as: 'gate' })).body.errors[0].extensions.code,
    ).toBe('FORBIDDEN');
    expectValidation(await museum.rest('GET', '/orders/123'), 'orderId');
  });
});

describe('the rules of an order', () => {
  const day = upcomingOpenDay(6);

  it.each([
    ['no lines', { lines: [] }, 'lines'],
    ['21 lines', { lines: Array.from({ length: 21 }, () => general(day)) }, 'lines'],
    ['21 tickets in all', { lines: [general(day, 11), general(day, 10)] }, 'lines'],
    ['a quantity of 0', { lines: [general(day, 0)] }, 'lines[0].quantity'],
    ['a quantity of 21', { lines: [general(day, 21)] }, 'lines[0].quantity'],
    ['a quantity of 1.5', { lines: [general(day, 1.5)] }, 'lines[0].quantity'],
    [
      'an event line without eventId',
      { lines: [general(day), { ...general(day), ticketType: 'event' }] },
      'lines[1].eventId',
    ],
    [
      'a general line with an eventId',
      { lines: [{ ...general(day), eventId: UNKNOWN_EVENT }] },
      'lines[0].eventId',
    ],
    ['a date that does not exist', { lines: [general('2030-02-30')] }, 'lines[0].ticketDate'],
    ['an unknown field in a line', { lines: [{ ...general(day), price: 10 }] }, 'lines[0].price'],
    ['a server-assigned field', { orderId: UNKNOWN_EVENT, lines: [general(day)] }, 'orderId'],
    ['a bad e-mail address', { email: 'nobody', lines: [general(day)] }, 'email'],
  ])('refuses %s with 400 naming the field', async (_what, overrides, field) => {
    const body = { ...order(), ...overrides };
    expectValidation(await place(body), field);
    const gql = await museum.graphql(PLACE_ORDER, { input: body });
    expect(gql.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(graphqlPaths(gql.body)).toContain(`input.${field}`);
  });

  it('checks every ticket as POST /tickets does, naming the line', async () => {
    const yesterday = addDays(todayUtc(), -1);
    const past = await place(order(general(day), general(yesterday)));
    expectValidation(past, 'lines[1].ticketDate');
    expect(past.body.detail).toContain(`must be today (${todayUtc()}) or later`);
    expectValidation(await place(order(general(upcomingClosedDay(0)))), 'lines[0].ticketDate');
    expectValidation(await place(order(general(day), eventLine(event.eventId, day))), 'lines[1].ticketDate');
    const unknown = await place(order(general(day), eventLine(UNKNOWN_EVENT, day)));
    expectProblem(unknown, 404, 'Not found');
    expect(errorPaths(unknown.body)).toEqual(['lines[1].eventId']);
    const gql = await museum.graphql(PLACE_ORDER, { input: order(general(upcomingClosedDay(0))) });
    expect(graphqlPaths(gql.body)).toEqual(['input.lines[0].ticketDate']);
  });

  it('is all or nothing: a sold-out line is 409 naming it, and nothing of the order is sold', async () => {
    const date = event.dates[0]!;
    const orders = () => countRows('select count(*)::int as n from ticket_order');
    const tickets = () => countRows('select count(*)::int as n from ticket where ticket_date = $1', [date]);
    const [ordersBefore, ticketsBefore] = [await orders(), await tickets()];

    const tooMany = await place(order(general(date, 2), eventLine(event.eventId, date, 4)));
    expectProblem(tooMany, 409, 'Conflict');
    expect(tooMany.body.errors).toEqual([{ path: 'lines[1]', message: expect.stringContaining('sold out') }]);
    expect(tooMany.body.detail).toMatch(/^lines\[1\]: .* is sold out \(capacity 3\)$/);
    expect([await orders(), await tickets()]).toEqual([ordersBefore, ticketsBefore]);

    expect((await place(order(general(date, 2), eventLine(event.eventId, date, 3)))).status).toBe(201);
    expect(await tickets()).toBe(ticketsBefore + 5);
    const soldOut = await museum.graphql(PLACE_ORDER, { input: order(eventLine(event.eventId, date)) });
    expect(soldOut.body.errors[0].extensions).toMatchObject({
      code: 'CONFLICT',
      errors: [{ path: 'input.lines[0]', message: expect.stringContaining('sold out') }],
    });
    expect(await tickets()).toBe(ticketsBefore + 5);
  });
});

describe('Idempotency-Key on POST /orders', () => {
  const day = upcomingOpenDay(7);
  const ordersFor = (key: string) =>
    countRows(
      `select count(distinct t.order_id)::int as n from ticket t join idempotency_record r
       on r.response->>'orderId' = t.order_id::text where r.key = $1`,
      [key],
    );

  it('answers 20 concurrent retries with one order', async () => {
    const body = order(general(day, 2));
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => place(body, 'visitor', { 'idempotency-key': 'family-1' })),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(201));
    expect(new Set(responses.map((r) => r.text)).size).toBe(1);
    expect(await ordersFor('family-1')).toBe(1);
  });

  it('replays the same body in another field order, refuses another body with 422, also over GraphQL', async () => {
    const first = await place(order(general(day, 1)), 'visitor', { 'idempotency-key': 'family-2' });
    const reordered = await place(
      { lines: [{ quantity: 1, ticketDate: day, ticketType: 'general' }], email: 'family@example.com' },
      'visitor',
      { 'idempotency-key': 'family-2' },
    );
    expect(reordered.body).toEqual(first.body);
    const other = await place(order(general(day, 2)), 'visitor', { 'idempotency-key': 'family-2' });
    expectProblem(other, 422, 'Unprocessable content');
    const gql = () =>
      museum.request('POST', '/graphql', {
        as: 'visitor',
        headers: { 'idempotency-key': 'family-3' },
        body: { query: PLACE_ORDER, variables: { input: order(general(day)) } },
      });
    const [a, b] = [await gql(), await gql()];
    expect(a.body.data.placeOrder.orderId).toBe(b.body.data.placeOrder.orderId);
  });
});
