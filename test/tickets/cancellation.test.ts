// Cancellation (issue 27, C8): DELETE /tickets/{ticketId} and cancelTicket, DELETE /orders/{orderId} and
// cancelOrder: who may, until when, never after check-in; the seat is sold again; idempotent.
import { beforeAll, describe, expect, it } from 'vitest';
import { buyTicket } from '../support/actions.ts';
import { expectProblem } from '../support/assertions.ts';
import { addGateAccount, type Caller, eventBody, upcomingOpenDay } from '../support/museum.ts';
import { useMuseum } from '../support/use-museum.ts';
import {
  CANCEL_ORDER,
  CANCEL_TICKET,
  eventLine,
  general,
  generalTickets,
  ORDER_QUERY,
  openToday,
  order,
  TICKET_QUERY,
} from '../support/visit.ts';

const UNKNOWN = '00000000-0000-4000-8000-000000000000';

const museum = useMuseum({ MUSEUM_DAILY_CAPACITY: '2' });
let today: string;
beforeAll(async () => {
  await addGateAccount(museum);
  today = await openToday(museum);
});

const buy = (ticketDate: string, as: Caller = 'visitor') =>
  buyTicket(museum, { ticketDate, email: 'a@example.com' }, as);
const bought = async (ticketDate: string, as: Caller = 'visitor') => {
  const response = await buy(ticketDate, as);
  if (response.status !== 201) throw new Error(response.text);
  return response.body as { ticketId: string; confirmationCode: string };
};
const cancel = (ticketId: string, as: Caller = 'visitor') =>
  museum.rest('DELETE', `/tickets/${ticketId}`, { as });
const statusOf = async (ticketId: string) =>
  (await museum.rest('GET', `/tickets/${ticketId}`, { as: 'staff' })).body.status;
const checkIn = (confirmationCode: string) =>
  museum.rest('POST', '/check-ins', { as: 'gate', body: { confirmationCode } });

