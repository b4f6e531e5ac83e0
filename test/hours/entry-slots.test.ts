// Timed entry (issue 36): staff set slots for the museum and for one date; a day's slots with what each has
// left (GraphQL MuseumDay.entrySlots, REST GET /entry-slots); general tickets on a timed day need the start of
// a slot and never oversell it; a cancelled ticket frees its slot; the door admits a timed ticket only around
// its slot.
import { beforeAll, describe, expect, it } from 'vitest';
import { buyTicket } from '../support/actions.ts';
import { expectProblem, expectValidation, graphqlPaths } from '../support/assertions.ts';
import { setClock } from '../support/clock.ts';
import { execute } from '../support/db.ts';
import {
  addGateAccount,
  type Caller,
  upcoming,
  upcomingClosedDay,
  upcomingOpenDay,
} from '../support/museum.ts';
import { useMuseum } from '../support/use-museum.ts';
import { general, openToday, order } from '../support/visit.ts';

const clock = setClock();
const museum = useMuseum({ MUSEUM_DAILY_CAPACITY: '8' }, { clock });
beforeAll(() => addGateAccount(museum));

const SET_SLOTS = `mutation($input: SetEntrySlotsInput!) { setEntrySlots(input: $input) { minutes capacity } }`;
const SET_DAY_SLOTS = `mutation($input: SetDayEntrySlotsInput!) {
  setDayEntrySlots(input: $input) { date minutes capacity regular } }`;
const DAY_SLOTS = `query($startDate: Date) {
  museumHours(startDate: $startDate, limit: 1) { date timeOpen timeClose entrySlots { startTime endTime capacity remaining } } }`;

const setSlots = async (input: Record<string, unknown>, as: Caller = 'staff') =>
  museum.graphql(SET_SLOTS, { input }, { as });
const setDaySlots = async (input: Record<string, unknown>, as: Caller = 'staff') =>
  museum.graphql(SET_DAY_SLOTS, { input }, { as });
const slotsOn = async (date: string) => (await museum.rest('GET', `/entry-slots?date=${date}`)).body;
const buy = (body: Record<string, unknown>) => buyTicket(museum, body);

