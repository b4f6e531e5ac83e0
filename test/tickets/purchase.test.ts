import { beforeAll, describe, expect, it } from 'vitest';
import { addDays, isoWeekday } from '../../src/common/dates.ts';
import { expectValidation, graphqlPaths } from '../support/assertions.ts';
import { BUY_TICKETS, UNKNOWN_EVENT } from '../support/documents.ts';
import {
  basic,
  type Caller,
  eventBody,
  STAFF,
  todayUtc,
  upcoming,
  upcomingClosedDay,
  upcomingOpenDay,
} from '../support/museum.ts';
import { useMuseum } from '../support/use-museum.ts';

let event: { eventId: string; name: string };
const museum = useMuseum();
beforeAll(async () => {
  const created = await museum.rest('POST', '/special-events', {
    as: 'staff',
    body: eventBody({
      name: 'Night at the 🦕 museum',
      // A past date too, to show that being one of the event's dates does not make the past buyable.
      dates: [addDays(todayUtc(), -1), upcomingOpenDay(1), upcomingClosedDay(0)],
    }),
  });
  if (created.status !== 201) throw new Error(`could not create the event: ${created.text}`);
  event = created.body;
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const GENERAL_CODE = /^ticket-general-[0-9a-f]{6}-[0-9a-f]{5}$/;
const EVENT_CODE = /^ticket-event-[0-9a-f]{6}-[0-9a-f]{5}$/;

const general = (overrides: Record<string, unknown> = {}) => ({
  ticketType: 'general',
  ticketDate: upcomingOpenDay(0),
  email: 'todd@example.com',
  ...overrides,
});
const eventTicket = (overrides: Record<string, unknown> = {}) => ({
  ticketType: 'event',
  ticketDate: upcomingOpenDay(1),
  email: 'todd@example.com',
  eventId: event.eventId,
  ...overrides,
});

const buy = (body: unknown, as: Caller = 'visitor') => museum.rest('POST', '/tickets', { as, body });

const withoutField = (body: Record<string, unknown>, field: string) => {
  const copy = { ...body };
  delete copy[field];
  return copy;
};

/** The most recent weekday (open under the regular schedule) before today. */
function lastOpenDayBefore(date: string): string {
  let day = addDays(date, -1);
  while (isoWeekday(day) > 5) day = addDays(day, -1);
  return day;
}

describe('POST /tickets', () => {
  it('sells a general ticket on an upcoming open day', async () => {
    const ticketDate = upcomingOpenDay(2);
    const response = await buy(general({ ticketDate }));
    expect(response.status, response.text).toBe(201);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.body.ticketId).toMatch(UUID);
    expect(response.headers.get('location')).toBe(`/tickets/${response.body.ticketId}`);
    expect(response.body).toEqual({
      message: 'Museum general entry ticket purchased',
      ticketId: response.body.ticketId,
      ticketType: 'general',
      ticketDate,
      confirmationCode: response.body.confirmationCode,
    });
    expect(response.body.confirmationCode).toMatch(GENERAL_CODE);
    expect(Object.keys(response.body)).not.toContain('eventId');
    expect(Object.keys(response.body)).not.toContain('eventName');
  });

  it('gives every purchase its own ticketId and confirmation code', async () => {
    const tickets = [];
    for (let i = 0; i < 5; i++) {
      const response = await buy(general());
      expect(response.status).toBe(201);
      tickets.push(response.body);
    }
    expect(new Set(tickets.map((t) => t.confirmationCode)).size).toBe(5);
    expect(new Set(tickets.map((t) => t.ticketId)).size).toBe(5);
  });

  it('sells a general ticket for today when the museum is open today', async () => {
    const today = todayUtc();
    const response = await buy(general({ ticketDate: today }));
    if (isoWeekday(today) <= 5) {
      expect(response.status, response.text).toBe(201);
      expect(response.body.ticketDate).toBe(today);
    } else {
      // Closed today under the regular schedule: refused for that reason, not for being in the past.
      expectValidation(response, 'ticketDate');
      expect(response.body.detail).toMatch(/closed/i);
    }
  });

  it('sells an event ticket on one of the event dates', async () => {
    for (const ticketDate of [upcomingOpenDay(1), upcomingClosedDay(0)]) {
      const response = await buy(eventTicket({ ticketDate }));
      expect(response.status, response.text).toBe(201);
      expect(response.headers.get('location')).toBe(`/tickets/${response.body.ticketId}`);
      expect(response.body).toEqual({
        message: 'Museum special event ticket purchased',
        ticketId: expect.stringMatching(UUID),
        ticketType: 'event',
        ticketDate,
        confirmationCode: expect.stringMatching(EVENT_CODE),
        eventId: event.eventId,
        eventName: 'Night at the 🦕 museum',
      });
    }
  });

  it('lets visitors and staff alike buy', async () => {
    for (const as of ['visitor', 'other', 'staff'] as const) {
      const response = await buy(general(), as);
      expect(response.status, `${as}: ${response.text}`).toBe(201);
      expect(response.body.confirmationCode).toMatch(GENERAL_CODE);
    }
  });

  it('needs valid credentials', async () => {
    const cases: Caller[] = [
      'anonymous',
      { authorization: basic(STAFF.name, 'wrong-password') },
      { authorization: basic('nobody', 'whatever') },
      { authorization: 'Basic !!!not-base64' },
      { authorization: 'Bearer abc' },
    ];
    for (const as of cases) {
      const response = await buy(general(), as);
      expect(response.status, JSON.stringify(as)).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Basic realm="Museum API", charset="UTF-8"');
      expect(response.headers.get('content-type')).toBe('application/problem+json');
      expect(response.body).toMatchObject({ title: 'Unauthorized', status: 401 });
    }
  });

  describe('rejects with 400 naming the field', () => {
    const longEmail = (length: number) => `${'a'.repeat(length - '@example.com'.length)}@example.com`;
    it.each<[string, () => Record<string, unknown>, string]>([
      ['a general ticket on a Saturday', () => general({ ticketDate: upcoming([6]) }), 'ticketDate'],
      ['a general ticket on a Sunday', () => general({ ticketDate: upcoming([7]) }), 'ticketDate'],
      ['a general ticket yesterday', () => general({ ticketDate: addDays(todayUtc(), -1) }), 'ticketDate'],
      [
        'a general ticket on a past open day',
        () => general({ ticketDate: lastOpenDayBefore(todayUtc()) }),
        'ticketDate',
      ],
      ['a general ticket years ago', () => general({ ticketDate: '2020-01-06' }), 'ticketDate'],
      [
        'an event ticket on a past date of the event',
        () => eventTicket({ ticketDate: addDays(todayUtc(), -1) }),
        'ticketDate',
      ],
      [
        'an event ticket on a date that is not one of the event dates',
        () => eventTicket({ ticketDate: upcomingOpenDay(2) }),
        'ticketDate',
      ],
      ['an event ticket without eventId', () => withoutField(eventTicket(), 'eventId'), 'eventId'],
      ['an event ticket with a null eventId', () => eventTicket({ eventId: null }), 'eventId'],
      ['a general ticket with an eventId', () => general({ eventId: event.eventId }), 'eventId'],
      ['an eventId that is not a UUID', () => eventTicket({ eventId: 'not-a-uuid' }), 'eventId'],
      ['an email without @', () => general({ email: 'todd' }), 'email'],
      ['an email without domain', () => general({ email: 'a@' }), 'email'],
      ['an email of 255 characters', () => general({ email: longEmail(255) }), 'email'],
      ['an empty email', () => general({ email: '' }), 'email'],
      ['a missing ticketType', () => withoutField(general(), 'ticketType'), 'ticketType'],
      ['a missing ticketDate', () => withoutField(general(), 'ticketDate'), 'ticketDate'],
      ['a missing email', () => withoutField(general(), 'email'), 'email'],
      ['ticketType vip', () => general({ ticketType: 'vip' }), 'ticketType'],
      ['ticketDate 2023-02-30', () => general({ ticketDate: '2023-02-30' }), 'ticketDate'],
      ['ticketDate not a date', () => general({ ticketDate: 'tomorrow' }), 'ticketDate'],
      ['ticketDate a number', () => general({ ticketDate: 20300101 }), 'ticketDate'],
      ['a ticketId', () => general({ ticketId: UNKNOWN_EVENT }), 'ticketId'],
      [
        'a confirmationCode',
        () => general({ confirmationCode: 'ticket-general-abcdef-01234' }),
        'confirmationCode',
      ],
      ['an unknown field', () => general({ foo: 'bar' }), 'foo'],
    ])('%s', async (_, body, field) => {
      expectValidation(await buy(body()), field);
    });

    it('accepts an email of 254 characters', async () => {
      const response = await buy(general({ email: longEmail(254) }));
      expect(response.status, response.text).toBe(201);
    });

    it('names every missing field at once', async () => {
      expectValidation(await buy({}), 'ticketType', 'ticketDate', 'email');
      expectValidation(
        await buy({ ticketType: 'vip', ticketDate: '2023-02-30', email: 'a@', foo: 1 }),
        'ticketType',
        'ticketDate',
        'email',
        'foo',
      );
    });

    it('rejects malformed JSON and a JSON array', async () => {
      const headers = { 'content-type': 'application/json' };
      expectValidation(
        await museum.rest('POST', '/tickets', { rawBody: '{"ticketType": "general",', headers }),
      );
      expectValidation(
        await museum.rest('POST', '/tickets', { rawBody: JSON.stringify([general()]), headers }),
      );
      expectValidation(await museum.rest('POST', '/tickets', { rawBody: 'null', headers }));
    });
  });

  it('answers 404 for an unknown event', async () => {
    const response = await buy(eventTicket({ eventId: UNKNOWN_EVENT }));
    expect(response.status, response.text).toBe(404);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(response.body).toMatchObject({ title: 'Not found', status: 404 });
  });

  it('answers 415 for a body that is not JSON', async () => {
    const response = await museum.rest('POST', '/tickets', {
      rawBody: JSON.stringify(general()),
      headers: { 'content-type': 'text/plain' },
    });
    expect(response.status).toBe(415);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(response.body).toMatchObject({ title: 'Unsupported media type', status: 415 });
  });
});

describe('GraphQL buyMuseumTickets', () => {
  it('answers with the same shape as REST, eventId and eventName null for general entry', async () => {
    const ticketDate = upcomingOpenDay(3);
    const gql = await museum.graphql(BUY_TICKETS, { input: general({ ticketDate }) });
    expect(gql.status).toBe(200);
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.buyMuseumTickets).toEqual({
      message: 'Museum general entry ticket purchased',
      ticketId: expect.stringMatching(UUID),
      ticketType: 'general',
      ticketDate,
      confirmationCode: expect.stringMatching(GENERAL_CODE),
      eventId: null,
      eventName: null,
    });

    const eventGql = await museum.graphql(BUY_TICKETS, { input: eventTicket() }, { as: 'staff' });
    expect(eventGql.body.errors).toBeUndefined();
    expect(eventGql.body.data.buyMuseumTickets).toEqual({
      message: 'Museum special event ticket purchased',
      ticketId: expect.stringMatching(UUID),
      ticketType: 'event',
      ticketDate: upcomingOpenDay(1),
      confirmationCode: expect.stringMatching(EVENT_CODE),
      eventId: event.eventId,
      eventName: 'Night at the 🦕 museum',
    });
  });

  it.each<[string, () => Record<string, unknown>, string[]]>([
    ['a closed day', () => general({ ticketDate: upcomingClosedDay(0) }), ['input.ticketDate']],
    ['a past day', () => general({ ticketDate: addDays(todayUtc(), -1) }), ['input.ticketDate']],
    ['a date that does not exist', () => general({ ticketDate: '2023-02-30' }), ['input.ticketDate']],
    ['a bad email', () => general({ email: 'todd' }), ['input.email']],
    ['an event ticket without eventId', () => withoutField(eventTicket(), 'eventId'), ['input.eventId']],
    ['a general ticket with eventId', () => general({ eventId: event.eventId }), ['input.eventId']],
    ['an unknown field', () => general({ foo: 1 }), ['input.foo']],
    ['missing fields', () => ({}), ['input.ticketType', 'input.ticketDate', 'input.email']],
  ])('rejects %s with BAD_USER_INPUT', async (_, input, paths) => {
    const gql = await museum.graphql(BUY_TICKETS, { input: input() });
    expect(gql.body.data?.buyMuseumTickets ?? null).toBeNull();
    expect(gql.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    const named = graphqlPaths(gql.body);
    for (const path of paths) expect(named).toContain(path);
  });

  it('answers NOT_FOUND for an unknown event and UNAUTHENTICATED without credentials', async () => {
    const unknown = await museum.graphql(BUY_TICKETS, { input: eventTicket({ eventId: UNKNOWN_EVENT }) });
    expect(unknown.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const anonymous = await museum.graphql(BUY_TICKETS, { input: general() }, { as: 'anonymous' });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });
});