describe('DELETE /tickets/{ticketId}', () => {
  it('lets the owner give a ticket back before its date: 204, then readable as cancelled; again 204', async () => {
    const ticket = await bought(upcomingOpenDay(1));
    const response = await cancel(ticket.ticketId);
    expect(response.status, response.text).toBe(204);
    expect(response.text).toBe('');
    expect((await museum.rest('GET', `/tickets/${ticket.ticketId}`)).body).toMatchObject({
      ticketId: ticket.ticketId,
      status: 'cancelled',
    });
    expect((await cancel(ticket.ticketId)).status).toBe(204);
    expect((await museum.graphql(CANCEL_TICKET, { ticketId: ticket.ticketId })).body.data).toEqual({
      cancelTicket: true,
    });
  });

  it('is cancelTicket over GraphQL', async () => {
    const ticket = await bought(upcomingOpenDay(1));
    expect((await museum.graphql(CANCEL_TICKET, { ticketId: ticket.ticketId })).body).toEqual({
      data: { cancelTicket: true },
    });
    const read = await museum.graphql(TICKET_QUERY, { ticketId: ticket.ticketId });
    expect(read.body.data.ticket).toMatchObject({ status: 'cancelled', checkedInAt: null });
  });

  it('gives the seat back: a sold-out date is bought again, and sells out again', async () => {
    const date = upcomingOpenDay(2);
    const [first] = [await bought(date), await bought(date)];
    expectProblem(await buy(date), 409, 'Conflict');
    expect((await cancel(first!.ticketId)).status).toBe(204);
    expect((await buy(date)).status).toBe(201);
    expectProblem(await buy(date), 409, 'Conflict');
    expect(await generalTickets(museum, date)).toEqual({ sold: 3, kept: 2 });
  });

  it("gives an event's seat back too, and a new capacity counts only the tickets not cancelled", async () => {
    const created = await museum.rest('POST', '/special-events', {
      as: 'staff',
      body: eventBody({ capacity: 2 }),
    });
    const { eventId, dates } = created.body;
    const body = { ticketType: 'event', eventId, ticketDate: dates[0], email: 'a@example.com' };
    const tickets = [];
    for (let i = 0; i < 2; i++) tickets.push((await museum.rest('POST', '/tickets', { body })).body);
    expect((await museum.rest('POST', '/tickets', { body })).status).toBe(409);
    expect((await cancel(tickets[0].ticketId)).status).toBe(204);
    const lowered = await museum.rest('PATCH', `/special-events/${eventId}`, {
      as: 'staff',
      body: { capacity: 1 },
    });
    expect(lowered.status, lowered.text).toBe(200);
    expect((await museum.rest('POST', '/tickets', { body })).status).toBe(409);
    await museum.rest('PATCH', `/special-events/${eventId}`, { as: 'staff', body: { capacity: 2 } });
    expect((await museum.rest('POST', '/tickets', { body })).status).toBe(201);
  });

  it("hides someone else's ticket (404, as an unknown one), refuses a gate (403) and no credentials (401)", async () => {
    const ticket = await bought(upcomingOpenDay(3));
    const other = await cancel(ticket.ticketId, 'other');
    expectProblem(other, 404, 'Not found');
    expect(other.body).toEqual((await cancel(UNKNOWN, 'other')).body);
    const gql = await museum.graphql(CANCEL_TICKET, { ticketId: ticket.ticketId }, { as: 'other' });
    expect(gql.body.errors[0].extensions.code).toBe('NOT_FOUND');
    expectProblem(await cancel(ticket.ticketId, 'gate'), 403, 'Forbidden');
    expect(
      (await museum.graphql(CANCEL_TICKET, { ticketId: ticket.ticketId }, { as: 'gate' })).body.errors[0]
        .extensions.code,
    ).toBe('FORBIDDEN');
    expectProblem(await cancel(ticket.ticketId, 'anonymous'), 401, 'Unauthorized');
    expect(await statusOf(ticket.ticketId)).toBe('valid');
    expect((await cancel(ticket.ticketId, 'staff')).status).toBe(204);
    expect(await statusOf(ticket.ticketId)).toBe('cancelled');
  });

  it('lets the owner cancel only before the day (409 on it); staff may on the day', async () => {
    const ticket = await bought(today);
    const late = await cancel(ticket.ticketId);
    expectProblem(late, 409, 'Conflict');
    expect(late.body.detail).toContain(`is for ${today}: its holder can cancel it only before that day`);
    expect(
      (await museum.graphql(CANCEL_TICKET, { ticketId: ticket.ticketId })).body.errors[0].extensions.code,
    ).toBe('CONFLICT');
    expect(await statusOf(ticket.ticketId)).toBe('valid');
    expect((await cancel(ticket.ticketId, 'staff')).status).toBe(204);
  });

  it('refuses a ticket that was checked in (409), to staff as well; it stays used', async () => {
    const ticket = await bought(today);
    expect((await checkIn(ticket.confirmationCode)).status).toBe(201);
    for (const as of ['visitor', 'staff'] as const) {
      const response = await cancel(ticket.ticketId, as);
      expectProblem(response, 409, 'Conflict');
      expect(response.body.detail).toContain('was checked in at');
    }
    expect(await statusOf(ticket.ticketId)).toBe('used');
  });

  it('and a check-in racing it: exactly one of the two wins', async () => {
    // Event tickets of today: today's general admission (capacity 2) may be sold out by those admitted.
    const created = await museum.rest('POST', '/special-events', {
      as: 'staff',
      body: eventBody({ dates: [today] }),
    });
    const body = {
      ticketType: 'event',
      eventId: created.body.eventId,
      ticketDate: today,
      email: 'a@example.com',
    };
    for (let i = 0; i < 5; i++) {
      const ticket = (await museum.rest('POST', '/tickets', { body })).body;
      const [cancelled, admitted] = await Promise.all([
        cancel(ticket.ticketId, 'staff'),
        checkIn(ticket.confirmationCode),
      ]);
      expect([cancelled.status, admitted.status].sort(), `${cancelled.text} ${admitted.text}`).toEqual(
        cancelled.status === 204 ? [204, 409] : [201, 409],
      );
      expect(await statusOf(ticket.ticketId)).toBe(cancelled.status === 204 ? 'cancelled' : 'used');
    }
  });
});

