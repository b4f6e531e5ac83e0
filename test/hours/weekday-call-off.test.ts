// A weekday closed or its hours cut in the weekly schedule: the museum's own cancellation, as for one date
// (test/events/called-off.test.ts): refused with the counts unless confirmed, then every ticket of the
// weekday's dates from today on that the new hours no longer admit called off, refunded once and its buyer
// told, while a date with hours of its own and a past date keep theirs. Each test takes a weekday of its own.
// And no sale in flight slips past a change of hours: on PostgreSQL these fail without the lock it takes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../src/common/dates.ts';
import { statement } from '../../src/db/sql.ts';
import { boughtTicket, buyTicket, createdEvent, type PlacedOrder, placedOrder } from '../support/actions.ts';
import { addGateAccount, type Caller, upcoming } from '../support/museum.ts';
import { paidEvent, sendStripeEvent, sessionOf, usePaidMuseum } from '../support/payments.ts';
import { eventually } from '../support/receiver.ts';
import { type SmtpCatcher, smtpEnv, startSmtpCatcher } from '../support/smtp.ts';

let smtp: SmtpCatcher | undefined;
const catcher = () => smtp!;
beforeAll(async () => {
  smtp = await startSmtpCatcher();
});
afterAll(() => smtp?.close());
const { museum, stripe } = usePaidMuseum(() => smtpEnv(catcher()));
beforeAll(() => addGateAccount(museum));

const SET_WEEK = `mutation($input: SetWeeklyHoursInput!) {
  setWeeklyHours(input: $input) { weekday timeOpen timeClose closed }
}`;
const setWeek = (input: Record<string, unknown>, as: Caller = 'staff') =>
  museum.graphql(SET_WEEK, { input }, { as });

let mailbox = 0;
const newAddress = () => `weekday-${++mailbox}-${Date.now()}@example.com`;
const calledOffMailsTo = (address: string) =>
  catcher().received.filter(
    (mail) => mail.to.includes(address) && mail.parsed.subject?.endsWith('your visit was called off'),
  );

/** An order placed as a visitor and paid through its Checkout Session. */
async function paidOrder(email: string, lines: Record<string, unknown>[]): Promise<PlacedOrder> {
  const placed = await placedOrder(museum, { email, lines });
  const paid = await sendStripeEvent(museum, paidEvent(stripe, placed.orderId));
  expect(paid.body.outcome).toBe('confirmed');
  return placed;
}

const firstOpenDayFrom = async (date: string) =>
  (await museum.rest('GET', `/museum-hours?startDate=${date}&limit=1`)).body[0]?.date;
const statusOf = async (ticketId: string) =>
  (await museum.rest('GET', `/tickets/${ticketId}`, { as: 'staff' })).body.status;
const orderStatus = async (orderId: string) => (await museum.rest('GET', `/orders/${orderId}`)).body;
const refundsOf = (intent: string) => stripe.refunds.filter((refund) => refund.payment_intent === intent);

const MOVE_TO = statement<never, [ticketId: string, date: string]>(
  'test_weekday_move_ticket',
  'update ticket set ticket_date = $2::date where id = $1::uuid',
);
const VALID_ON = statement<{ valid: number }, [date: string]>(
  'test_weekday_valid_on',
  'select count(*)::int as valid from ticket where ticket_date = $1::date and cancelled_at is null',
);
const validOn = async (date: string) => (await museum.deps.db.sql.query(VALID_ON, [date]))[0]!.valid;