describe('setting timed entry', () => {
  it('staff switch it on for the museum: each open day has slots from opening time, the last starting before closing', async () => {
    const set = await setSlots({ minutes: 90, capacity: 3 });
    expect(set.body.data.setEntrySlots).toEqual({ minutes: 90, capacity: 3 });
    // A Friday: 10:00–16:00, four slots of 90 minutes.
    const friday = upcoming([5], 0);
    const day = await museum.graphql(DAY_SLOTS, { startDate: friday });
    expect(day.body.data.museumHours[0].entrySlots).toEqual([
      { startTime: '10:00', endTime: '11:30', capacity: 3, remaining: 3 },
      { startTime: '11:30', endTime: '13:00', capacity: 3, remaining: 3 },
      { startTime: '13:00', endTime: '14:30', capacity: 3, remaining: 3 },
      { startTime: '14:30', endTime: '16:00', capacity: 3, remaining: 3 },
    ]);
    expect(await slotsOn(friday)).toEqual(day.body.data.museumHours[0].entrySlots);
    // Monday to Thursday 09:00–18:00: six slots, the last cut short at closing.
    const monday = upcoming([1], 0);
    const slots = await slotsOn(monday);
    expect(slots.map((s: { startTime: string }) => s.startTime)).toEqual([
      '09:00',
      '10:30',
      '12:00',
      '13:30',
      '15:00',
      '16:30',
    ]);
    expect(slots.at(-1)).toMatchObject({ startTime: '16:30', endTime: '18:00' });
    expect(await slotsOn(upcomingClosedDay())).toEqual([]);
  });

  it("one date can have its own slots, none, or the museum's again; slots must fit the day", async () => {
    const date = upcoming([5], 6);
    const own = await setDaySlots({ date, minutes: 120, capacity: 10 });
    expect(own.body.data.setDayEntrySlots).toEqual({ date, minutes: 120, capacity: 10, regular: false });
    expect(
      (await slotsOn(date)).map((s: { startTime: string; endTime: string }) => `${s.startTime}-${s.endTime}`),
    ).toEqual(['10:00-12:00', '12:00-14:00', '14:00-16:00']);
    const none = await setDaySlots({ date, minutes: null });
    expect(none.body.data.setDayEntrySlots).toMatchObject({ minutes: null, capacity: null, regular: false });
    expect(await slotsOn(date)).toEqual([]);
    const regular = await setDaySlots({ date, regular: true });
    expect(regular.body.data.setDayEntrySlots).toEqual({ date, minutes: 90, capacity: 3, regular: true });
    expect(await slotsOn(date)).toHaveLength(4);

    // Friday is open 6 hours (360 minutes): a slot of 240 fits, but not on a closed day.
    const closed = await setDaySlots({ date: upcomingClosedDay(2), minutes: 60, capacity: 5 });
    expect(graphqlPaths(closed.body)).toEqual(['input.date']);
    const special = upcoming([5], 8);
    await museum.graphql(
      'mutation($input: SetDayHoursInput!) { setDayHours(input: $input) { date } }',
      { input: { date: special, timeOpen: '10:00', timeClose: '11:00' } },
      { as: 'staff' },
    );
    const tooLong = await setDaySlots({ date: special, minutes: 90, capacity: 5 });
    expect(graphqlPaths(tooLong.body)).toEqual(['input.minutes']);
    expect(tooLong.body.errors[0].message).toContain('10:00–11:00');
    // Nothing was written: the museum's slots still apply to that day.
    expect(await slotsOn(special)).toEqual([
      { startTime: '10:00', endTime: '11:00', capacity: 3, remaining: 3 },
    ]);
  });

  it.each([
    ['minutes under 15', { minutes: 10, capacity: 5 }, 'input.minutes'],
    ['minutes over 240', { minutes: 241, capacity: 5 }, 'input.minutes'],
    ['minutes without capacity', { minutes: 30 }, 'input.capacity'],
    ['capacity without minutes', { minutes: null, capacity: 5 }, 'input.capacity'],
    ['a negative capacity', { minutes: 30, capacity: -1 }, 'input.capacity'],
    ['no minutes at all', {}, 'input.minutes'],
  ])('refuses %s naming the field, and changes nothing', async (_, input, field) => {
    expect(graphqlPaths((await setSlots(input)).body)).toEqual([field]);
    expect(
      (await museum.graphql('{ entrySlotSettings { minutes capacity } }')).body.data.entrySlotSettings,
    ).toEqual({
      minutes: 90,
      capacity: 3,
    });
  });

  it('a date given neither minutes nor regular is refused, naming minutes', async () => {
    const refused = await setDaySlots({ date: upcomingOpenDay(2) });
    expect(graphqlPaths(refused.body)).toEqual(['input.minutes']);
  });

  it('only staff set slots (403 for a visitor and a gate, 401 without credentials); every account reads them', async () => {
    for (const as of ['visitor', 'gate'] as const) {
      expect((await setSlots({ minutes: null }, as)).body.errors[0].extensions.code).toBe('FORBIDDEN');
      expect(
        (await setDaySlots({ date: upcomingOpenDay(1), regular: true }, as)).body.errors[0].extensions.code,
      ).toBe('FORBIDDEN');
    }
    expectProblem(await museum.rest('GET', '/entry-slots', { as: 'anonymous' }), 401, 'Unauthorized');
    expect(
      (await museum.rest('GET', `/entry-slots?date=${upcomingOpenDay(0)}`, { as: 'staff' })).status,
    ).toBe(200);
    expectValidation(await museum.rest('GET', '/entry-slots?date=2030-02-30'), 'date');
  });
});

