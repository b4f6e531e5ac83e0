// Batched, bounded (issue 24): a page's SQL statements grow with the depth of its query, never with its size.
// Each query is counted at page sizes 1 and 30 (7, a week, for days); the counts must be equal.
import { beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../src/common/dates.ts';
import { eventBody, farWindow, type TestResponse, upcoming } from '../support/museum.ts';
import { statementsSentBy } from '../support/statements.ts';
import { useMuseum } from '../support/use-museum.ts';

const museum = useMuseum({ MUSEUM_DAILY_CAPACITY: '100' });

const START = upcoming([1], 0, farWindow(2));
const WEEK = Array.from({ length: 7 }, (_, i) => addDays(START, i));
const OPEN = WEEK.slice(0, 5);

/** Statements of a query sent once before (credentials cached, statements prepared), and its data. */
async function statementsOf(query: string, variables: Record<string, unknown>) {
  const send = () => museum.graphql(query, variables, { as: 'visitor' });
  await send();
  const { response, statements } = await statementsSentBy<TestResponse>(send);
  if (response.body.errors) throw new Error(response.text);
  return { data: response.body.data, statements: statements.length, texts: statements.join('\n---\n') };
}

beforeAll(async () => {
  // 30 events, each on every open day of the week, some with a capacity; 30 tickets of the visitor's for them.
  for (let i = 0; i < 30; i++) {
    const created = await museum.rest('POST', '/special-events', {
      as: 'staff',
      body: eventBody({
        name: `Event ${String(i).padStart(2, '0')}`,
        dates: OPEN,
        capacity: i % 2 ? 50 : null,
      }),
    });
    if (created.status !== 201) throw new Error(created.text);
    const ticket = await museum.rest('POST', '/tickets', {
      as: 'visitor',
      body: {
        ticketType: 'event',
        eventId: created.body.eventId,
        ticketDate: OPEN[i % 5],
        email: 'a@example.com',
      },
    });
    if (ticket.status !== 201) throw new Error(ticket.text);
  }
}, 120_000);

describe('statements per query do not grow with the page', () => {
  it('a page of events with their availability', async () => {
    const query = `query($limit: Int) { specialEventPage(startDate: "${START}", endDate: "${WEEK[6]}", limit: $limit) {
      total items { id name availability { date capacity remaining } } } }`;
    const one = await statementsOf(query, { limit: 1 });
    const thirty = await statementsOf(query, { limit: 30 });
    expect(thirty.data.specialEventPage.items).toHaveLength(30);
    expect(thirty.data.specialEventPage.items[1].availability).toHaveLength(5);
    expect(thirty.data.specialEventPage.items[1].availability[0]).toMatchObject({ capacity: 50 });
    // The page brings its events' availability in its own statement (src/events/event-list.ts).
    expect(one.statements, one.texts).toBe(1);
    expect(thirty.statements, thirty.texts).toBe(one.statements);
  });

  it('availability asked through fragments is read with the page too, and says what each event says alone', async () => {
    const query = `query($limit: Int) { specialEventPage(startDate: "${START}", endDate: "${WEEK[6]}", limit: $limit) {
      items { ...Listed } } }
      fragment Listed on SpecialEvent { eventId ... on SpecialEvent { availability { date capacity remaining } } }`;
    const thirty = await statementsOf(query, { limit: 30 });
    expect(thirty.statements, thirty.texts).toBe(1);
    const items = thirty.data.specialEventPage.items as {
      eventId: string;
      availability: { date: string; capacity: number | null; remaining: number | null }[];
    }[];
    expect(items).toHaveLength(30);
    for (const item of items) {
      const alone = await museum.graphql(
        'query($eventId: UUID!) { specialEventAvailability(eventId: $eventId) { date capacity remaining } }',
        { eventId: item.eventId },
        { as: 'visitor' },
      );
      expect(item.availability).toEqual(alone.body.data.specialEventAvailability);
      const overRest = await museum.rest('GET', `/special-events/${item.eventId}/availability`, {
        as: 'visitor',
      });
      // REST leaves out what does not apply (docs/decisions.md): an unlimited date's nulls.
      const present = item.availability.map((date) =>
        Object.fromEntries(Object.entries(date).filter(([, value]) => value !== null)),
      );
      expect(overRest.body).toEqual(present);
    }
    // Each event with a capacity has one ticket sold on one of its dates: 49 left there, 50 on the others.
    const limited = items.filter((item) => item.availability[0]!.capacity === 50);
    expect(limited).toHaveLength(15);
    for (const item of limited)
      expect(item.availability.map((date) => date.remaining).sort()).toEqual([49, 50, 50, 50, 50]);
    const unlimited = items.filter((item) => item.availability[0]!.capacity === null);
    for (const item of unlimited)
      expect(item.availability.every((date) => date.remaining === null)).toBe(true);
  });

  it('a list without its count leaves the total out of its statement; beside its count, one statement answers both', async () => {
    const range = `startDate: "${START}", endDate: "${WEEK[6]}"`;
    const sent = async (query: string) => {
      const send = () => museum.graphql(query, {}, { as: 'visitor' });
      await send();
      const { response, statements } = await statementsSentBy<TestResponse>(send);
      if (response.body.errors) throw new Error(response.text);
      return { data: response.body.data, statements };
    };
    const counted = await sent(`{ specialEventsCount(${range}) }`);
    const total = counted.data.specialEventsCount as number;
    expect(total).toBeGreaterThanOrEqual(30);

    const alone = await sent(`{ specialEvents(${range}, limit: 5) { eventId } }`);
    expect(alone.statements, alone.statements.join('\n---\n')).toHaveLength(1);
    expect(alone.statements[0]).not.toContain('special_event_date_count');
    expect(alone.data.specialEvents).toHaveLength(5);

    const beside = await sent(
      `{ specialEvents(${range}, limit: 5) { eventId } specialEventsCount(${range}) }`,
    );
    expect(beside.statements).toHaveLength(1);
    expect(beside.data).toEqual({ specialEvents: alone.data.specialEvents, specialEventsCount: total });
    const spread = await sent(
      `{ specialEvents(${range}, limit: 5) { eventId } ...Count } fragment Count on Query { specialEventsCount(${range}) }`,
    );
    expect(spread.statements).toHaveLength(1);
    expect(spread.data).toEqual(beside.data);
    // Past the last page: no events, and the count still answered from the same statement.
    const past = await sent(
      `{ specialEvents(${range}, limit: 5, page: 100) { eventId } specialEventsCount(${range}) }`,
    );
    expect(past.statements).toHaveLength(1);
    expect(past.data).toEqual({ specialEvents: [], specialEventsCount: total });
  });

  it('a week of days with their events, what is left of them, and general admission left', async () => {
    // The page size written out: a variable `limit` costs as 30 days (src/graphql/query-cost.ts).
    const query = (days: number) => `{ museumHours(startDate: "${START}", limit: ${days}) {
      date remaining events(limit: 10) { name availability { remaining } } } }`;
    const one = await statementsOf(query(1), {});
    const week = await statementsOf(query(7), {});
    expect(week.data.museumHours.length).toBeGreaterThanOrEqual(5);
    expect(week.data.museumHours.slice(0, 5).map((day: { events: unknown[] }) => day.events.length)).toEqual([
      10, 10, 10, 10, 10,
    ]);
    expect(week.data.museumHours[0].remaining).toBe(100);
    expect(one.statements, one.texts).toBe(4);
    expect(week.statements, week.texts).toBe(one.statements);
  });

  it("30 tickets with their events, and each event's availability", async () => {
    const query = `query($limit: Int) { me { tickets(limit: $limit) {
      total items { id ticketDate event { name availability { remaining } } } } } }`;
    const one = await statementsOf(query, { limit: 1 });
    const thirty = await statementsOf(query, { limit: 30 });
    expect(thirty.data.me.tickets.items).toHaveLength(30);
    expect(thirty.data.me.tickets.items.every((t: { event: unknown }) => t.event !== null)).toBe(true);
    expect(one.statements, one.texts).toBe(3);
    expect(thirty.statements, thirty.texts).toBe(one.statements);
  });

  it('nodes of 30 tickets and their events', async () => {
    const page = await museum.graphql(
      '{ me { tickets(limit: 30) { items { id } } } }',
      {},
      { as: 'visitor' },
    );
    const ids = page.body.data.me.tickets.items.map((t: { id: string }) => t.id);
    const query = 'query($ids: [ID!]!) { nodes(ids: $ids) { id ... on Ticket { event { name } } } }';
    const one = await statementsOf(query, { ids: ids.slice(0, 1) });
    const thirty = await statementsOf(query, { ids });
    expect(thirty.data.nodes).toHaveLength(30);
    expect(thirty.statements, thirty.texts).toBe(one.statements);
  });
});
