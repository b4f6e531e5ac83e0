// Availability (issue 24): tickets left per event date and per day, from the counters purchases keep, the same
// over GraphQL and REST; exact under 50 concurrent buyers on two instances (with TEST_DATABASE_URL).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buyTicket } from '../support/actions.ts';
import { expectProblem } from '../support/assertions.ts';
import {
  addGateAccount,
  basic,
  type Caller,
  eventBody,
  type ListeningMuseum,
  openSecondInstance,
  type TestMuseum,
  upcomingOpenDay,
  VISITOR,
} from '../support/museum.ts';
import { useMuseum } from '../support/use-museum.ts';
import { CANCEL_TICKET } from '../support/visit.ts';

const museum = useMuseum({ MUSEUM_DAILY_CAPACITY: '5' });
const unlimited = useMuseum();

const AVAILABILITY = `query($eventId: UUID!) {
  specialEvent(eventId: $eventId) { availability { date capacity remaining sold } } }`;

async function availability(eventId: string, as: Caller = 'visitor', on: TestMuseum = museum) {
  const answer = await on.graphql(AVAILABILITY, { eventId }, { as });
  if (answer.body.errors) throw new Error(answer.text);
  return answer.body.data.specialEvent.availability;
}

const buy = (on: TestMuseum, body: Record<string, unknown>, as: Caller = 'visitor') =>
  buyTicket(on, { email: 'a@example.com', ...body }, as);

const [FIRST, SECOND] = [upcomingOpenDay(5), upcomingOpenDay(6)];

beforeAll(async () => {
  await addGateAccount(museum);
});

describe('SpecialEvent.availability', () => {
  it('counts down as tickets are sold and back up as they are cancelled; sold is for staff', async () => {
    const created = await museum.rest('POST', '/special-events', {
      as: 'staff',
      body: eventBody({ capacity: 3, dates: [SECOND, FIRST] }),
    });
    const { eventId } = created.body;
    expect(await availability(eventId)).toEqual([
      { date: FIRST, capacity: 3, remaining: 3, sold: null },
      { date: SECOND, capacity: 3, remaining: 3, sold: null },
    ]);
    const bought = [];
    for (let i = 0; i < 3; i++)
      bought.push((await buy(museum, { ticketType: 'event', eventId, ticketDate: FIRST })).body);
    expect((await buy(museum, { ticketType: 'event', eventId, ticketDate: FIRST })).status).toBe(409);
    expect(await availability(eventId, 'staff')).toEqual([
      { date: FIRST, capacity: 3, remaining: 0, sold: 3 },
      { date: SECOND, capacity: 3, remaining: 3, sold: 0 },
    ]);
    await museum.graphql(CANCEL_TICKET, { ticketId: bought[0].ticketId }, { as: 'visitor' });
    expect((await availability(eventId, 'staff'))[0]).toEqual({
      date: FIRST,
      capacity: 3,
      remaining: 1,
      sold: 2,
    });
    // A capacity raised later starts from the tickets sold.
    await museum.rest('PATCH', `/special-events/${eventId}`, { as: 'staff', body: { capacity: 10 } });
    expect((await availability(eventId))[0]).toEqual({ date: FIRST, capacity: 10, remaining: 8, sold: null });
  });

  it('is null for capacity and remaining when unlimited; staff still see what was sold', async () => {
    const created = await museum.rest('POST', '/special-events', {
      as: 'staff',
      body: eventBody({ dates: [FIRST] }),
    });
    const { eventId } = created.body;
    await buy(museum, { ticketType: 'event', eventId, ticketDate: FIRST }, 'other');
    expect(await availability(eventId)).toEqual([
      { date: FIRST, capacity: null, remaining: null, sold: null },
    ]);
    expect(await availability(eventId, 'staff')).toEqual([
      { date: FIRST, capacity: null, remaining: null, sold: 1 },
    ]);
    // Sales made while unlimited count once a capacity applies.
    await museum.rest('PATCH', `/special-events/${eventId}`, { as: 'staff', body: { capacity: 4 } });
    expect(await availability(eventId)).toEqual([{ date: FIRST, capacity: 4, remaining: 3, sold: null }]);
  });

  it('GET /special-events/{eventId}/availability answers the same list (sold for staff only)', async () => {
    const created = await museum.rest('POST', '/special-events', {
      as: 'staff',
      body: eventBody({ capacity: 2, dates: [FIRST] }),
    });
    const { eventId } = created.body;
    await buy(museum, { ticketType: 'event', eventId, ticketDate: FIRST });
    const visitor = await museum.rest('GET', `/special-events/${eventId}/availability`, { as: 'visitor' });
    expect(visitor.status).toBe(200);
    expect(visitor.body).toEqual([{ date: FIRST, capacity: 2, remaining: 1 }]);
    const staff = await museum.rest('GET', `/special-events/${eventId}/availability`, { as: 'staff' });
    expect(staff.body).toEqual([{ date: FIRST, capacity: 2, remaining: 1, sold: 1 }]);
    expectProblem(
      await museum.rest('GET', `/special-events/${eventId}/availability`, { as: 'anonymous' }),
      401,
      'Unauthorized',
    );
    expectProblem(
      await museum.rest('GET', `/special-events/${eventId}/availability`, { as: 'gate' }),
      403,
      'Forbidden',
    );
    expectProblem(
      await museum.rest('GET', '/special-events/6744a0da-4121-49cd-8479-f8cc20526495/availability', {
        as: 'visitor',
      }),
      404,
      'Not found',
    );
    expectProblem(
      await museum.rest('GET', '/special-events/nope/availability', { as: 'visitor' }),
      400,
      'Validation failed',
    );
    await museum.rest('DELETE', `/special-events/${eventId}`, { as: 'staff' });
    expectProblem(
      await museum.rest('GET', `/special-events/${eventId}/availability`, { as: 'visitor' }),
      404,
      'Not found',
    );
  });
});

