import { describe, expect, it } from 'vitest';
import { addDays } from '../../src/common/dates.ts';
import { createdEvent as createdEventAs, createEvent as createEventAs } from '../support/actions.ts';
import { errorPaths, expectValidation, graphqlPaths } from '../support/assertions.ts';
import { CREATE_EVENT, EVENT_QUERY, EVENTS_QUERY } from '../support/documents.ts';
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

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

// The database is shared by every test of this file: each listing test works in a far-future window of its
// own, years ahead and apart from the others, so no other test's events can fall into it.
const WINDOW = {
  ordering: farWindow(0),
  pagination: farWindow(1),
  defaults: farWindow(2),
  rejected: farWindow(3),
  graphql: farWindow(4),
  forbidden: farWindow(5),
  headers: farWindow(6),
  manyDates: farWindow(10),
};

const createEvent = (overrides: Record<string, unknown> = {}) => createEventAs(museum, overrides);
const createdEvent = (overrides: Record<string, unknown> = {}) => createdEventAs(museum, overrides);

const list = (query: string) => museum.rest('GET', `/special-events?${query}`);

const without = (field: string) => {
  const body: Record<string, unknown> = eventBody({ dates: [WINDOW.rejected] });
  delete body[field];
  return body;
};

describe('POST /special-events', () => {
  it('creates an event as staff: 201, the full event, its Location, and GET returns the same', async () => {
    const body = eventBody({
      name: 'Moonlight 🌙 Tour',
      location: 'Rooftop 🏛️ terrace',
      dates: [upcomingOpenDay(4), upcomingOpenDay(1), upcomingOpenDay(2)],
      price: 25.5,
    });
    const created = await museum.rest('POST', '/special-events', { as: 'staff', body });
    expect(created.status).toBe(201);
    expect(created.headers.get('content-type')).toMatch(/^application\/json/);
    expect(created.body.eventId).toMatch(UUID);
    expect(created.headers.get('location')).toBe(`/special-events/${created.body.eventId}`);
    expect(created.body).toEqual({
      eventId: created.body.eventId,
      name: 'Moonlight 🌙 Tour',
      location: 'Rooftop 🏛️ terrace',
      eventDescription: body.eventDescription,
      dates: [upcomingOpenDay(1), upcomingOpenDay(2), upcomingOpenDay(4)],
      price: 25.5,
    });

    const fetched = await museum.rest('GET', `/special-events/${created.body.eventId}`);
    expect(fetched.status).toBe(200);
    expect(fetched.headers.get('content-type')).toMatch(/^application\/json/);
    expect(fetched.body).toEqual(created.body);

    const gql = await museum.graphql(EVENT_QUERY, { eventId: created.body.eventId });
    expect(gql.status).toBe(200);
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.specialEvent).toEqual(created.body);
  });

  it.each([0, 25.5, 19.99, 0.01, 1000000])('returns price %s exactly as sent', async (price) => {
    const created = await createdEvent({ price, dates: [addDays(WINDOW.manyDates, 400)] });
    expect(created.price).toBe(price);
    const fetched = await museum.rest('GET', `/special-events/${created.eventId}`);
    expect(fetched.body.price).toBe(price);
    expect(fetched.text).toContain(`"price":${price}`);
  });

  it('accepts the longest texts, counting each emoji as one character', async () => {
    const longest = {
      name: '😀'.repeat(200),
      location: 'l'.repeat(200),
      eventDescription: '🦀'.repeat(5000),
      dates: [addDays(WINDOW.manyDates, 401)],
    };
    const created = await createdEvent(longest);
    expect(created).toMatchObject(longest);
    const plain = await createdEvent({ name: 'n'.repeat(200), dates: [addDays(WINDOW.manyDates, 401)] });
    expect(plain.name).toBe('n'.repeat(200));
  });

  it('accepts 366 distinct dates and returns them ascending', async () => {
    const dates = Array.from({ length: 366 }, (_, i) => addDays(WINDOW.manyDates, 365 - i));
    const created = await createdEvent({ dates });
    expect(created.dates).toHaveLength(366);
    expect(created.dates).toEqual([...dates].sort());
  });

  it('is for staff only: a visitor gets 403, no credentials 401, over REST and GraphQL', async () => {
    const body = eventBody({ dates: [WINDOW.forbidden] });
    const visitor = await museum.rest('POST', '/special-events', { as: 'visitor', body });
    expect(visitor.status).toBe(403);
    expect(visitor.headers.get('content-type')).toBe('application/problem+json');
    expect(visitor.body).toMatchObject({ title: 'Forbidden', status: 403 });

    const anonymous = await museum.rest('POST', '/special-events', { as: 'anonymous', body });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Basic realm="Museum API", charset="UTF-8"');
    expect(anonymous.headers.get('content-type')).toBe('application/problem+json');
    expect(anonymous.body).toMatchObject({ title: 'Unauthorized', status: 401 });

    const gqlVisitor = await museum.graphql(CREATE_EVENT, { input: body }, { as: 'visitor' });
    expect(gqlVisitor.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect(gqlVisitor.body.data?.createSpecialEvent ?? null).toBeNull();
    const gqlAnonymous = await museum.graphql(CREATE_EVENT, { input: body }, { as: 'anonymous' });
    expect(gqlAnonymous.status).toBe(401);
    expect(gqlAnonymous.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');

    const listed = await list(`startDate=${WINDOW.forbidden}&endDate=${WINDOW.forbidden}`);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual([]);
  });

  it('creates over GraphQL with the same result as REST', async () => {
    const input = eventBody({ name: 'GraphQL gala', dates: [addDays(WINDOW.graphql, 3), WINDOW.graphql] });
    const gql = await museum.graphql(CREATE_EVENT, { input }, { as: 'staff' });
    expect(gql.body.errors).toBeUndefined();
    const event = gql.body.data.createSpecialEvent;
    expect(event).toEqual({
      ...input,
      eventId: event.eventId,
      dates: [WINDOW.graphql, addDays(WINDOW.graphql, 3)],
    });
    expect(event.eventId).toMatch(UUID);
    const rest = await museum.rest('GET', `/special-events/${event.eventId}`);
    expect(rest.body).toEqual(event);
  });

  describe('rejects invalid events with 400 naming the field', () => {
    const d = (n: number) => addDays(WINDOW.rejected, n);
    it.each<[string, Record<string, unknown>, string]>([
      ['a blank name', { name: '   ' }, 'name'],
      ['an empty name', { name: '' }, 'name'],
      ['a name of 201 characters', { name: 'n'.repeat(201) }, 'name'],
      ['a name of 201 emoji', { name: '😀'.repeat(201) }, 'name'],
      ['a blank location', { location: ' \t ' }, 'location'],
      ['a location of 201 characters', { location: 'l'.repeat(201) }, 'location'],
      ['a blank eventDescription', { eventDescription: '\n' }, 'eventDescription'],
      ['an eventDescription of 5001 characters', { eventDescription: 'e'.repeat(5001) }, 'eventDescription'],
      ['a name that is not a string', { name: 42 }, 'name'],
      ['no dates', { dates: [] }, 'dates'],
      ['367 dates', { dates: Array.from({ length: 367 }, (_, i) => d(i)) }, 'dates'],
      ['a duplicate date', { dates: [d(0), d(0)] }, 'dates[1]'],
      ['a later duplicate date', { dates: [d(0), d(1), d(2), d(1)] }, 'dates[3]'],
      ['a date that does not exist', { dates: [d(0), '2023-02-30'] }, 'dates[1]'],
      ['a date in another format', { dates: ['2030-1-01'] }, 'dates[0]'],
      ['a date that is not a string', { dates: [20300101] }, 'dates[0]'],
      ['dates that are not a list of strings', { dates: 'monday' }, 'dates'],
      ['one date where a list is asked for', { dates: d(0) }, 'dates'],
      ...REFUSED_PRICES,
      ['an unknown field', { foo: 'bar' }, 'foo'],
      ['a server-assigned eventId', { eventId: '3be6453c-03eb-4357-ae5a-984a0e574a54' }, 'eventId'],
    ])('%s', async (_, overrides, field) => {
      const response = await createEvent({ dates: [d(0)], ...overrides });
      expectValidation(response, field);
    });

    it.each(['name', 'location', 'eventDescription', 'dates', 'price'])('a missing %s', async (field) => {
      const response = await museum.rest('POST', '/special-events', { as: 'staff', body: without(field) });
      expectValidation(response, field);
    });

    it('names every offending field of one request (rule errors)', async () => {
      const rules = await createEvent({
        name: ' ',
        location: 'l'.repeat(201),
        dates: [],
        price: -1,
      });
      expectValidation(rules, 'name', 'location', 'dates', 'price');
    });

    it('names every offending field when type errors and rule errors come together', async () => {
      const mixed = await museum.rest('POST', '/special-events', {
        as: 'staff',
        body: { ...without('location'), name: ' ', price: '10', foo: 1 },
      });
      expectValidation(mixed, 'location', 'name', 'price', 'foo');
    });

    it('rejects malformed JSON and a JSON array with 400', async () => {
      const malformed = await museum.rest('POST', '/special-events', {
        as: 'staff',
        rawBody: '{"name": "Unclosed',
        headers: { 'content-type': 'application/json' },
      });
      expectValidation(malformed);
      const array = await museum.rest('POST', '/special-events', {
        as: 'staff',
        rawBody: JSON.stringify([eventBody({ dates: [d(0)] })]),
        headers: { 'content-type': 'application/json' },
      });
      expectValidation(array);
      const empty = await museum.rest('POST', '/special-events', {
        as: 'staff',
        rawBody: '',
        headers: { 'content-type': 'application/json' },
      });
      expectValidation(empty);
    });

    it('writes nothing when a request is rejected', async () => {
      const range = `startDate=${d(0)}&endDate=${d(50)}&limit=30`;
      const before = await list(range);
      expect(before.status).toBe(200);
      for (const overrides of [
        { price: -1 },
        { foo: 'bar' },
        { name: ' ' },
        { dates: [d(0), d(0)] },
        { eventId: '3be6453c-03eb-4357-ae5a-984a0e574a54' },
      ]) {
        expect((await createEvent({ dates: [d(0)], ...overrides })).status).toBe(400);
      }
      const after = await list(range);
      expect(after.body).toEqual(before.body);
      expect(after.body).toEqual([]);
      // The same window does list an event once one is accepted, so the emptiness above means something.
      const accepted = await createdEvent({ dates: [d(0)] });
      expect((await list(range)).body.map((e: { eventId: string }) => e.eventId)).toEqual([accepted.eventId]);
    });
  });

  it('rejects bad input over GraphQL with BAD_USER_INPUT and input paths', async () => {
    const input = eventBody({ dates: [WINDOW.rejected], price: 1.234, name: ' ' });
    const gql = await museum.graphql(CREATE_EVENT, { input }, { as: 'staff' });
    expect(gql.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    const paths = graphqlPaths(gql.body);
    expect(paths).toContain('input.price');
    expect(paths).toContain('input.name');

    const unknown = await museum.graphql(
      CREATE_EVENT,
      { input: { ...input, price: 1, name: 'x', foo: 1 } },
      {
        as: 'staff',
      },
    );
    expect(unknown.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(errorPaths(unknown.body.errors[0].extensions)).toContain('input.foo');
  });
});

describe('GET /special-events/{eventId}', () => {
  it('rejects an eventId that is not a UUID with 400 naming eventId', async () => {
    for (const id of ['not-a-uuid', '123', '3be6453c-03eb-4357-ae5a-984a0e574a5']) {
      expectValidation(await museum.rest('GET', `/special-events/${id}`), 'eventId');
    }
  });

  it('answers 404 for an unknown UUID, and GraphQL null', async () => {
    const unknown = '3be6453c-03eb-4357-ae5a-984a0e574a54';
    const response = await museum.rest('GET', `/special-events/${unknown}`);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(response.body).toMatchObject({ title: 'Not found', status: 404 });
    const gql = await museum.graphql(EVENT_QUERY, { eventId: unknown });
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.specialEvent).toBeNull();
  });

  it('needs credentials', async () => {
    const created = await createdEvent({ dates: [addDays(WINDOW.manyDates, 402)] });
    const anonymous = await museum.rest('GET', `/special-events/${created.eventId}`, { as: 'anonymous' });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Basic realm="Museum API", charset="UTF-8"');
  });
});

describe('GET /special-events', () => {
  const ids = (response: TestResponse) => response.body.map((event: { eventId: string }) => event.eventId);

  it('lists events with a date in the range, boundaries inclusive, ordered by first date in range, name, eventId', async () => {
    const start = WINDOW.ordering;
    const end = addDays(start, 9);
    const at = (n: number) => addDays(start, n);
    const before = await createdEvent({ name: 'Before the range', dates: [at(-3), at(-1)] });
    const after = await createdEvent({ name: 'After the range', dates: [at(10), at(12)] });
    const straddling = await createdEvent({ name: 'Straddling', dates: [at(-1), at(10)] });
    const onStart = await createdEvent({ name: 'Zeta on start', dates: [at(-5), start] });
    const onEnd = await createdEvent({ name: 'Alpha on end', dates: [end, at(11)] });
    // Same first date in range: name decides.
    const nameB = await createdEvent({ name: 'Bravo', dates: [at(2)] });
    const nameA = await createdEvent({ name: 'Alpha', dates: [at(2), at(30)] });
    // The first date in the range counts, not the first date of the event, nor its name.
    const earlyOutside = await createdEvent({ name: 'Aardvark', dates: [at(-20), at(4)] });
    const lateInside = await createdEvent({ name: 'Yak', dates: [at(3), at(5)] });
    // Several dates in the range: listed once, at its first one.
    const several = await createdEvent({ name: 'Several', dates: [at(6), at(7), at(8)] });
    // Same name and dates: eventId decides.
    const twins: string[] = [];
    for (let i = 0; i < 5; i++) twins.push((await createdEvent({ name: 'Twin', dates: [at(7)] })).eventId);
    twins.sort();

    const response = await list(`startDate=${start}&endDate=${end}&limit=30`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(ids(response)).toEqual([
      onStart.eventId,
      nameA.eventId,
      nameB.eventId,
      lateInside.eventId,
      earlyOutside.eventId,
      several.eventId,
      ...twins,
      onEnd.eventId,
    ]);
    for (const absent of [before, after, straddling]) expect(ids(response)).not.toContain(absent.eventId);
    // Each listed event is the full event, with all its dates (also those outside the range).
    expect(response.body[1]).toEqual(nameA);
    expect(response.body[4]).toEqual(earlyOutside);

    // A one-day range on either boundary.
    expect(ids(await list(`startDate=${start}&endDate=${start}`))).toEqual([onStart.eventId]);
    expect(ids(await list(`startDate=${end}&endDate=${end}`))).toEqual([onEnd.eventId]);
    // Moving the range moves the first date in range: at(7) is now Several's first date, before Twin by name.
    expect(ids(await list(`startDate=${at(7)}&endDate=${at(7)}`))).toEqual([several.eventId, ...twins]);

    const gql = await museum.graphql(EVENTS_QUERY, { startDate: start, endDate: end, limit: 30 });
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.specialEvents).toEqual(response.body);
  });

  it('defaults startDate to today and endDate to startDate + 7 days', async () => {
    const today = todayUtc();
    const in7 = await createdEvent({ name: 'Seven days out', dates: [addDays(today, 7)] });
    const in8 = await createdEvent({ name: 'Eight days out', dates: [addDays(today, 8)] });
    const yesterday = await createdEvent({ name: 'Yesterday', dates: [addDays(today, -1)] });
    const todays = await createdEvent({ name: 'Today', dates: [today] });
    const defaults = await list('limit=30');
    expect(defaults.status).toBe(200);
    expect(ids(defaults)).toContain(in7.eventId);
    expect(ids(defaults)).toContain(todays.eventId);
    expect(ids(defaults)).not.toContain(in8.eventId);
    expect(ids(defaults)).not.toContain(yesterday.eventId);
    expect(ids(await list(`startDate=${today}&endDate=${addDays(today, 7)}&limit=30`))).toEqual(
      ids(defaults),
    );
    expect(ids(await list(`startDate=${today}&endDate=${addDays(today, 8)}&limit=30`))).toContain(
      in8.eventId,
    );

    // endDate alone-defaulted from a given startDate.
    const start = WINDOW.defaults;
    const at7 = await createdEvent({ dates: [addDays(start, 7)] });
    await createdEvent({ dates: [addDays(start, 8)] });
    const atStart = await createdEvent({ dates: [start] });
    expect(ids(await list(`startDate=${start}`))).toEqual([atStart.eventId, at7.eventId]);
    const gql = await museum.graphql(EVENTS_QUERY, { startDate: start });
    expect(gql.body.data.specialEvents.map((e: { eventId: string }) => e.eventId)).toEqual([
      atStart.eventId,
      at7.eventId,
    ]);
  });

  it('rejects endDate before startDate with 400 naming endDate', async () => {
    const start = WINDOW.ordering;
    expectValidation(await list(`startDate=${start}&endDate=${addDays(start, -1)}`), 'endDate');
    expectValidation(await list(`endDate=${addDays(todayUtc(), -1)}`), 'endDate');
    const gql = await museum.graphql(EVENTS_QUERY, { startDate: start, endDate: addDays(start, -1) });
    expect(gql.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(errorPaths(gql.body.errors[0].extensions)).toContain('endDate');
    // Equal dates are a valid one-day range.
    expect((await list(`startDate=${start}&endDate=${start}`)).status).toBe(200);
  });

  it.each([
    ['limit=31', 'limit'],
    ['limit=0', 'limit'],
    ['limit=-1', 'limit'],
    ['limit=ten', 'limit'],
    ['page=0', 'page'],
    ['page=1.5', 'page'],
    ['startDate=2023-02-30', 'startDate'],
    ['endDate=2023-02-30', 'endDate'],
    ['startDate=soon', 'startDate'],
  ])('rejects %s with 400 naming %s', async (query, field) => {
    expectValidation(await list(query), field);
  });

  it('pages through the list: limit 30 is the most, page 2 continues page 1, past the end is empty', async () => {
    const start = WINDOW.pagination;
    const end = addDays(start, 20);
    const created = [];
    for (let i = 0; i < 7; i++) {
      created.push(await createdEvent({ name: `Page event ${i}`, dates: [addDays(start, 3 * i)] }));
    }
    const range = `startDate=${start}&endDate=${end}`;
    const all = await list(`${range}&limit=30`);
    expect(all.status).toBe(200);
    expect(ids(all)).toEqual(created.map((e) => e.eventId));

    const page1 = await list(`${range}&limit=3`);
    const page2 = await list(`${range}&limit=3&page=2`);
    const page3 = await list(`${range}&limit=3&page=3`);
    expect(page1.body).toEqual(all.body.slice(0, 3));
    expect(page2.body).toEqual(all.body.slice(3, 6));
    expect(page3.body).toEqual(all.body.slice(6));
    expect(page1.body).toHaveLength(3);
    expect(page3.body).toHaveLength(1);

    const past = await list(`${range}&limit=3&page=4`);
    expect(past.status).toBe(200);
    expect(past.body).toEqual([]);
    const farPast = await list(`${range}&page=1000`);
    expect(farPast.status).toBe(200);
    expect(farPast.body).toEqual([]);

    // The default limit is 10: all seven fit on page 1.
    expect(ids(await list(range))).toEqual(ids(all));

    expectValidation(await list(`${range}&limit=31`), 'limit');
    expectValidation(await list(`${range}&limit=0`), 'limit');

    const gql = await museum.graphql(EVENTS_QUERY, { startDate: start, endDate: end, page: 2, limit: 3 });
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.specialEvents).toEqual(page2.body);
    const gqlBad = await museum.graphql(EVENTS_QUERY, { startDate: start, limit: 31, page: 0 });
    expect(gqlBad.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(errorPaths(gqlBad.body.errors[0].extensions).sort()).toEqual(['limit', 'page']);
  });

  it('sends X-Total-Count and Link headers on a paged list', async () => {
    const start = WINDOW.headers;
    for (let i = 0; i < 5; i++) await createdEvent({ name: `Header event ${i}`, dates: [addDays(start, i)] });
    const range = `startDate=${start}&endDate=${addDays(start, 6)}`;
    const middle = await list(`${range}&limit=2&page=2`);
    expect(middle.status).toBe(200);
    expect(middle.headers.get('x-total-count')).toBe('5');
    const link = middle.headers.get('link') ?? '';
    expect(link).toMatch(/rel="next"/);
    expect(link).toMatch(/rel="prev"/);
    expect(link).toMatch(/rel="first"/);
  });

  it('links first, prev, next and last; past the end, prev leads to the last page with items', async () => {
    const start = addDays(WINDOW.headers, 20);
    for (let i = 0; i < 5; i++) await createdEvent({ name: `Paging event ${i}`, dates: [addDays(start, i)] });
    const range = `startDate=${start}&endDate=${addDays(start, 6)}`;
    const linksOf = async (query: string) => {
      const response = await list(`${range}&${query}`);
      expect(response.status).toBe(200);
      return Object.fromEntries(
        (response.headers.get('link') ?? '')
          .split(', ')
          .map((part) => part.match(/^<([^>]+)>; rel="(\w+)"$/)!)
          .map(([, target, rel]) => [rel, new URL(target!, 'http://x').searchParams.get('page')]),
      );
    };
    expect(await linksOf('limit=2&page=1')).toEqual({ first: '1', next: '2', last: '3' });
    expect(await linksOf('limit=2&page=2')).toEqual({ first: '1', prev: '1', next: '3', last: '3' });
    expect(await linksOf('limit=2&page=3')).toEqual({ first: '1', prev: '2', last: '3' });
    expect(await linksOf('limit=2&page=9')).toEqual({ first: '1', prev: '3', last: '3' });
    const empty = `startDate=${addDays(start, 40)}&endDate=${addDays(start, 41)}`;
    const none = await list(`${empty}&page=4`);
    expect(none.headers.get('x-total-count')).toBe('0');
    expect(none.headers.get('link')).not.toMatch(/rel="prev"/);
    expect(none.headers.get('link')).toMatch(/page=1&limit=10>; rel="last"/);
  });

  it('says a limit or page that is not an integer in words, naming it', async () => {
    for (const [query, field, rule] of [
      ['limit=abc', 'limit', 'must be an integer from 1 to 30'],
      ['limit=31', 'limit', 'must be an integer from 1 to 30'],
      ['limit=0', 'limit', 'must be an integer from 1 to 30'],
      ['limit=1.5', 'limit', 'must be an integer from 1 to 30'],
      ['page=x', 'page', 'must be an integer, 1 or more'],
      ['page=0', 'page', 'must be an integer, 1 or more'],
      ['page=99999999999999999999', 'page', 'must be an integer, 1 or more'],
    ]) {
      const response = await list(query!);
      expect(response.status, query).toBe(400);
      expect(response.body.errors, query).toEqual([{ path: field, message: rule }]);
      expect(response.body.detail, query).toBe(`${field}: ${rule}`);
    }
  });

  it('needs credentials, and a visitor may read', async () => {
    const visitor = await list('');
    expect(visitor.status).toBe(200);
    expect(Array.isArray(visitor.body)).toBe(true);
    const none = await museum.rest('GET', '/special-events', { as: 'anonymous' });
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Basic realm="Museum API", charset="UTF-8"');
    const gql = await museum.graphql(EVENTS_QUERY, {}, { as: 'anonymous' });
    expect(gql.status).toBe(401);
    expect(gql.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });
});