describe('buying timed tickets', () => {
  it('a general ticket on a timed day needs the start of a slot; a full slot is a 409 naming entryTime; the daily capacity applies on top', async () => {
    const friday = upcoming([5], 1);
    expectValidation(await buy({ ticketDate: friday }), 'entryTime');
    const notAStart = await buy({ ticketDate: friday, entryTime: '10:15' });
    expectValidation(notAStart, 'entryTime');
    expect(notAStart.body.detail).toContain('10:00, 11:30, 13:00, 14:30');
    expectValidation(await buy({ ticketDate: friday, entryTime: '25:00' }), 'entryTime');

    const sold = [];
    for (let i = 0; i < 3; i++) sold.push(await buy({ ticketDate: friday, entryTime: '11:30' }));
    expect(sold.map((r) => r.status)).toEqual([201, 201, 201]);
    expect(sold[0]!.body).toMatchObject({ entryTime: '11:30', category: 'adult', price: 20 });
    const full = await buy({ ticketDate: friday, entryTime: '11:30' });
    expect(full.status, full.text).toBe(409);
    expect(full.body.errors).toEqual([{ path: 'entryTime', message: '11:30 is sold out' }]);
    expect((await slotsOn(friday))[1]).toMatchObject({ startTime: '11:30', remaining: 0 });

    // The day sells 8 in all: 3 at 11:30, 3 at 10:00, then 2 at 13:00 and the day is full.
    for (const entryTime of ['10:00', '10:00', '10:00', '13:00', '13:00'])
      expect((await buy({ ticketDate: friday, entryTime })).status).toBe(201);
    const dayFull = await buy({ ticketDate: friday, entryTime: '14:30' });
    expect(dayFull.status).toBe(409);
    expect(dayFull.body.detail).toContain('capacity 8');
    expect((await slotsOn(friday))[3]).toMatchObject({ startTime: '14:30', remaining: 3 });

    // A cancelled ticket frees its slot and its day's seat.
    const cancelled = await museum.rest('DELETE', `/tickets/${sold[0]!.body.ticketId}`);
    expect(cancelled.status).toBe(204);
    expect((await slotsOn(friday))[1]).toMatchObject({ startTime: '11:30', remaining: 1 });
    expect((await buy({ ticketDate: friday, entryTime: '11:30' })).status).toBe(201);
  });

  it('an entry time is refused on a day without timed entry and for an event ticket, naming entryTime', async () => {
    const date = upcoming([2], 3);
    await setDaySlots({ date, minutes: null });
    expectValidation(await buy({ ticketDate: date, entryTime: '10:00' }), 'entryTime');
    const untimed = await buy({ ticketDate: date });
    expect(untimed.status, untimed.text).toBe(201);
    expect(untimed.body.entryTime).toBeUndefined();
    const eventTicket = await museum.rest('POST', '/tickets', {
      body: {
        ticketType: 'event',
        eventId: '3be6453c-03eb-4357-ae5a-984a0e574a54',
        ticketDate: date,
        email: 'todd@example.com',
        entryTime: '10:00',
      },
    });
    expectValidation(eventTicket, 'entryTime');
  });

  it('an order line names its entry time; a full slot refuses the whole order naming lines[i].entryTime', async () => {
    const friday = upcoming([5], 2);
    const family = await museum.rest('POST', '/orders', {
      body: order(
        { ...general(friday, 2), entryTime: '13:00' },
        { ...general(friday), entryTime: '13:00', category: 'child' },
      ),
    });
    expect(family.status, family.text).toBe(201);
    expect(family.body.tickets.map((t: { entryTime: string }) => t.entryTime)).toEqual([
      '13:00',
      '13:00',
      '13:00',
    ]);
    expect(family.body.total).toBe(48);
    const tooMany = await museum.rest('POST', '/orders', {
      body: order({ ...general(friday), entryTime: '14:30' }, { ...general(friday), entryTime: '13:00' }),
    });
    expect(tooMany.status).toBe(409);
    expect(tooMany.body.errors[0].path).toBe('lines[1].entryTime');
    expect((await slotsOn(friday))[3]).toMatchObject({ startTime: '14:30', remaining: 3 });
    const missing = await museum.rest('POST', '/orders', { body: order(general(friday)) });
    expectValidation(missing, 'lines[0].entryTime');
    expectValidation(
      await museum.rest('POST', '/orders', { body: order({ ...general(friday), entryTime: '13:05' }) }),
      'lines[0].entryTime',
    );
    // Cancelling the order gives its three seats of 13:00 back.
    expect((await museum.rest('DELETE', `/orders/${family.body.orderId}`)).status).toBe(204);
    expect((await slotsOn(friday))[2]).toMatchObject({ startTime: '13:00', remaining: 3 });

    // The same over GraphQL: placeOrder and buyMuseumTickets name entryTime, and Ticket answers it.
    const placed = await museum.graphql(
      `mutation($input: PlaceOrderInput!) { placeOrder(input: $input) { total currency tickets { entryTime category price } } }`,
      { input: order({ ...general(friday), entryTime: '13:00', category: 'reduced' }) },
    );
    expect(placed.body.data.placeOrder).toEqual({
      total: 14,
      currency: 'EUR',
      tickets: [{ entryTime: '13:00', category: 'reduced', price: 14 }],
    });
    const single = await museum.graphql(
      `mutation($input: BuyMuseumTicketsInput!) { buyMuseumTickets(input: $input) { ticketId entryTime } }`,
      { input: { ticketType: 'general', ticketDate: friday, email: 'todd@example.com', entryTime: '13:15' } },
    );
    expect(graphqlPaths(single.body)).toEqual(['input.entryTime']);
  });
});