describe('MuseumDay.remaining', () => {
  const HOURS = `query($startDate: Date) { museumHours(startDate: $startDate, limit: 2) { date remaining } }`;

  it('is general admission left under MUSEUM_DAILY_CAPACITY; GET /museum-hours entries carry it', async () => {
    const day = upcomingOpenDay(8);
    await buy(museum, { ticketType: 'general', ticketDate: day });
    const { body: second } = await buy(museum, { ticketType: 'general', ticketDate: day }, 'other');
    const answer = await museum.graphql(HOURS, { startDate: day }, { as: 'visitor' });
    expect(answer.body.data.museumHours[0]).toEqual({ date: day, remaining: 3 });
    expect(answer.body.data.museumHours[1].remaining).toBe(5);
    await museum.graphql(CANCEL_TICKET, { ticketId: second.ticketId }, { as: 'other' });
    const rest = await museum.rest('GET', `/museum-hours?startDate=${day}&limit=1`, { as: 'visitor' });
    expect(rest.body).toEqual([
      { date: day, timeOpen: expect.any(String), timeClose: expect.any(String), remaining: 4 },
    ]);
  });

  it('is null when there is no daily capacity, and REST leaves it out', async () => {
    const day = upcomingOpenDay(8);
    await buy(unlimited, { ticketType: 'general', ticketDate: day });
    const answer = await unlimited.graphql(HOURS, { startDate: day }, { as: 'staff' });
    expect(answer.body.data.museumHours[0]).toEqual({ date: day, remaining: null });
    const rest = await unlimited.rest('GET', `/museum-hours?startDate=${day}&limit=1`, { as: 'visitor' });
    expect(Object.keys(rest.body[0])).toEqual(['date', 'timeOpen', 'timeClose']);
  });
});

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

describe(`50 concurrent buyers (${onPostgres ? 'two instances' : 'one instance'})`, () => {
  let second: ListeningMuseum | undefined;
  beforeAll(async () => {
    if (onPostgres) second = await openSecondInstance(museum, { MUSEUM_DAILY_CAPACITY: '5' });
  });
  afterAll(() => second?.close());

  it('leave availability exact: capacity 30, 50 buyers, 20 refused, 0 remaining; read from either instance', async () => {
    const day = upcomingOpenDay(9);
    const created = await museum.rest('POST', '/special-events', {
      as: 'staff',
      body: eventBody({ capacity: 30, dates: [day] }),
    });
    const { eventId } = created.body;
    const instance = (n: number) => (second && n % 2 ? second : museum);
    const statuses = await Promise.all(
      Array.from({ length: 50 }, async (_, n) => {
        const response = await instance(n).fetch('http://museum.test/tickets', {
          method: 'POST',
          headers: {
            authorization: basic(VISITOR.name, VISITOR.password),
            'content-type': 'application/json',
          },
          body: JSON.stringify({ ticketType: 'event', eventId, ticketDate: day, email: 'a@example.com' }),
        });
        await response.arrayBuffer();
        return response.status;
      }),
    );
    expect(statuses.filter((s) => s === 201)).toHaveLength(30);
    expect(statuses.filter((s) => s === 409)).toHaveLength(20);
    for (const reader of [museum, second ?? museum]) {
      const response = await reader.fetch(`http://museum.test/special-events/${eventId}/availability`, {
        headers: { authorization: basic('curator', 'curator-password') },
      });
      expect(await response.json()).toEqual([{ date: day, capacity: 30, remaining: 0, sold: 30 }]);
    }
  });

  it('and with room to spare, remaining is capacity less exactly what was sold', async () => {
    const day = upcomingOpenDay(10);
    const created = await museum.rest('POST', '/special-events', {
      as: 'staff',
      body: eventBody({ capacity: 80, dates: [day] }),
    });
    const { eventId } = created.body;
    const instance = (n: number) => (second && n % 2 ? second : museum);
    await Promise.all(
      Array.from({ length: 50 }, (_, n) =>
        instance(n)
          .fetch('http://museum.test/tickets', {
            method: 'POST',
            headers: {
              authorization: basic(VISITOR.name, VISITOR.password),
              'content-type': 'application/json',
            },
            body: JSON.stringify({ ticketType: 'event', eventId, ticketDate: day, email: 'a@example.com' }),
          })
          .then((response) => response.arrayBuffer()),
      ),
    );
    expect(await availability(eventId, 'staff')).toEqual([
      { date: day, capacity: 80, remaining: 30, sold: 50 },
    ]);
  });
});
