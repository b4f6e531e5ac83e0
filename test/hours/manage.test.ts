import { describe, expect, it } from 'vitest';
import { addDays, isoWeekday } from '../../src/common/dates.ts';
import { buyTicket } from '../support/actions.ts';
import { HOURS_QUERY } from '../support/documents.ts';
import { type Caller, type TestResponse, upcoming, upcomingOpenDay } from '../support/museum.ts';
import { useMuseum } from '../support/use-museum.ts';

const museum = useMuseum();

const SET_WEEKLY = `mutation($input: SetWeeklyHoursInput!) {
  setWeeklyHours(input: $input) { weekday timeOpen timeClose closed } }`;
const SET_DAY = `mutation($input: SetDayHoursInput!) {
  setDayHours(input: $input) { date timeOpen timeClose closed regular } }`;

const REGULAR_WEEK = [
  { weekday: 'monday', timeOpen: '09:00', timeClose: '18:00', closed: false },
  { weekday: 'tuesday', timeOpen: '09:00', timeClose: '18:00', closed: false },
  { weekday: 'wednesday', timeOpen: '09:00', timeClose: '18:00', closed: false },
  { weekday: 'thursday', timeOpen: '09:00', timeClose: '18:00', closed: false },
  { weekday: 'friday', timeOpen: '10:00', timeClose: '16:00', closed: false },
  { weekday: 'saturday', timeOpen: null, timeClose: null, closed: true },
  { weekday: 'sunday', timeOpen: null, timeClose: null, closed: true },
];

async function setWeekly(
  days: Record<string, unknown>[],
  as: Caller = 'staff',
  more: Record<string, unknown> = {},
) {
  return museum.graphql(SET_WEEKLY, { input: { days, ...more } }, { as });
}

async function setDay(input: Record<string, unknown>, as: Caller = 'staff') {
  return museum.graphql(SET_DAY, { input }, { as });
}

function expectOk(response: TestResponse) {
  expect(response.status, response.text).toBe(200);
  expect(response.body.errors, response.text).toBeUndefined();
  return response.body.data;
}

/** The open days REST lists from `startDate`. */
async function openDays(startDate: string, limit = 10) {
  const response = await museum.rest('GET', `/museum-hours?startDate=${startDate}&limit=${limit}`);
  expect(response.status).toBe(200);
  const gql = await museum.graphql(HOURS_QUERY, { startDate, limit });
  expect(gql.body.data.museumHours).toEqual(response.body);
  return response.body as { date: string; timeOpen: string; timeClose: string }[];
}

const buyGeneral = (ticketDate: string) => buyTicket(museum, { ticketDate });

function expectTicketRefused(response: TestResponse) {
  expect(response.status, response.text).toBe(400);
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  expect(response.body.errors.map((e: { path: string }) => e.path)).toContain('ticketDate');
}

function expectInputErrors(response: TestResponse, ...paths: string[]) {
  expect(response.body.errors?.[0]?.extensions?.code, response.text).toBe('BAD_USER_INPUT');
  const named = response.body.errors.flatMap((e: { extensions: { errors?: { path: string }[] } }) =>
    (e.extensions.errors ?? []).map((issue) => issue.path),
  );
  for (const path of paths) expect(named).toContain(path);
  expect(response.body.data?.setDayHours ?? response.body.data?.setWeeklyHours ?? null).toBeNull();
}