describe('the door knows the time', () => {
  it(`admits a timed ticket from 15 minutes before its slot until 15 after; refuses too early or too late and changes nothing`, async () => {
    const today = await openToday(museum);
    await setDaySlots({ date: today, minutes: 60, capacity: 20 });
    clock.set('08:00');
    const codes: string[] = [];
    for (let i = 0; i < 4; i++) {
      const bought = await buy({ ticketDate: today, entryTime: '10:00' });
      expect(bought.status, bought.text).toBe(201);
      codes.push(bought.body.confirmationCode);
    }
    // Slots changed after the sale: each ticket keeps the slot it was sold for (10:00–11:00).
    await setDaySlots({ date: today, minutes: 30, capacity: 20 });
    const scan = (code: string) =>
      museum.rest('POST', '/check-ins', { as: 'gate', body: { confirmationCode: code } });

    clock.set('09:44');
    const early = await scan(codes[0]!);
    expect(early.status).toBe(409);
    expect(early.body.detail).toBe('too early: its entry slot is 10:00–11:00, admitted from 09:45');
    clock.set('09:45');
    expect((await scan(codes[0]!)).status).toBe(201);
    clock.set('11:15');
    expect((await scan(codes[1]!)).status).toBe(201);
    clock.set('11:16');
    const late = await scan(codes[2]!);
    expect(late.status).toBe(409);
    expect(late.body.detail).toBe('too late: its entry slot is 10:00–11:00, admitted until 11:15');
    const ticket = await museum.graphql(
      `mutation($code: String!) { checkIn(input: { confirmationCode: $code }) { status } }`,
      { code: codes[2] },
      { as: 'gate' },
    );
    expect(ticket.body.errors[0].extensions.code).toBe('CONFLICT');
    // Nothing changed: the refused tickets are still valid.
    const [row] = await execute<{ used: number }[]>(
      museum.deps.db,
      'select count(*)::int as used from ticket where confirmation_code in ($1, $2) and checked_in_at is not null',
      [codes[2], codes[3]],
    );
    expect(row!.used).toBe(0);

    // Today's 10:00 slot (of 30 minutes now) cannot be sold once its end and the grace passed: as late as the
    // door would admit.
    clock.set('10:45');
    expect((await buy({ ticketDate: today, entryTime: '10:00' })).status).toBe(201);
    clock.set('10:46');
    const over = await buy({ ticketDate: today, entryTime: '10:00' });
    expectValidation(over, 'entryTime');
    expect(over.body.detail).toBe('entryTime: the entry slot 10:00–10:30 is over');

    // An untimed ticket (a day without slots) admits all day.
    await setDaySlots({ date: today, minutes: null });
    const untimed = await buy({ ticketDate: today });
    clock.set('23:50');
    expect((await scan(untimed.body.confirmationCode)).status).toBe(201);
    clock.set('12:00');

    // Switched off for the museum, no day has slots: general tickets need no entry time.
    expect((await setSlots({ minutes: null })).body.data.setEntrySlots).toEqual({
      minutes: null,
      capacity: null,
    });
    expect(await slotsOn(upcoming([5], 5))).toEqual([]);
    expect((await buy({ ticketDate: upcoming([5], 5) })).status).toBe(201);
    const metrics = await museum.request('GET', '/metrics');
    expect(metrics.text).toMatch(/museum_check_ins_total\{outcome="too_early"\} [1-9]/);
    expect(metrics.text).toMatch(/museum_check_ins_total\{outcome="too_late"\} [1-9]/);
    expect(metrics.text).toMatch(/museum_tickets_sold_total\{ticket_type="general",category="adult"\} [1-9]/);
  });
});

describe('a door with no grace (MUSEUM_ENTRY_GRACE_MINUTES=0)', () => {
  const strictClock = setClock('08:00');
  const strict = useMuseum({ MUSEUM_ENTRY_GRACE_MINUTES: '0' }, { clock: strictClock });
  beforeAll(() => addGateAccount(strict));

  it("admits a timed ticket from its slot's start to its end, not a minute outside", async () => {
    const today = await openToday(strict);
    await strict.graphql(
      SET_DAY_SLOTS,
      { input: { date: today, minutes: 60, capacity: 5 } },
      { as: 'staff' },
    );
    const codes: string[] = [];
    for (let i = 0; i < 2; i++) {
      const bought = await strict.rest('POST', '/tickets', {
        body: { ticketType: 'general', ticketDate: today, email: 'todd@example.com', entryTime: '10:00' },
      });
      expect(bought.status, bought.text).toBe(201);
      codes.push(bought.body.confirmationCode);
    }
    const scan = (code: string) =>
      strict.rest('POST', '/check-ins', { as: 'gate', body: { confirmationCode: code } });
    strictClock.set('09:59');
    expect((await scan(codes[0]!)).body.detail).toBe(
      'too early: its entry slot is 10:00–11:00, admitted from 10:00',
    );
    strictClock.set('10:00');
    expect((await scan(codes[0]!)).status).toBe(201);
    strictClock.set('11:01');
    expect((await scan(codes[1]!)).body.detail).toBe(
      'too late: its entry slot is 10:00–11:00, admitted until 11:00',
    );
  });
});