describe('a weekday closed in the weekly schedule', () => {
  const [first, second, ownHours] = [0, 1, 2].map((n) => upcoming([2], n)) as [string, string, string];

  it('is refused with each weekday’s count and dates, then with cancelTickets: true calls them off', async () => {
    const email = newAddress();
    const { eventId } = await createdEvent(museum, { dates: [first], price: 15, capacity: 5 });
    const placed = await paidOrder(email, [
      { ticketType: 'general', ticketDate: first, quantity: 2 },
      { ticketType: 'event', eventId, ticketDate: first, quantity: 1 },
      { ticketType: 'general', ticketDate: second, quantity: 1 },
    ]);
    const intent = sessionOf(stripe, placed.orderId).payment_intent!;
    // A date with hours of its own keeps them, and its tickets; a past Tuesday's ticket was a visit missed.
    const special = await museum.graphql(
      'mutation($input: SetDayHoursInput!) { setDayHours(input: $input) { date } }',
      { input: { date: ownHours, timeOpen: '10:00', timeClose: '14:00' } },
      { as: 'staff' },
    );
    expect(special.body.errors).toBeUndefined();
    const kept = await boughtTicket(museum, { ticketDate: ownHours, email: newAddress() });
    const past = await boughtTicket(museum, { ticketDate: second, email: newAddress() });
    const pastTuesday = addDays(first, -7);
    await museum.deps.db.sql.query(MOVE_TO, [past.ticketId, pastTuesday]);

    const statusBefore = new Map([
      [kept.ticketId, await statusOf(kept.ticketId)],
      [past.ticketId, await statusOf(past.ticketId)],
    ]);
    expect(statusBefore.get(kept.ticketId)).not.toBe('cancelled');

    const refused = await setWeek({ days: [{ weekday: 'tuesday', closed: true }] });
    const error = refused.body.errors[0];
    expect(error.extensions.code).toBe('CONFLICT');
    expect(error.message).toContain(
      `Closing tuesday would cancel 4 tickets sold for 2 dates, ${first} to ${second}`,
    );
    expect(error.message).toContain('send cancelTickets: true');
    expect(JSON.stringify(error.extensions)).toContain('days[0]');
    // Nothing changed: Tuesdays are open, the order confirmed.
    expect(await firstOpenDayFrom(first)).toBe(first);
    expect((await orderStatus(placed.orderId)).status).toBe('confirmed');

    const closed = await setWeek({
      days: [{ weekday: 'tuesday', closed: true }],
      cancelTickets: true,
      reason: 'Tuesdays are for restoration from now on.',
    });
    expect(closed.body.errors).toBeUndefined();
    expect(closed.body.data.setWeeklyHours[1]).toEqual({
      weekday: 'tuesday',
      timeOpen: null,
      timeClose: null,
      closed: true,
    });
    await eventually(async () => refundsOf(intent).length > 0, 15_000);
    expect(refundsOf(intent).map((refund) => refund.amount)).toEqual([placed.total * 100]);
    expect(await orderStatus(placed.orderId)).toMatchObject({
      status: 'refunded',
      refundedAmount: placed.total,
    });
    const [mail] = await eventually(
      async () => calledOffMailsTo(email).length > 0 && calledOffMailsTo(email),
      15_000,
    );
    expect(mail!.parsed.text).toContain('The reason: Tuesdays are for restoration from now on.');
    expect(calledOffMailsTo(email)).toHaveLength(1);
    expect(await validOn(first)).toBe(0);
    expect(await validOn(second)).toBe(0);
    for (const ticket of [kept, past])
      expect(await statusOf(ticket.ticketId)).toBe(statusBefore.get(ticket.ticketId));
    // Closed already, with nothing left to call off: no confirmation is needed.
    const again = await setWeek({ days: [{ weekday: 'tuesday', closed: true }] });
    expect(again.body.errors).toBeUndefined();
    expect(stripe.refunds.filter((refund) => refund.payment_intent === intent)).toHaveLength(1);
  });

  it('shorter hours call off only the timed tickets whose entry slot they no longer cover', async () => {
    const date = upcoming([3], 0);
    const slots = await museum.graphql(
      'mutation($input: SetDayEntrySlotsInput!) { setDayEntrySlots(input: $input) { date } }',
      { input: { date, minutes: 60, capacity: 10 } },
      { as: 'staff' },
    );
    expect(slots.body.errors).toBeUndefined();
    const email = newAddress();
    const placed = await paidOrder(email, [
      { ticketType: 'general', ticketDate: date, quantity: 1, entryTime: '10:00' },
      { ticketType: 'general', ticketDate: date, quantity: 1, entryTime: '16:00' },
    ]);
    const shorter = { days: [{ weekday: 'wednesday', timeOpen: '09:00', timeClose: '15:00' }] };
    const refused = await setWeek(shorter);
    expect(refused.body.errors[0].message).toContain(
      `These hours on wednesday would cancel 1 ticket sold for ${date}`,
    );
    const cut = await setWeek({ ...shorter, cancelTickets: true, reason: 'Wednesdays end early now.' });
    expect(cut.body.errors).toBeUndefined();
    const read = await orderStatus(placed.orderId);
    expect(
      read.tickets.map((ticket: { entryTime: string; status: string }) => [ticket.entryTime, ticket.status]),
    ).toEqual([
      ['10:00', 'valid'],
      ['16:00', 'cancelled'],
    ]);
    expect(read).toMatchObject({ status: 'confirmed', refundedAmount: placed.tickets[1]!.price });
    const [mail] = await eventually(
      async () => calledOffMailsTo(email).length > 0 && calledOffMailsTo(email),
      15_000,
    );
    expect(mail!.parsed.text).toContain('The reason: Wednesdays end early now.');
  });

  it('leaves no valid ticket for a weekday closed while its tickets are being sold', async () => {
    const date = upcoming([4], 0);
    const sales = Array.from({ length: 12 }, () =>
      buyTicket(museum, { ticketDate: date, email: newAddress() }),
    );
    const closing = setWeek({ days: [{ weekday: 'thursday', closed: true }], cancelTickets: true });
    const answers = await Promise.all(sales);
    expect((await closing).body.errors).toBeUndefined();
    // Each sale either came before the closing (and was called off by it: its answer may already say
    // `expired`) or after (and was refused); one whose order was called off before its Checkout Session was
    // made is told so (409).
    for (const answer of answers) {
      expect([201, 400, 409, 422], answer.text).toContain(answer.status);
      if (answer.status === 409) expect(answer.body.detail).toMatch(/museum called off|closed/);
    }
    expect(await validOn(date)).toBe(0);
  });

  it('refuses a reason without cancelTickets or over 500 characters, a cancelTickets that is not a boolean, and a visitor or gate', async () => {
    const closeFridays = { weekday: 'friday', closed: true };
    const orphan = await setWeek({ days: [closeFridays], reason: 'No confirmation.' });
    expect(orphan.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(orphan.body.errors[0].message).toContain('reason');
    const long = await setWeek({ days: [closeFridays], cancelTickets: true, reason: 'x'.repeat(501) });
    expect(long.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(JSON.stringify(long.body.errors[0])).toContain('reason');
    const notBoolean = await setWeek({ days: [closeFridays], cancelTickets: 'yes' });
    expect(JSON.stringify(notBoolean.body.errors[0])).toContain('cancelTickets');
    for (const who of ['visitor', 'gate'] as const)
      expect(
        (await setWeek({ days: [closeFridays], cancelTickets: true }, who)).body.errors[0].extensions.code,
      ).toBe('FORBIDDEN');
    const friday = upcoming([5], 0);
    expect(await firstOpenDayFrom(friday)).toBe(friday);
  });
});

describe('a date closed while its tickets are being sold', () => {
  it('leaves no valid ticket for it either', async () => {
    const date = upcoming([1], 3);
    const sales = Array.from({ length: 12 }, () =>
      buyTicket(museum, { ticketDate: date, email: newAddress() }),
    );
    const closing = museum.graphql(
      'mutation($input: SetDayHoursInput!) { setDayHours(input: $input) { closed } }',
      { input: { date, closed: true, cancelTickets: true } },
      { as: 'staff' },
    );
    await Promise.all(sales);
    expect((await closing).body).toEqual({ data: { setDayHours: { closed: true } } });
    expect(await validOn(date)).toBe(0);
  });
});