describe('setDayHours', () => {
  it('closes an upcoming weekday: gone from /museum-hours, no general ticket, until it is regular again', async () => {
    const day = upcomingOpenDay(1);
    expect((await openDays(day, 1))[0]?.date).toBe(day);

    const closed = await setDay({ date: day, closed: true });
    expect(expectOk(closed).setDayHours).toEqual({
      date: day,
      timeOpen: null,
      timeClose: null,
      closed: true,
      regular: false,
    });
    const listed = await openDays(addDays(day, -1), 5);
    expect(listed.map((d) => d.date)).not.toContain(day);
    expect(listed[0]?.date).not.toBe(day);
    expectTicketRefused(await buyGeneral(day));
    const gqlTicket = await museum.graphql(
      `mutation($input: BuyMuseumTicketsInput!) { buyMuseumTickets(input: $input) { ticketId } }`,
      { input: { ticketType: 'general', ticketDate: day, email: 'todd@example.com' } },
    );
    expect(gqlTicket.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');

    const regular = await setDay({ date: day, regular: true });
    const weekday = isoWeekday(day);
    expect(expectOk(regular).setDayHours).toEqual({
      date: day,
      timeOpen: weekday === 5 ? '10:00' : '09:00',
      timeClose: weekday === 5 ? '16:00' : '18:00',
      closed: false,
      regular: true,
    });
    expect((await openDays(day, 1))[0]?.date).toBe(day);
    expect((await buyGeneral(day)).status).toBe(201);
    // Regular again when it already was: nothing to remove, still fine.
    expect(expectOk(await setDay({ date: day, regular: true })).setDayHours.regular).toBe(true);
  });

  it('sets special hours, shown at once by /museum-hours, also on a day that is usually closed', async () => {
    const monday = upcoming([1], 2);
    const special = await setDay({ date: monday, timeOpen: '12:30', timeClose: '21:00' });
    expect(expectOk(special).setDayHours).toEqual({
      date: monday,
      timeOpen: '12:30',
      timeClose: '21:00',
      closed: false,
      regular: false,
    });
    expect((await openDays(monday, 2))[0]).toEqual({ date: monday, timeOpen: '12:30', timeClose: '21:00' });
    // Setting the date again replaces its hours.
    expectOk(await setDay({ date: monday, timeOpen: '08:00', timeClose: '09:00' }));
    expect((await openDays(monday, 1))[0]).toEqual({ date: monday, timeOpen: '08:00', timeClose: '09:00' });

    const sunday = upcoming([7], 2);
    expect((await openDays(sunday, 1))[0]?.date).not.toBe(sunday);
    expectTicketRefused(await buyGeneral(sunday));
    expectOk(await setDay({ date: sunday, timeOpen: '11:00', timeClose: '15:00', closed: false }));
    expect((await openDays(sunday, 1))[0]).toEqual({ date: sunday, timeOpen: '11:00', timeClose: '15:00' });
    const ticket = await buyGeneral(sunday);
    expect(ticket.status, ticket.text).toBe(201);
    expect(ticket.body.ticketDate).toBe(sunday);
  });

  describe('rejects invalid input with BAD_USER_INPUT naming the field', () => {
    const date = upcomingOpenDay(5);
    it.each<[string, Record<string, unknown>, string[]]>([
      ['neither times, closed nor regular', { date }, ['input.timeOpen', 'input.timeClose']],
      ['timeOpen without timeClose', { date, timeOpen: '09:00' }, ['input.timeClose']],
      ['timeClose without timeOpen', { date, timeClose: '17:00' }, ['input.timeOpen']],
      ['timeOpen after timeClose', { date, timeOpen: '18:00', timeClose: '09:00' }, ['input.timeClose']],
      ['timeOpen equal to timeClose', { date, timeOpen: '09:00', timeClose: '09:00' }, ['input.timeClose']],
      [
        'closed with times',
        { date, closed: true, timeOpen: '09:00', timeClose: '17:00' },
        ['input.timeOpen'],
      ],
      ['closed: false without times', { date, closed: false }, ['input.timeOpen']],
      [
        'regular with times',
        { date, regular: true, timeOpen: '09:00', timeClose: '17:00' },
        ['input.timeOpen'],
      ],
      ['regular and closed', { date, regular: true, closed: true }, ['input.closed']],
      ['an hour past 23', { date, timeOpen: '24:00', timeClose: '23:00' }, ['input.timeOpen']],
      ['a time without its leading zero', { date, timeOpen: '9:00', timeClose: '17:00' }, ['input.timeOpen']],
      ['a time with seconds', { date, timeOpen: '09:00:00', timeClose: '17:00' }, ['input.timeOpen']],
      ['a date that does not exist', { date: '2023-02-30', closed: true }, ['input.date']],
      ['no date', { closed: true }, ['input.date']],
      ['closed that is not a boolean', { date, closed: 'yes' }, ['input.closed']],
      ['an unknown field', { date, closed: true, note: 'holiday' }, ['input.note']],
    ])('%s', async (_, input, paths) => {
      expectInputErrors(await setDay(input), ...paths);
    });

    it('and writes nothing', async () => {
      expectInputErrors(await setDay({ date, timeOpen: '18:00', timeClose: '09:00' }), 'input.timeClose');
      expectInputErrors(await setDay({ date, closed: true, timeOpen: '09:00' }), 'input.timeOpen');
      expect((await openDays(date, 1))[0]?.date).toBe(date);
    });
  });
});

describe('setWeeklyHours', () => {
  it('opens Saturdays: listed by /museum-hours and buyable, then closed again', async () => {
    try {
      const response = await setWeekly([{ weekday: 'saturday', timeOpen: '10:00', timeClose: '14:00' }]);
      expect(expectOk(response).setWeeklyHours).toEqual(
        REGULAR_WEEK.map((day) =>
          day.weekday === 'saturday' ? { ...day, timeOpen: '10:00', timeClose: '14:00', closed: false } : day,
        ),
      );
      const saturdays = [0, 1, 2].map((n) => upcoming([6], n));
      const listed = await openDays(saturdays[0]!, 30);
      for (const saturday of saturdays) {
        expect(listed).toContainEqual({ date: saturday, timeOpen: '10:00', timeClose: '14:00' });
      }
      expect(listed.map((day) => day.date)).not.toContain(upcoming([7], 0));
      const ticket = await buyGeneral(saturdays[1]!);
      expect(ticket.status, ticket.text).toBe(201);
      // Closing Saturdays again would call that ticket off: refused until confirmed (weekday-call-off.test.ts).
      const refused = await setWeekly([{ weekday: 'saturday', closed: true }]);
      expect(refused.body.errors[0].extensions.code).toBe('CONFLICT');
    } finally {
      expectOk(await setWeekly([{ weekday: 'saturday', closed: true }], 'staff', { cancelTickets: true }));
    }
    const saturday = upcoming([6], 1);
    expect((await openDays(saturday, 30)).some((day) => isoWeekday(day.date) === 6)).toBe(false);
    expectTicketRefused(await buyGeneral(saturday));
  });

  it('changes several weekdays at once and leaves the others; a date with its own hours keeps them', async () => {
    const tuesday = upcoming([2], 3);
    const nextTuesday = addDays(tuesday, 7);
    expectOk(await setDay({ date: tuesday, timeOpen: '13:00', timeClose: '17:00' }));
    try {
      // Tickets bought on Tuesdays by the tests above are called off with them (weekday-call-off.test.ts).
      const response = await setWeekly(
        [
          { weekday: 'tuesday', closed: true },
          { weekday: 'friday', timeOpen: '09:30', timeClose: '22:00', closed: false },
        ],
        'staff',
        { cancelTickets: true },
      );
      expect(expectOk(response).setWeeklyHours).toEqual(
        REGULAR_WEEK.map((day) =>
          day.weekday === 'tuesday'
            ? { ...day, timeOpen: null, timeClose: null, closed: true }
            : day.weekday === 'friday'
              ? { ...day, timeOpen: '09:30', timeClose: '22:00' }
              : day,
        ),
      );
      const listed = await openDays(tuesday, 30);
      expect(listed[0]).toEqual({ date: tuesday, timeOpen: '13:00', timeClose: '17:00' });
      expect(listed.map((day) => day.date)).not.toContain(nextTuesday);
      expect(listed).toContainEqual({ date: addDays(tuesday, 3), timeOpen: '09:30', timeClose: '22:00' });
      expectTicketRefused(await buyGeneral(nextTuesday));
      expect((await buyGeneral(tuesday)).status).toBe(201);
    } finally {
      expectOk(
        await setWeekly([
          { weekday: 'tuesday', timeOpen: '09:00', timeClose: '18:00' },
          { weekday: 'friday', timeOpen: '10:00', timeClose: '16:00' },
        ]),
      );
      expectOk(await setDay({ date: tuesday, regular: true }));
    }
    expect(expectOk(await setWeekly([{ weekday: 'monday', timeOpen: '09:00', timeClose: '18:00' }]))).toEqual(
      {
        setWeeklyHours: REGULAR_WEEK,
      },
    );
  });

  describe('rejects invalid input with BAD_USER_INPUT naming the field', () => {
    const open = { timeOpen: '09:00', timeClose: '18:00' };
    it.each<[string, Record<string, unknown>[], string[]]>([
      ['no weekdays', [], ['input.days']],
      [
        'eight weekdays',
        ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday', 'monday'].map(
          (weekday) => ({ weekday, ...open }),
        ),
        ['input.days'],
      ],
      [
        'a weekday listed twice',
        [
          { weekday: 'monday', ...open },
          { weekday: 'monday', closed: true },
        ],
        ['input.days[1].weekday'],
      ],
      ['an unknown weekday', [{ weekday: 'funday', ...open }], ['input.days[0].weekday']],
      ['a weekday as a number', [{ weekday: 1, ...open }], ['input.days[0].weekday']],
      ['no weekday', [{ ...open }], ['input.days[0].weekday']],
      [
        'timeOpen after timeClose',
        [{ weekday: 'monday', timeOpen: '18:00', timeClose: '09:00' }],
        ['input.days[0].timeClose'],
      ],
      [
        'no times and not closed',
        [{ weekday: 'monday' }],
        ['input.days[0].timeOpen', 'input.days[0].timeClose'],
      ],
      [
        'closed with times',
        [{ weekday: 'monday', closed: true, ...open }],
        ['input.days[0].timeOpen', 'input.days[0].timeClose'],
      ],
      [
        'a time that is not HH:MM',
        [{ weekday: 'monday', timeOpen: '9am', timeClose: '18:00' }],
        ['input.days[0].timeOpen'],
      ],
      [
        'errors in two weekdays',
        [
          { weekday: 'monday', timeOpen: '10:00' },
          { weekday: 'friday', timeOpen: '17:00', timeClose: '16:59' },
        ],
        ['input.days[0].timeClose', 'input.days[1].timeClose'],
      ],
      ['an unknown field', [{ weekday: 'monday', ...open, lunchBreak: true }], ['input.days[0].lunchBreak']],
    ])('%s', async (_, days, paths) => {
      expectInputErrors(await setWeekly(days), ...paths);
    });

    it('and writes nothing, not even the valid weekdays of the same request', async () => {
      const response = await setWeekly([
        { weekday: 'saturday', timeOpen: '10:00', timeClose: '14:00' },
        { weekday: 'monday', timeOpen: '18:00', timeClose: '09:00' },
      ]);
      expectInputErrors(response, 'input.days[1].timeClose');
      const saturday = upcoming([6]);
      expect((await openDays(saturday, 1))[0]?.date).not.toBe(saturday);
    });
  });
});

