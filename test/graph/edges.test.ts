// Edges a page needs (issue 24): Ticket.event, MuseumDay.events, Account.tickets and REST GET /tickets, for
// visitors, staff, gates and anonymous callers, and someone else's data.
import { beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../src/common/dates.ts';
import { boughtTicket, createdEvent } from '../support/actions.ts';
import { expectProblem } from '../support/assertions.ts';
import { addGateAccount, type Caller, farWindow, upcoming, upcomingOpenDay } from '../support/museum.ts';
import { useMuseum } from '../support/use-museum.ts';

const museum = useMuseum();

const DAY = upcoming([1, 2, 3, 4, 5], 0, farWindow(1));
const LATER = upcoming([1, 2, 3, 4, 5], 1, farWindow(1));

const createEvent = (name: string, dates: string[]) => createdEvent(museum, { name, dates });
const buy = (as: Caller, body: Record<string, unknown>) =>
  boughtTicket(museum, { email: 'a@example.com', ...body }, as);

let zebra: { eventId: string; name: string };
let aardvark: { eventId: string; name: string };
let gone: { eventId: string; name: string };
const mine: string[] = [];

beforeAll(async () => {
  await addGateAccount(museum);
  zebra = await createEvent('Zebra stripes', [DAY, LATER]);
  aardvark = await createEvent('Aardvark night', [DAY]);
  gone = await createEvent('Gone tomorrow', [DAY]);
  // The visitor's tickets, bought out of date order: a later date first, then two on DAY.
  mine.push(
    (await buy('visitor', { ticketType: 'event', eventId: zebra.eventId, ticketDate: LATER })).ticketId,
  );
  mine.push((await buy('visitor', { ticketType: 'event', eventId: gone.eventId, ticketDate: DAY })).ticketId);
  mine.push((await buy('visitor', { ticketType: 'general', ticketDate: DAY })).ticketId);
  await buy('other', { ticketType: 'general', ticketDate: DAY });
  await buy('staff', { ticketType: 'event', eventId: aardvark.eventId, ticketDate: DAY });
  await museum.rest('DELETE', `/special-events/${gone.eventId}`, { as: 'staff' });
});

describe('Ticket.event', () => {
  const QUERY = `query($ticketId: UUID!) { ticket(ticketId: $ticketId) { ticketType eventName event { eventId name } } }`;

  it('is the event of an event ticket; null for a general ticket and for a deleted event, whose name stays', async () => {
    const answers = await Promise.all(
      mine.map((ticketId) => museum.graphql(QUERY, { ticketId }, { as: 'visitor' })),
    );
    expect(answers.map((answer) => answer.body.data.ticket)).toEqual([
      {
        ticketType: 'event',
        eventName: 'Zebra stripes',
        event: { eventId: zebra.eventId, name: 'Zebra stripes' },
      },
      { ticketType: 'event', eventName: 'Gone tomorrow', event: null },
      { ticketType: 'general', eventName: null, event: null },
    ]);
  });

  it('staff and gates reach it through any ticket; someone else reaches no ticket at all', async () => {
    for (const as of ['staff', 'gate'] as const) {
      const answer = await museum.graphql(QUERY, { ticketId: mine[0] }, { as });
      expect(answer.body.data.ticket.event).toEqual({ eventId: zebra.eventId, name: 'Zebra stripes' });
    }
    expect((await museum.graphql(QUERY, { ticketId: mine[0] }, { as: 'other' })).body).toEqual({
      data: { ticket: null },
    });
  });
});

describe('MuseumDay.events', () => {
  const QUERY = `query($startDate: Date, $limit: Int) {
    museumHours(startDate: $startDate, limit: 2) { date events(limit: $limit) { name } } }`;

  it('lists the events of each day by name, then eventId; deleted ones are gone', async () => {
    const answer = await museum.graphql(QUERY, { startDate: DAY }, { as: 'visitor' });
    expect(answer.body.data.museumHours).toEqual([
      { date: DAY, events: [{ name: 'Aardvark night' }, { name: 'Zebra stripes' }] },
      { date: LATER, events: [{ name: 'Zebra stripes' }] },
    ]);
  });

  it('takes at most `limit` a day (1 to 30)', async () => {
    const answer = await museum.graphql(QUERY, { startDate: DAY, limit: 1 }, { as: 'staff' });
    expect(answer.body.data.museumHours[0].events).toEqual([{ name: 'Aardvark night' }]);
    for (const limit of [0, 31]) {
      const refused = await museum.graphql(QUERY, { startDate: DAY, limit }, { as: 'visitor' });
      expect(refused.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    }
  });

  it('needs credentials; a gate may not read hours', async () => {
    expect((await museum.graphql(QUERY, { startDate: DAY }, { as: 'anonymous' })).status).toBe(401);
    const gate = await museum.graphql(QUERY, { startDate: DAY }, { as: 'gate' });
    expect(gate.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });
});

describe('Account.tickets and GET /tickets', () => {
  const QUERY = `query($startDate: Date, $endDate: Date, $page: Int, $limit: Int) {
    me { tickets(startDate: $startDate, endDate: $endDate, page: $page, limit: $limit) {
      total items { ticketId ticketDate status event { name } } } } }`;

  it("are the visitor's own tickets by ticket date, then purchase time, with their events", async () => {
    const answer = await museum.graphql(QUERY, {}, { as: 'visitor' });
    expect(answer.body.data.me.tickets).toEqual({
      total: 3,
      items: [
        { ticketId: mine[1], ticketDate: DAY, status: 'cancelled', event: null },
        { ticketId: mine[2], ticketDate: DAY, status: 'valid', event: null },
        { ticketId: mine[0], ticketDate: LATER, status: 'valid', event: { name: 'Zebra stripes' } },
      ],
    });
  });

  it('page, limit and a date range narrow them; endDate before startDate is refused', async () => {
    const page = await museum.graphql(QUERY, { page: 2, limit: 2 }, { as: 'visitor' });
    expect(page.body.data.me.tickets.total).toBe(3);
    expect(page.body.data.me.tickets.items.map((t: { ticketId: string }) => t.ticketId)).toEqual([mine[0]]);
    const later = await museum.graphql(QUERY, { startDate: addDays(DAY, 1) }, { as: 'visitor' });
    expect(later.body.data.me.tickets.total).toBe(1);
    const day = await museum.graphql(QUERY, { startDate: DAY, endDate: DAY }, { as: 'visitor' });
    expect(day.body.data.me.tickets.total).toBe(2);
    const backwards = await museum.graphql(QUERY, { startDate: LATER, endDate: DAY }, { as: 'visitor' });
    expect(backwards.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });

  it("staff see their own here, not everyone's; another visitor only theirs; anonymous is refused", async () => {
    const staff = await museum.graphql(QUERY, {}, { as: 'staff' });
    expect(staff.body.data.me.tickets.items).toEqual([
      expect.objectContaining({ ticketDate: DAY, event: { name: 'Aardvark night' } }),
    ]);
    const other = await museum.graphql(QUERY, {}, { as: 'other' });
    expect(other.body.data.me.tickets.total).toBe(1);
    expect(other.body.data.me.tickets.items[0].ticketId).not.toBe(mine[2]);
    expect((await museum.graphql(QUERY, {}, { as: 'anonymous' })).status).toBe(401);
  });

  it('GET /tickets lists the same, paged with Link and X-Total-Count, never cached', async () => {
    const response = await museum.rest('GET', '/tickets?limit=2', { as: 'visitor' });
    expect(response.status).toBe(200);
    expect(response.body.map((t: { ticketId: string }) => t.ticketId)).toEqual([mine[1], mine[2]]);
    expect(response.body[0]).toMatchObject({
      status: 'cancelled',
      eventName: 'Gone tomorrow',
      ticketType: 'event',
    });
    expect(response.body[1].eventId).toBeUndefined();
    expect(response.headers.get('x-total-count')).toBe('3');
    expect(response.headers.get('link')).toContain('</tickets?limit=2&page=2>; rel="next"');
    expect(response.headers.get('cache-control')).toBe('no-store');
    const ranged = await museum.rest('GET', `/tickets?startDate=${LATER}`, { as: 'visitor' });
    expect(ranged.body.map((t: { ticketId: string }) => t.ticketId)).toEqual([mine[0]]);
    expect((await museum.rest('GET', '/tickets', { as: 'other' })).body).toHaveLength(1);
  });

  it('GET /tickets refuses bad paging, a backwards range, anonymous callers and gates', async () => {
    expectProblem(await museum.rest('GET', '/tickets?limit=31', { as: 'visitor' }), 400, 'Validation failed');
    expectProblem(
      await museum.rest('GET', `/tickets?startDate=${LATER}&endDate=${DAY}`, { as: 'visitor' }),
      400,
      'Validation failed',
    );
    expectProblem(await museum.rest('GET', '/tickets', { as: 'anonymous' }), 401, 'Unauthorized');
    expectProblem(await museum.rest('GET', '/tickets', { as: 'gate' }), 403, 'Forbidden');
    expect((await museum.rest('GET', '/tickets?page=9', { as: 'visitor' })).body).toEqual([]);
  });

  it('an account with no tickets lists none', async () => {
    const created = await museum.graphql(
      'mutation($input: CreateAccountInput!) { createAccount(input: $input) { name tickets { total items { ticketId } } } }',
      { input: { name: 'newcomer', role: 'visitor', password: 'newcomer-password' } },
      { as: 'staff' },
    );
    expect(created.body.data.createAccount).toEqual({ name: 'newcomer', tickets: { total: 0, items: [] } });
    expect(upcomingOpenDay(0) < DAY).toBe(true);
  });
});