describe('DELETE /orders/{orderId}', () => {
  const placed = async (body: unknown, as: Caller = 'visitor') => {
    const response = await museum.rest('POST', '/orders', { as, body });
    if (response.status !== 201) throw new Error(response.text);
    return response.body as { orderId: string; tickets: { ticketId: string; confirmationCode: string }[] };
  };

  it('cancels the whole order, giving every seat back; again 204; cancelOrder over GraphQL', async () => {
    const date = upcomingOpenDay(4);
    const { orderId } = await placed(order(general(date, 2)));
    expectProblem(await buy(date), 409, 'Conflict');
    expect((await museum.rest('DELETE', `/orders/${orderId}`)).status).toBe(204);
    const read = await museum.rest('GET', `/orders/${orderId}`);
    expect(read.body.tickets.map((t: { status: string }) => t.status)).toEqual(['cancelled', 'cancelled']);
    expect((await museum.rest('DELETE', `/orders/${orderId}`)).status).toBe(204);
    expect((await placed(order(general(date, 2)))).orderId).toBeDefined();

    const created = await museum.rest('POST', '/special-events', { as: 'staff', body: eventBody() });
    const second = await placed(
      order(general(upcomingOpenDay(5)), eventLine(created.body.eventId, created.body.dates[1])),
    );
    expect((await museum.graphql(CANCEL_ORDER, { orderId: second.orderId })).body.data).toEqual({
      cancelOrder: true,
    });
    const gql = await museum.graphql(ORDER_QUERY, { orderId: second.orderId });
    expect(gql.body.data.order.tickets.map((t: { status: string }) => t.status)).toEqual([
      'cancelled',
      'cancelled',
    ]);
  });

  it("hides someone else's order (404), refuses a gate (403) and no credentials (401); staff may", async () => {
    const { orderId } = await placed(order(general(upcomingOpenDay(6))));
    const other = await museum.rest('DELETE', `/orders/${orderId}`, { as: 'other' });
    expectProblem(other, 404, 'Not found');
    expect(other.body).toEqual((await museum.rest('DELETE', `/orders/${UNKNOWN}`, { as: 'other' })).body);
    expect(
      (await museum.graphql(CANCEL_ORDER, { orderId }, { as: 'other' })).body.errors[0].extensions.code,
    ).toBe('NOT_FOUND');
    expectProblem(await museum.rest('DELETE', `/orders/${orderId}`, { as: 'gate' }), 403, 'Forbidden');
    expectProblem(
      await museum.rest('DELETE', `/orders/${orderId}`, { as: 'anonymous' }),
      401,
      'Unauthorized',
    );
    expect((await museum.rest('DELETE', `/orders/${orderId}`, { as: 'staff' })).status).toBe(204);
  });

  it('is all or nothing under the rules of a ticket: one ticket checked in, and nothing is cancelled', async () => {
    // Today's general admission is sold out by now (capacity 2): an event of today's.
    const created = await museum.rest('POST', '/special-events', {
      as: 'staff',
      body: eventBody({ dates: [today] }),
    });
    const { orderId, tickets } = await placed(order(eventLine(created.body.eventId, today, 2)), 'staff');
    expect((await checkIn(tickets[0]!.confirmationCode)).status).toBe(201);
    const refused = await museum.rest('DELETE', `/orders/${orderId}`, { as: 'staff' });
    expectProblem(refused, 409, 'Conflict');
    expect(refused.body.detail).toContain(`Ticket ${tickets[0]!.ticketId} was checked in at`);
    expect([await statusOf(tickets[0]!.ticketId), await statusOf(tickets[1]!.ticketId)]).toEqual([
      'used',
      'valid',
    ]);
    // Its other ticket can still be given back on its own.
    expect((await cancel(tickets[1]!.ticketId, 'staff')).status).toBe(204);
  });
});