describe('hours management', () => {
  it('is for staff only: a visitor gets FORBIDDEN (403), no credentials UNAUTHENTICATED (401)', async () => {
    const day = upcomingOpenDay(3);
    for (const as of ['visitor', 'other'] as const) {
      const week = await setWeekly([{ weekday: 'monday', closed: true }], as);
      expect(week.body.errors[0].extensions.code).toBe('FORBIDDEN');
      const date = await setDay({ date: day, closed: true }, as);
      expect(date.body.errors[0].extensions.code).toBe('FORBIDDEN');
      // The role is checked before the input: invalid input from a visitor is still FORBIDDEN.
      const invalid = await setDay({ date: day }, as);
      expect(invalid.body.errors[0].extensions.code).toBe('FORBIDDEN');
    }
    const forbidden = await museum.request('POST', '/graphql', {
      as: 'visitor',
      headers: { accept: 'application/graphql-response+json' },
      body: { query: SET_DAY, variables: { input: { date: day, closed: true } } },
    });
    expect(forbidden.status).toBe(403);
    const anonymous = await setDay({ date: day, closed: true }, 'anonymous');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Basic realm="Museum API", charset="UTF-8"');
    expect(anonymous.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    const anonymousWeek = await setWeekly([{ weekday: 'monday', closed: true }], 'anonymous');
    expect(anonymousWeek.status).toBe(401);

    expect((await openDays(day, 1))[0]?.date).toBe(day);
    expect((await openDays(upcoming([1]), 1))[0]?.date).toBe(upcoming([1]));
  });

  it('is GraphQL only: /museum-hours answers GET alone', async () => {
    for (const method of ['POST', 'PUT', 'PATCH']) {
      const response = await museum.rest(method, '/museum-hours', { as: 'staff', body: { closed: true } });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('GET');
    }
  });
});
