import { beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../src/common/dates.ts';
import { expectValidation, graphqlPaths } from '../support/assertions.ts';
import { execute } from '../support/db.ts';
import {
  DELETE_EVENT,
  EVENT_FIELDS,
  EVENT_QUERY,
  UNKNOWN_EVENT,
  UPDATE_EVENT,
} from '../support/documents.ts';
import {
  eventBody,
  farWindow,
  REFUSED_PRICES,
  type TestResponse,
  todayUtc,
  upcomingOpenDay,
} from '../support/museum.ts';
import { useMuseum } from '../support/use-museum.ts';

const museum = useMuseum();

const EVENTS_WITH_COUNT = `query($startDate: Date, $endDate: Date) {
  specialEvents(startDate: $startDate, endDate: $endDate, limit: 30) { ${EVENT_FIELDS} }
  specialEventsCount(startDate: $startDate, endDate: $endDate) }`;

// Each listing test works in a far-future window of its own, apart from every other test's events.
const WINDOW = {
  update: farWindow(0),
  rejected: farWindow(1),
  renamed: farWindow(2),
  redated: farWindow(3),
  deleted: farWindow(4),
  graphql: farWindow(5),
  forbidden: farWindow(6),
};

const ids = (response: TestResponse) => response.body.map((event: { eventId: string }) => event.eventId);

function expectNotFound(response: TestResponse) {
  expect(response.status, response.text).toBe(404);
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  expect(response.body).toMatchObject({ title: 'Not found', status: 404 });
}

async function createdEvent(overrides: Record<string, unknown> = {}) {
  const response = await museum.rest('POST', '/special-events', { as: 'staff', body: eventBody(overrides) });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

const patch = (eventId: string, body: unknown, as: 'staff' | 'visitor' | 'anonymous' = 'staff') =>
  museum.rest('PATCH', `/special-events/${eventId}`, { as, body });
const remove = (eventId: string, as: 'staff' | 'visitor' | 'anonymous' = 'staff') =>
  museum.rest('DELETE', `/special-events/${eventId}`, { as });
const list = (startDate: string, endDate: string) =>
  museum.rest('GET', `/special-events?startDate=${startDate}&endDate=${endDate}&limit=30`);

/** The event's rows of the listing table, as stored. */
const dateRowsOf = (eventId: string) =>
  execute<{ date: string; name: string; previous_date: string | null; listed: boolean }[]>(
    museum.deps.db,
    `select to_char(date, 'YYYY-MM-DD') as date, name, to_char(previous_date, 'YYYY-MM-DD') as previous_date,
         listed from special_event_date where event_id = $1 order by date`,
    [eventId],
  );

describe('PATCH /special-events/{eventId}', () => {
  it('changes the fields given as staff: 200 with the full event, and GET returns the same', async () => {
    const event = await createdEvent({ dates: [WINDOW.update] });
    const response = await patch(event.eventId, { name: 'Renamed 🎉', price: 12.5 });
    expect(response.status, response.text).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('location')).toBeNull();
    expect(response.body).toEqual({ ...event, name: 'Renamed 🎉', price: 12.5 });

    const fetched = await museum.rest('GET', `/special-events/${event.eventId}`);
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(response.body);
    const gql = await museum.graphql(EVENT_QUERY, { eventId: event.eventId });
    expect(gql.body.data.specialEvent).toEqual(response.body);
  });

  it.each<[string, unknown]>([
    ['name', 'Only the name'],
    ['location', 'Only the location 🗺️'],
    ['eventDescription', 'Only the description.'],
    ['dates', [addDays(WINDOW.update, 5), addDays(WINDOW.update, 3)]],
    ['price', 0.99],
  ])('changes %s alone and keeps the other fields', async (field, value) => {
    const event = await createdEvent({ dates: [addDays(WINDOW.update, 1), addDays(WINDOW.update, 2)] });
    const response = await patch(event.eventId, { [field]: value });
    expect(response.status, response.text).toBe(200);
    const expected = field === 'dates' ? [...(value as string[])].sort() : value;
    expect(response.body).toEqual({ ...event, [field]: expected });
    expect((await museum.rest('GET', `/special-events/${event.eventId}`)).body).toEqual(response.body);
  });

  it('changes all five fields at once', async () => {
    const event = await createdEvent({ dates: [WINDOW.update] });
    const all = {
      name: 'All new',
      location: 'Elsewhere',
      eventDescription: 'Everything changed.',
      dates: [addDays(WINDOW.update, 9)],
      price: 1000000,
    };
    const response = await patch(event.eventId, all);
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ eventId: event.eventId, ...all });
  });

  it('updates over GraphQL with the same result as REST', async () => {
    const dates = [WINDOW.graphql, addDays(WINDOW.graphql, 1)];
    const overRest = await createdEvent({ dates });
    const overGraphql = await createdEvent({ dates });
    const input = { name: 'Same change', dates: [addDays(WINDOW.graphql, 4), addDays(WINDOW.graphql, 2)] };

    const rest = await patch(overRest.eventId, input);
    expect(rest.status, rest.text).toBe(200);
    const gql = await museum.graphql(UPDATE_EVENT, { eventId: overGraphql.eventId, input }, { as: 'staff' });
    expect(gql.status).toBe(200);
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.updateSpecialEvent).toEqual({ ...rest.body, eventId: overGraphql.eventId });
    expect(rest.body).toEqual({ ...overRest, ...input, dates: [...input.dates].sort() });
  });

  describe('rejects invalid changes with 400 naming the field', () => {
    const d = (n: number) => addDays(WINDOW.rejected, n);
    let eventId: string;
    let original: Record<string, unknown>;
    beforeAll(async () => {
      original = await createdEvent({ name: 'Untouchable', dates: [d(0), d(1)] });
      eventId = original.eventId as string;
    });

    it.each<[string, Record<string, unknown>, string]>([
      ['a blank name', { name: '   ' }, 'name'],
      ['an empty name', { name: '' }, 'name'],
      ['a name of 201 characters', { name: 'n'.repeat(201) }, 'name'],
      ['a name of 201 emoji', { name: '😀'.repeat(201) }, 'name'],
      ['a null name', { name: null }, 'name'],
      ['a name that is not a string', { name: 42 }, 'name'],
      ['a blank location', { location: ' \t ' }, 'location'],
      ['a location of 201 characters', { location: 'l'.repeat(201) }, 'location'],
      ['a null location', { location: null }, 'location'],
      ['a blank eventDescription', { eventDescription: '\n' }, 'eventDescription'],
      ['an eventDescription of 5001 characters', { eventDescription: 'e'.repeat(5001) }, 'eventDescription'],
      ['no dates', { dates: [] }, 'dates'],
      ['null dates', { dates: null }, 'dates'],
      ['367 dates', { dates: Array.from({ length: 367 }, (_, i) => d(i)) }, 'dates'],
      ['a duplicate date', { dates: [d(0), d(0)] }, 'dates[1]'],
      ['a date that does not exist', { dates: [d(0), '2023-02-30'] }, 'dates[1]'],
      ['a date in another format', { dates: ['2030-1-01'] }, 'dates[0]'],
      ['dates that are not a list of strings', { dates: 'monday' }, 'dates'],
      ['one date where a list is asked for', { dates: d(0) }, 'dates'],
      ...REFUSED_PRICES,
      ['an unknown field', { name: 'ok', foo: 'bar' }, 'foo'],
      ['a server-assigned eventId', { name: 'ok', eventId: UNKNOWN_EVENT }, 'eventId'],
    ])('%s', async (_, body, field) => {
      expectValidation(await patch(eventId, body), field);
    });

    it('an empty change {}', async () => {
      const response = await patch(eventId, {});
      expectValidation(response);
      expect(response.body.detail).toMatch(/at least one/);
      const gql = await museum.graphql(UPDATE_EVENT, { eventId, input: {} }, { as: 'staff' });
      expect(gql.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
      expect(gql.body.errors[0].extensions.errors[0].message).toMatch(/at least one/);
    });

    it('names every offending field of one request', async () => {
      expectValidation(
        await patch(eventId, { name: ' ', location: 'l'.repeat(201), dates: [], price: -1 }),
        'name',
        'location',
        'dates',
        'price',
      );
      expectValidation(await patch(eventId, { name: ' ', price: '10', foo: 1 }), 'name', 'price', 'foo');
    });

    it('an eventId that is not a UUID', async () => {
      for (const id of ['not-a-uuid', '123']) expectValidation(await patch(id, { name: 'x' }), 'eventId');
    });

    it('a body that is not a JSON object', async () => {
      for (const rawBody of ['{"name": "Unclosed', '[]', '', '"name"']) {
        const response = await museum.rest('PATCH', `/special-events/${eventId}`, {
          as: 'staff',
          rawBody,
          headers: { 'content-type': 'application/json' },
        });
        expectValidation(response);
      }
    });

    it('over GraphQL, with BAD_USER_INPUT and input paths', async () => {
      const gql = await museum.graphql(
        UPDATE_EVENT,
        { eventId, input: { name: ' ', price: 1.234 } },
        { as: 'staff' },
      );
      expect(gql.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
      expect(graphqlPaths(gql.body)).toEqual(expect.arrayContaining(['input.name', 'input.price']));
      const unknown = await museum.graphql(
        UPDATE_EVENT,
        { eventId, input: { name: 'x', foo: 1 } },
        { as: 'staff' },
      );
      expect(graphqlPaths(unknown.body)).toContain('input.foo');
      const badId = await museum.graphql(
        UPDATE_EVENT,
        { eventId: 'nope', input: { name: 'x' } },
        { as: 'staff' },
      );
      expect(graphqlPaths(badId.body)).toContain('eventId');
    });

    it('and writes nothing', async () => {
      const after = await museum.rest('GET', `/special-events/${eventId}`);
      expect(after.body).toEqual(original);
      expect(await dateRowsOf(eventId)).toEqual([
        { date: d(0), name: 'Untouchable', previous_date: null, listed: true },
        { date: d(1), name: 'Untouchable', previous_date: d(0), listed: true },
      ]);
    });
  });

  it('is for staff only: a visitor gets 403, no credentials 401, before the input is looked at', async () => {
    const event = await createdEvent({ dates: [WINDOW.forbidden] });
    for (const body of [{ name: 'Hijacked' }, {}]) {
      const visitor = await patch(event.eventId, body, 'visitor');
      expect(visitor.status).toBe(403);
      expect(visitor.headers.get('content-type')).toBe('application/problem+json');
      expect(visitor.body).toMatchObject({ title: 'Forbidden', status: 403 });
      const anonymous = await patch(event.eventId, body, 'anonymous');
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('www-authenticate')).toBe('Basic realm="Museum API", charset="UTF-8"');
      expect(anonymous.body).toMatchObject({ title: 'Unauthorized', status: 401 });
    }
    const input = { name: 'Hijacked' };
    const gqlVisitor = await museum.graphql(
      UPDATE_EVENT,
      { eventId: event.eventId, input },
      { as: 'visitor' },
    );
    expect(gqlVisitor.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const gqlAnonymous = await museum.graphql(
      UPDATE_EVENT,
      { eventId: event.eventId, input },
      { as: 'anonymous' },
    );
    expect(gqlAnonymous.status).toBe(401);
    expect(gqlAnonymous.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    expect((await museum.rest('GET', `/special-events/${event.eventId}`)).body).toEqual(event);
  });

  it('answers 404 for an unknown event, and GraphQL NOT_FOUND', async () => {
    expectNotFound(await patch(UNKNOWN_EVENT, { name: 'Ghost' }));
    const gql = await museum.graphql(
      UPDATE_EVENT,
      { eventId: UNKNOWN_EVENT, input: { name: 'Ghost' } },
      { as: 'staff' },
    );
    expect(gql.status).toBe(200);
    expect(gql.body.errors[0].extensions.code).toBe('NOT_FOUND');
    expect(gql.body.data).toBeNull();
  });

  it('a new name moves the event in the list order and is copied to its date rows', async () => {
    const day = WINDOW.renamed;
    const alpha = await createdEvent({ name: 'Alpha', dates: [day, addDays(day, 1)] });
    const bravo = await createdEvent({ name: 'Bravo', dates: [day] });
    const charlie = await createdEvent({ name: 'Charlie', dates: [day] });
    expect(ids(await list(day, day))).toEqual([alpha.eventId, bravo.eventId, charlie.eventId]);

    expect((await patch(alpha.eventId, { name: 'Zulu' })).status).toBe(200);
    expect(ids(await list(day, day))).toEqual([bravo.eventId, charlie.eventId, alpha.eventId]);
    const gql = await museum.graphql(
      UPDATE_EVENT,
      { eventId: charlie.eventId, input: { name: 'Able' } },
      { as: 'staff' },
    );
    expect(gql.body.errors).toBeUndefined();
    const listed = await list(day, day);
    expect(ids(listed)).toEqual([charlie.eventId, bravo.eventId, alpha.eventId]);
    expect(listed.body[2]).toEqual({ ...alpha, name: 'Zulu' });
    expect((await dateRowsOf(alpha.eventId)).map((row) => row.name)).toEqual(['Zulu', 'Zulu']);
  });

  it('new dates replace the old ones in range listings, with each date linked to the one before', async () => {
    const at = (n: number) => addDays(WINDOW.redated, n);
    const moving = await createdEvent({ name: 'Moving', dates: [at(0), at(5), at(10)] });
    const fixed = await createdEvent({ name: 'Zz fixed', dates: [at(6)] });
    expect(ids(await list(at(4), at(12)))).toEqual([moving.eventId, fixed.eventId]);

    const response = await patch(moving.eventId, { dates: [at(20), at(3), at(12)] });
    expect(response.status, response.text).toBe(200);
    expect(response.body.dates).toEqual([at(3), at(12), at(20)]);
    expect(await dateRowsOf(moving.eventId)).toEqual([
      { date: at(3), name: 'Moving', previous_date: null, listed: true },
      { date: at(12), name: 'Moving', previous_date: at(3), listed: true },
      { date: at(20), name: 'Moving', previous_date: at(12), listed: true },
    ]);

    // Its first date in [4, 12] is now 12, after the fixed event's 6; listed once even with two dates in range.
    const range = await list(at(4), at(12));
    expect(ids(range)).toEqual([fixed.eventId, moving.eventId]);
    expect(range.headers.get('x-total-count')).toBe('2');
    expect(ids(await list(at(0), at(2)))).toEqual([]);
    expect(ids(await list(at(5), at(5)))).toEqual([]);
    expect(ids(await list(at(10), at(11)))).toEqual([]);
    expect(ids(await list(at(13), at(20)))).toEqual([moving.eventId]);
    const all = await list(at(0), at(30));
    expect(ids(all)).toEqual([moving.eventId, fixed.eventId]);
    expect(all.headers.get('x-total-count')).toBe('2');

    const gql = await museum.graphql(EVENTS_WITH_COUNT, { startDate: at(4), endDate: at(12) });
    expect(gql.body.data.specialEvents).toEqual(range.body);
    expect(gql.body.data.specialEventsCount).toBe(2);

    // Changing name and dates together: the new rows carry the new name.
    await patch(moving.eventId, { name: 'Aa moved', dates: [at(6)] });
    expect(ids(await list(at(6), at(6)))).toEqual([moving.eventId, fixed.eventId]);
    expect(await dateRowsOf(moving.eventId)).toEqual([
      { date: at(6), name: 'Aa moved', previous_date: null, listed: true },
    ]);
  });
});

describe('concurrent changes', () => {
  it('apply one after the other: every PATCH succeeds and the date rows match the last one', async () => {
    const at = (n: number) => addDays(WINDOW.redated, 50 + n);
    const event = await createdEvent({ name: 'Busy', dates: [at(0)] });
    const changes = [0, 1, 2, 3, 4].map((i) => ({ name: `Busy ${i}`, dates: [at(i), at(i + 10)] }));
    const responses = await Promise.all(changes.map((change) => patch(event.eventId, change)));
    for (const response of responses) expect(response.status, response.text).toBe(200);
    const final = (await museum.rest('GET', `/special-events/${event.eventId}`)).body;
    const winner = changes.find((change) => change.name === final.name)!;
    expect(final.dates).toEqual(winner.dates);
    expect(await dateRowsOf(event.eventId)).toEqual([
      { date: winner.dates[0], name: winner.name, previous_date: null, listed: true },
      { date: winner.dates[1], name: winner.name, previous_date: winner.dates[0], listed: true },
    ]);
  });

  it('of one event, only one delete succeeds; the others, and changes after it, find nothing', async () => {
    const event = await createdEvent({ dates: [addDays(WINDOW.deleted, 40)] });
    const responses = await Promise.all([
      remove(event.eventId),
      remove(event.eventId),
      patch(event.eventId, { price: 1 }),
      remove(event.eventId),
    ]);
    const deletes = [responses[0]!, responses[1]!, responses[3]!].map((r) => r.status).sort();
    expect(deletes).toEqual([204, 404, 404]);
    expect([200, 404]).toContain(responses[2]!.status);
    expectNotFound(await museum.rest('GET', `/special-events/${event.eventId}`));
  });
});

describe('DELETE /special-events/{eventId}', () => {
  const day = WINDOW.deleted;

  it('deletes as staff: 204, then the event is gone from every read and cannot be bought, its tickets kept', async () => {
    const ticketDay = upcomingOpenDay(2);
    const doomed = await createdEvent({ name: 'Doomed', dates: [day, ticketDay] });
    const kept = await createdEvent({ name: 'Kept', dates: [day] });
    const bought = await museum.rest('POST', '/tickets', {
      body: {
        ticketType: 'event',
        eventId: doomed.eventId,
        ticketDate: ticketDay,
        email: 'todd@example.com',
      },
    });
    expect(bought.status, bought.text).toBe(201);
    const before = await list(day, day);
    expect(ids(before)).toEqual([doomed.eventId, kept.eventId]);
    expect(before.headers.get('x-total-count')).toBe('2');

    const deleted = await remove(doomed.eventId);
    expect(deleted.status, deleted.text).toBe(204);
    expect(deleted.text).toBe('');

    expectNotFound(await museum.rest('GET', `/special-events/${doomed.eventId}`));
    const gql = await museum.graphql(EVENT_QUERY, { eventId: doomed.eventId });
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.specialEvent).toBeNull();
    const after = await list(day, day);
    expect(ids(after)).toEqual([kept.eventId]);
    expect(after.headers.get('x-total-count')).toBe('1');
    const upcoming = await list(todayUtc(), addDays(ticketDay, 1));
    expect(ids(upcoming)).not.toContain(doomed.eventId);
    const gqlList = await museum.graphql(EVENTS_WITH_COUNT, { startDate: day, endDate: day });
    expect(gqlList.body.data.specialEvents).toEqual([kept]);
    expect(gqlList.body.data.specialEventsCount).toBe(1);

    // A second delete, a change and a purchase all find nothing.
    expectNotFound(await remove(doomed.eventId));
    expectNotFound(await patch(doomed.eventId, { name: 'Revived' }));
    const buyAfter = await museum.rest('POST', '/tickets', {
      body: {
        ticketType: 'event',
        eventId: doomed.eventId,
        ticketDate: ticketDay,
        email: 'todd@example.com',
      },
    });
    expectNotFound(buyAfter);

    // The ticket sold before stays, still pointing at the (soft-deleted) event.
    const tickets = await execute<{ id: string; event_id: string }[]>(
      museum.deps.db,
      'select id, event_id from ticket where event_id = $1',
      [doomed.eventId],
    );
    expect(tickets).toEqual([{ id: bought.body.ticketId, event_id: doomed.eventId }]);
    const [row] = await execute<{ deleted: boolean }[]>(
      museum.deps.db,
      'select deleted_at is not null as deleted from special_event where id = $1',
      [doomed.eventId],
    );
    expect(row?.deleted).toBe(true);
    expect((await dateRowsOf(doomed.eventId)).map((r) => r.listed)).toEqual([false, false]);
  });

  it('deletes over GraphQL: true, then NOT_FOUND a second time', async () => {
    const event = await createdEvent({ name: 'Short-lived', dates: [addDays(day, 10)] });
    const first = await museum.graphql(DELETE_EVENT, { eventId: event.eventId }, { as: 'staff' });
    expect(first.body).toEqual({ data: { deleteSpecialEvent: true } });
    expectNotFound(await museum.rest('GET', `/special-events/${event.eventId}`));
    expect(ids(await list(addDays(day, 10), addDays(day, 10)))).toEqual([]);
    const second = await museum.graphql(DELETE_EVENT, { eventId: event.eventId }, { as: 'staff' });
    expect(second.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const update = await museum.graphql(
      UPDATE_EVENT,
      { eventId: event.eventId, input: { name: 'Back' } },
      { as: 'staff' },
    );
    expect(update.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it('answers 404 for an unknown event and 400 for an eventId that is not a UUID', async () => {
    expectNotFound(await remove(UNKNOWN_EVENT));
    expectValidation(await remove('not-a-uuid'), 'eventId');
  });

  it('is for staff only: a visitor gets 403, no credentials 401, and the event stays', async () => {
    const event = await createdEvent({ dates: [addDays(day, 20)] });
    const visitor = await remove(event.eventId, 'visitor');
    expect(visitor.status).toBe(403);
    expect(visitor.body).toMatchObject({ title: 'Forbidden', status: 403 });
    const anonymous = await remove(event.eventId, 'anonymous');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Basic realm="Museum API", charset="UTF-8"');
    const gqlVisitor = await museum.graphql(DELETE_EVENT, { eventId: event.eventId }, { as: 'visitor' });
    expect(gqlVisitor.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const gqlAnonymous = await museum.graphql(DELETE_EVENT, { eventId: event.eventId }, { as: 'anonymous' });
    expect(gqlAnonymous.status).toBe(401);
    expect(gqlAnonymous.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    expect((await museum.rest('GET', `/special-events/${event.eventId}`)).body).toEqual(event);
  });

  it('answers 405 with Allow for a method the path does not have', async () => {
    const event = await createdEvent({ dates: [addDays(day, 30)] });
    const response = await museum.rest('PUT', `/special-events/${event.eventId}`, {
      as: 'staff',
      body: { name: 'x' },
    });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('DELETE, GET, PATCH');
  });
});
