// The museum's own cancellations (issue 55): an event deleted, dates dropped from it, a day closed. Against the
// Stripe look-alike (the service's own `stripe` SDK calls it) and a real SMTP server, each in this process:
// every paid ticket refunded once with one idempotency key, a pending order's session expired or replaced,
// one mail per order naming the reason, the seats back, and what buyers, the door and staff then read.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statement } from '../../src/db/sql.ts';
import { createdEvent, type PlacedOrder, placedOrder } from '../support/actions.ts';
import { addGateAccount, type Caller, upcoming, upcomingOpenDay } from '../support/museum.ts';
import { orderRow, paidEvent, sendStripeEvent, sessionOf, usePaidMuseum } from '../support/payments.ts';
import { eventually, type Receiver, startReceiver } from '../support/receiver.ts';
import { type SmtpCatcher, smtpEnv, startSmtpCatcher } from '../support/smtp.ts';

let smtp: SmtpCatcher | undefined;
let hooks: Receiver | undefined;
const catcher = () => smtp!;
beforeAll(async () => {
  smtp = await startSmtpCatcher();
  hooks = await startReceiver();
});
afterAll(async () => {
  await smtp?.close();
  await hooks?.close();
});
const { museum, stripe } = usePaidMuseum(() => ({
  ...smtpEnv(catcher()),
  MUSEUM_WEBHOOK_ALLOW_PRIVATE: 'true',
  // Longer than Stripe's shortest session (31 min): a repriced order's new session ends when its hold does,
  // as its first did, and must not be taken for a retry of it.
  ORDER_HOLD_MINUTES: '60',
}));
beforeAll(() => addGateAccount(museum));

let mailbox = 0;
const newAddress = () => `called-off-${++mailbox}-${Date.now()}@example.com`;
const mailsTo = (address: string) => catcher().received.filter((mail) => mail.to.includes(address));
const calledOffMailsTo = (address: string) =>
  mailsTo(address).filter((mail) => mail.parsed.subject?.endsWith('your visit was called off'));
/** The first "called off" mail to `address`, once it has come. */
const firstCalledOffMailTo = async (address: string) =>
  (
    await eventually(async () => calledOffMailsTo(address).length > 0 && calledOffMailsTo(address), 15_000)
  )[0]!;
const refundMailsTo = (address: string) =>
  mailsTo(address).filter((mail) => mail.parsed.subject?.includes('your refund of'));

type Line = {
  ticketType: 'general' | 'event';
  ticketDate: string;
  eventId?: string;
  quantity: number;
  entryTime?: string;
};

/** An order placed as `as`, paid through its Checkout Session when `pay` (a pending one otherwise). */
async function order(email: string, lines: Line[], as: Caller = 'visitor', pay = true): Promise<PlacedOrder> {
  const placed = await placedOrder(museum, { email, lines }, as);
  if (pay && placed.status === 'pending') {
    const paid = await sendStripeEvent(museum, paidEvent(stripe, placed.orderId));
    expect(paid.body.outcome).toBe('confirmed');
  }
  return placed;
}

const refundsOf = (intent: string) => stripe.refunds.filter((refund) => refund.payment_intent === intent);
const refundCalls = () => stripe.calls.filter((call) => call.path === '/v1/refunds');
const pause = () => new Promise((resolve) => setTimeout(resolve, 300));

const PAST_TICKET = statement<never, [ticketId: string]>(
  'test_called_off_past_ticket',
  'update ticket set ticket_date = current_date - 1 where id = $1::uuid',
);

const SOLD = statement<{ sold: number }, [scope: string, date: string]>(
  'test_called_off_sold',
  'select sold from ticket_sales where scope = $1 and date = $2::date',
);
const sold = async (scope: string, date: string) =>
  (await museum.deps.db.sql.query(SOLD, [scope, date]))[0]?.sold ?? 0;

describe('an event deleted with a reason', () => {
  const reason = 'Our speaker is ill; we are sorry.';
  const [d1, d2, stays] = [upcoming([2], 30), upcoming([3], 30), upcoming([4], 30)];
  const emails = {
    a: newAddress(),
    b: newAddress(),
    c: newAddress(),
    pending: newAddress(),
    staff: newAddress(),
  };
  let eventId: string;
  let orders: Record<keyof typeof emails, PlacedOrder>;
  let deliveriesBefore: number;

  beforeAll(async () => {
    await museum.rest('POST', '/webhook-subscriptions', { as: 'staff', body: { url: hooks!.url } });
    ({ eventId } = await createdEvent(museum, { dates: [d1, d2], price: 30, capacity: 10 }));
    const on = (ticketDate: string, quantity = 1): Line => ({
      ticketType: 'event',
      eventId,
      ticketDate,
      quantity,
    });
    orders = {
      a: await order(emails.a, [on(d1, 2)]),
      b: await order(emails.b, [on(d2), { ticketType: 'general', ticketDate: stays, quantity: 1 }], 'other'),
      c: await order(emails.c, [on(d1)]),
      pending: await order(emails.pending, [on(d1)], 'other', false),
      staff: await order(emails.staff, [on(d2)], 'staff'),
    };
    expect(orders.pending.status).toBe('pending');
    expect(orders.staff.status).toBe('confirmed');
    expect(await sold(eventId, d1)).toBe(4);
    deliveriesBefore = hooks!.received.length;
    const deleted = await museum.rest(
      'DELETE',
      `/special-events/${eventId}?reason=${encodeURIComponent(reason)}`,
      {
        as: 'staff',
      },
    );
    expect(deleted.status).toBe(204);
  });

  it('refunds exactly the paid tickets, each order once, with one idempotency key per refund', async () => {
    const intents = {
      a: sessionOf(stripe, orders.a.orderId).payment_intent!,
      b: sessionOf(stripe, orders.b.orderId).payment_intent!,
      c: sessionOf(stripe, orders.c.orderId).payment_intent!,
    };
    await eventually(async () => stripe.refunds.length >= 3, 15_000);
    expect(refundsOf(intents.a).map((refund) => refund.amount)).toEqual([6000]);
    expect(refundsOf(intents.b).map((refund) => refund.amount)).toEqual([3000]);
    expect(refundsOf(intents.c).map((refund) => refund.amount)).toEqual([3000]);
    const keys = refundCalls().map((call) => call.idempotencyKey);
    expect(new Set(keys).size).toBe(3);
    expect(keys.every(Boolean)).toBe(true);

    expect(await museum.rest('GET', `/orders/${orders.a.orderId}`)).toMatchObject({
      body: { status: 'refunded', refundedAmount: 60 },
    });
    // The general ticket of B's order stays: the order is confirmed, less what was refunded.
    const b = await museum.rest('GET', `/orders/${orders.b.orderId}`, { as: 'other' });
    expect(b.body).toMatchObject({ status: 'confirmed', refundedAmount: 30 });
    expect(b.body.tickets.map((ticket: { status: string }) => ticket.status)).toEqual(['cancelled', 'valid']);
    // The staff's order was not paid through Stripe: cancelled, nothing refunded.
    expect((await museum.rest('GET', `/orders/${orders.staff.orderId}`, { as: 'staff' })).body).toMatchObject(
      {
        status: 'cancelled',
        refundedAmount: 0,
      },
    );
  });

  it('expires the pending order and its Checkout Session', async () => {
    const session = sessionOf(stripe, orders.pending.orderId);
    await eventually(async () => session.status === 'expired');
    expect(await orderRow(museum, orders.pending.orderId)).toMatchObject({
      status: 'expired',
      heldTickets: 0,
    });
  });

  it('mails every buyer once per order, naming the reason and what is refunded', async () => {
    for (const address of Object.values(emails))
      await eventually(async () => calledOffMailsTo(address).length > 0, 15_000);
    for (const address of Object.values(emails)) {
      const [mail, ...more] = calledOffMailsTo(address);
      expect(more).toEqual([]);
      expect(mail!.parsed.text).toContain(`The reason: ${reason}`);
      expect(mail!.parsed.html).toContain('Our speaker is ill; we are sorry.');
    }
    expect(calledOffMailsTo(emails.a)[0]!.parsed.text).toContain('We refund €60.00 to the card that paid');
    expect(calledOffMailsTo(emails.b)[0]!.parsed.text).toContain('We refund €30.00');
    expect(calledOffMailsTo(emails.pending)[0]!.parsed.text).toContain('Nothing was charged for them.');
    expect(calledOffMailsTo(emails.staff)[0]!.parsed.text).toContain('nothing to refund by card');
    // Once Stripe made each refund, its buyer is told, once.
    for (const address of [emails.a, emails.b, emails.c])
      await eventually(async () => refundMailsTo(address).length > 0, 15_000);
    expect(refundMailsTo(emails.a)).toHaveLength(1);
  });

  it('gives the seats back', async () => {
    expect(await sold(eventId, d1)).toBe(0);
    expect(await sold(eventId, d2)).toBe(0);
  });

  it('shows each ticket cancelled by the museum, with the reason, to its buyer, in "my tickets" and at the door', async () => {
    const [ticket] = orders.a.tickets;
    const read = await museum.rest('GET', `/tickets/${ticket!.ticketId}`);
    expect(read.body).toMatchObject({
      status: 'cancelled',
      cancelledBy: 'museum',
      cancellationReason: reason,
    });
    const mine = await museum.rest('GET', `/tickets?startDate=${d1}&endDate=${d2}&limit=30`);
    expect(mine.body.find((t: { ticketId: string }) => t.ticketId === ticket!.ticketId)).toMatchObject({
      cancelledBy: 'museum',
      cancellationReason: reason,
    });
    const graph = await museum.graphql(
      'query($id: UUID!) { ticket(ticketId: $id) { status cancelledBy cancellationReason } }',
      {
        id: ticket!.ticketId,
      },
    );
    expect(graph.body.data.ticket).toEqual({
      status: 'cancelled',
      cancelledBy: 'museum',
      cancellationReason: reason,
    });
    const door = await museum.rest('POST', '/check-ins', {
      as: 'gate',
      body: { confirmationCode: ticket!.confirmationCode },
    });
    expect(door.status).toBe(409);
    expect(door.body.detail).toBe(`cancelled by the museum: ${reason}; the ticket admits no one`);
  });

  it('counts them in the sales report and the metrics, and tells webhook subscribers the event is cancelled', async () => {
    const report = await museum.rest('GET', `/reports/sales?startDate=${d1}&endDate=${d2}`, { as: 'staff' });
    const rows = report.body.rows.filter((row: { eventId?: string }) => row.eventId === eventId);
    const total = (key: string) =>
      rows.reduce((sum: number, row: Record<string, number>) => sum + row[key]!, 0);
    // The pending order's ticket was never sold: the report leaves it out.
    expect([total('sold'), total('cancelled'), total('refunded'), total('revenue')]).toEqual([5, 5, 4, 0]);
    const metrics = await museum.request('GET', '/metrics');
    expect(metrics.text).toMatch(/museum_refunds_total\{outcome="succeeded"\} [3-9]/);
    expect(metrics.text).toMatch(/museum_mails_total\{kind="cancellation",outcome="sent"\} [5-9]/);
    const [message] = await eventually(async () => {
      const after = hooks!.received.slice(deliveriesBefore).map((delivery) => JSON.parse(delivery.body));
      const mine = after.filter((body) => body.eventId === eventId);
      return mine.length > 0 && mine;
    });
    expect(message).toMatchObject({ eventId, cancelled: true, cancellationReason: reason, dates: [d1, d2] });
  });

  it('answers 404 to a second delete, and sends no refund or mail more', async () => {
    const again = await museum.rest('DELETE', `/special-events/${eventId}?reason=again`, { as: 'staff' });
    expect(again.status).toBe(404);
    const calls = refundCalls().length;
    const mails = catcher().received.length;
    await pause();
    expect(refundCalls()).toHaveLength(calls);
    expect(catcher().received).toHaveLength(mails);
    for (const address of Object.values(emails)) expect(calledOffMailsTo(address)).toHaveLength(1);
  });
});

describe('a date dropped from an event', () => {
  const [kept, dropped] = [upcoming([2], 40), upcoming([3], 40)];

  it('refunds only that date’s tickets: a partial refund of the order, which stays confirmed', async () => {
    const email = newAddress();
    const { eventId } = await createdEvent(museum, { dates: [kept, dropped], price: 25 });
    const placed = await order(email, [
      { ticketType: 'event', eventId, ticketDate: kept, quantity: 1 },
      { ticketType: 'event', eventId, ticketDate: dropped, quantity: 2 },
    ]);
    const intent = sessionOf(stripe, placed.orderId).payment_intent!;
    const changed = await museum.rest('PATCH', `/special-events/${eventId}`, {
      as: 'staff',
      body: { dates: [kept], cancellationReason: 'The hall is flooded that day.' },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.dates).toEqual([kept]);
    await eventually(async () => refundsOf(intent).length > 0, 15_000);
    expect(refundsOf(intent).map((refund) => refund.amount)).toEqual([5000]);
    const read = await museum.rest('GET', `/orders/${placed.orderId}`);
    expect(read.body).toMatchObject({ status: 'confirmed', refundedAmount: 50 });
    expect(
      read.body.tickets.map((ticket: { ticketDate: string; status: string }) => [
        ticket.ticketDate,
        ticket.status,
      ]),
    ).toEqual([
      [kept, 'valid'],
      [dropped, 'cancelled'],
      [dropped, 'cancelled'],
    ]);
    const mail = await firstCalledOffMailTo(email);
    expect(mail.parsed.text).toContain('The reason: The hall is flooded that day.');
    expect(mail.parsed.text).toContain('We refund €50.00');
    // A change that drops no date calls nothing off.
    const renamed = await museum.rest('PATCH', `/special-events/${eventId}`, {
      as: 'staff',
      body: { name: 'Renamed' },
    });
    expect(renamed.status).toBe(200);
    await pause();
    expect(refundsOf(intent)).toHaveLength(1);
    expect(calledOffMailsTo(email)).toHaveLength(1);
  });

  it('refunds in full a payment through the session of a pending order the museum called off whole', async () => {
    const email = newAddress();
    const { eventId } = await createdEvent(museum, { dates: [kept, dropped], price: 18 });
    const placed = await order(
      email,
      [{ ticketType: 'event', eventId, ticketDate: dropped, quantity: 2 }],
      'visitor',
      false,
    );
    const session = sessionOf(stripe, placed.orderId);
    // Stripe does not take the session's expiry: its buyer pays it all the same.
    stripe.failNext(`/v1/checkout/sessions/${session.id}/expire`, 1);
    const changed = await museum.rest('PATCH', `/special-events/${eventId}`, {
      as: 'staff',
      body: { dates: [kept] },
    });
    expect(changed.status).toBe(200);
    await eventually(async () => (await orderRow(museum, placed.orderId))?.status === 'expired');
    const late = await sendStripeEvent(
      museum,
      stripe.event('checkout.session.completed', stripe.pay(session.id)),
    );
    expect(late.body.outcome).toBe('refunded');
    await eventually(async () => refundsOf(session.payment_intent!).length > 0, 15_000);
    expect(refundsOf(session.payment_intent!).map((refund) => refund.amount)).toEqual([3600]);
    expect(await orderRow(museum, placed.orderId)).toMatchObject({ status: 'refunded', heldTickets: 0 });
    // No reason given: the tickets and the mail say none.
    const [ticket] = (await museum.rest('GET', `/orders/${placed.orderId}`)).body.tickets;
    expect(ticket).toMatchObject({ status: 'cancelled', cancelledBy: 'museum' });
    expect(ticket.cancellationReason).toBeUndefined();
  });

  it('leaves a past date’s tickets not used as they were: missed visits, not refunded', async () => {
    const email = newAddress();
    const { eventId } = await createdEvent(museum, { dates: [kept, dropped], price: 10 });
    const placed = await order(email, [
      { ticketType: 'event', eventId, ticketDate: kept, quantity: 1 },
      { ticketType: 'event', eventId, ticketDate: dropped, quantity: 1 },
    ]);
    // The first ticket's day has gone by (moved back in the database, as the calendar would).
    await museum.deps.db.sql.query(PAST_TICKET, [placed.tickets[0]!.ticketId]);
    const deleted = await museum.rest('DELETE', `/special-events/${eventId}?reason=%20%20`, { as: 'staff' });
    expect(deleted.status).toBe(204);
    const intent = sessionOf(stripe, placed.orderId).payment_intent!;
    await eventually(async () => refundsOf(intent).length > 0, 15_000);
    expect(refundsOf(intent).map((refund) => refund.amount)).toEqual([1000]);
    const read = await museum.rest('GET', `/orders/${placed.orderId}`);
    expect(read.body.tickets.map((ticket: { status: string }) => ticket.status)).toEqual([
      'valid',
      'cancelled',
    ]);
    // A blank reason is no reason.
    expect(read.body.tickets[1].cancellationReason).toBeUndefined();
    const mail = await firstCalledOffMailTo(email);
    expect(mail.parsed.text).toContain('The museum gave no further reason.');
  });

  it('replaces a pending order’s Checkout Session with one for what is left; a payment through the old one is refunded in full', async () => {
    const email = newAddress();
    const { eventId } = await createdEvent(museum, { dates: [kept, dropped], price: 20 });
    const placed = await order(
      email,
      [
        { ticketType: 'event', eventId, ticketDate: kept, quantity: 1 },
        { ticketType: 'event', eventId, ticketDate: dropped, quantity: 1 },
      ],
      'visitor',
      false,
    );
    const old = sessionOf(stripe, placed.orderId);
    expect(old.amount_total).toBe(4000);
    // Stripe does not take the old session's expiry at once: the buyer still pays it, on the old page.
    stripe.failNext(`/v1/checkout/sessions/${old.id}/expire`, 1);
    const changed = await museum.rest('PATCH', `/special-events/${eventId}`, {
      as: 'staff',
      body: { dates: [kept], cancellationReason: 'Sold to a private party.' },
    });
    expect(changed.status).toBe(200);
    const renewed = await eventually(async () => {
      const sessions = [...stripe.sessions.values()].filter((s) => s.client_reference_id === placed.orderId);
      return sessions.find((s) => s.id !== old.id);
    }, 15_000);
    expect(renewed.amount_total).toBe(2000);
    const read = await eventually(async () => {
      const current = await museum.rest('GET', `/orders/${placed.orderId}`);
      return current.body.checkoutUrl === renewed.url && current;
    });
    // The order still lists what was ordered (its total too); the called-off ticket reads cancelled.
    expect(read.body).toMatchObject({ status: 'pending', total: 40 });
    expect(read.body.tickets.map((ticket: { status: string }) => ticket.status)).toEqual([
      'pending',
      'cancelled',
    ]);
    const mail = await firstCalledOffMailTo(email);
    expect(mail.parsed.text).toContain('Nothing was charged for them.');
    expect(mail.parsed.text).toContain('The rest of your order is still reserved for you until');

    // The old page is paid all the same: that payment goes back in full, and the order still waits.
    const stale = await sendStripeEvent(
      museum,
      stripe.event('checkout.session.completed', stripe.pay(old.id)),
    );
    expect(stale.body.outcome).toBe('refunded');
    await eventually(async () => refundsOf(old.payment_intent!).length > 0, 15_000);
    expect(refundsOf(old.payment_intent!).map((refund) => refund.amount)).toEqual([4000]);
    expect(await orderRow(museum, placed.orderId)).toMatchObject({ status: 'pending', heldTickets: 1 });
    // The new one confirms it, for the new total.
    const paid = await sendStripeEvent(
      museum,
      stripe.event('checkout.session.completed', stripe.pay(renewed.id)),
    );
    expect(paid.body.outcome).toBe('confirmed');
    expect(await orderRow(museum, placed.orderId)).toMatchObject({ status: 'confirmed', paidAmount: 2000 });
  });
});

describe('a day closed', () => {
  const day = upcoming([2], 50);
  const CLOSE = `mutation($input: SetDayHoursInput!) { setDayHours(input: $input) { date closed } }`;
  const close = (input: Record<string, unknown>, as: Caller = 'staff') =>
    museum.graphql(CLOSE, { input: { date: day, closed: true, ...input } }, { as });

  it('is refused with the count of the tickets it would cancel, then with cancelTickets: true calls every one off', async () => {
    const email = newAddress();
    const { eventId } = await createdEvent(museum, { dates: [day], price: 15, capacity: 5 });
    const placed = await order(email, [
      { ticketType: 'general', ticketDate: day, quantity: 2 },
      { ticketType: 'event', eventId, ticketDate: day, quantity: 1 },
    ]);
    const intent = sessionOf(stripe, placed.orderId).payment_intent!;
    expect(await sold(eventId, day)).toBe(1);

    const refused = await close({});
    expect(refused.body.errors[0]).toMatchObject({
      message: expect.stringContaining(`Closing ${day} would cancel 3 tickets`),
      extensions: { code: 'CONFLICT' },
    });
    expect(JSON.stringify(refused.body.errors[0].extensions)).toContain('date');
    // Nothing changed: the day is open and the tickets valid.
    const hours = await museum.rest('GET', `/museum-hours?startDate=${day}&limit=1`);
    expect(hours.body[0].date).toBe(day);
    expect((await museum.rest('GET', `/orders/${placed.orderId}`)).body.status).toBe('confirmed');

    const closed = await close({ cancelTickets: true, reason: 'A storm is coming.' });
    expect(closed.body).toEqual({ data: { setDayHours: { date: day, closed: true } } });
    await eventually(async () => refundsOf(intent).length > 0, 15_000);
    const total = placed.tickets.reduce((sum, ticket) => sum + ticket.price, 0);
    expect(refundsOf(intent).map((refund) => refund.amount)).toEqual([total * 100]);
    expect((await museum.rest('GET', `/orders/${placed.orderId}`)).body).toMatchObject({
      status: 'refunded',
      refundedAmount: total,
    });
    const mail = await firstCalledOffMailTo(email);
    expect(mail.parsed.text).toContain('The reason: A storm is coming.');
    expect(calledOffMailsTo(email)).toHaveLength(1);
    expect(await sold(eventId, day)).toBe(0);
    // Closed already, with nothing left to call off: no confirmation is needed.
    expect((await close({})).body.data.setDayHours.closed).toBe(true);
  });

  it('shorter hours call off only the timed tickets whose entry slot they no longer cover', async () => {
    const date = upcoming([3], 50);
    const slots = await museum.graphql(
      'mutation($input: SetDayEntrySlotsInput!) { setDayEntrySlots(input: $input) { date } }',
      { input: { date, minutes: 60, capacity: 10 } },
      { as: 'staff' },
    );
    expect(slots.body.errors).toBeUndefined();
    const email = newAddress();
    const placed = await order(email, [
      { ticketType: 'general', ticketDate: date, quantity: 1, entryTime: '10:00' },
      { ticketType: 'general', ticketDate: date, quantity: 1, entryTime: '16:00' },
    ]);
    const hours = { date, timeOpen: '09:00', timeClose: '15:00' };
    const refused = await museum.graphql(CLOSE, { input: hours }, { as: 'staff' });
    expect(refused.body.errors[0].message).toContain(
      `These hours on ${date} would cancel 1 ticket sold for it`,
    );
    const cut = await museum.graphql(
      CLOSE,
      { input: { ...hours, cancelTickets: true, reason: 'A private reception from 15:00.' } },
      { as: 'staff' },
    );
    expect(cut.body).toEqual({ data: { setDayHours: { date, closed: false } } });
    const read = await museum.rest('GET', `/orders/${placed.orderId}`);
    expect(
      read.body.tickets.map((ticket: { entryTime: string; status: string; cancelledBy?: string }) => [
        ticket.entryTime,
        ticket.status,
        ticket.cancelledBy,
      ]),
    ).toEqual([
      ['10:00', 'valid', undefined],
      ['16:00', 'cancelled', 'museum'],
    ]);
    expect(read.body).toMatchObject({ status: 'confirmed', refundedAmount: placed.tickets[1]!.price });
    const mail = await firstCalledOffMailTo(email);
    expect(mail.parsed.text).toContain('The reason: A private reception from 15:00.');
  });

  it('refuses a date in the past (400), a reason over 500 characters, a cancelTickets that is not a boolean, and a visitor or gate (403)', async () => {
    const past = await museum.graphql(
      CLOSE,
      { input: { date: '2020-01-06', closed: true } },
      { as: 'staff' },
    );
    expect(past.body.errors[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT' } });
    expect(past.body.errors[0].message).toContain('input.date');
    const long = await close({ cancelTickets: true, reason: 'x'.repeat(501) });
    expect(long.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(JSON.stringify(long.body.errors[0])).toContain('reason');
    const notBoolean = await close({ cancelTickets: 'yes' });
    expect(notBoolean.status).toBe(200);
    expect(JSON.stringify(notBoolean.body.errors[0])).toContain('cancelTickets');
    for (const who of ['visitor', 'gate'] as const)
      expect((await close({ cancelTickets: true }, who)).body.errors[0].extensions.code).toBe('FORBIDDEN');
  });

  it('REST refuses a reason over 500 characters naming it, and a visitor, before anything is deleted', async () => {
    const { eventId } = await createdEvent(museum, { dates: [upcomingOpenDay(60)] });
    const long = await museum.rest('DELETE', `/special-events/${eventId}?reason=${'x'.repeat(501)}`, {
      as: 'staff',
    });
    expect(long.status).toBe(400);
    expect(long.headers.get('content-type')).toContain('application/problem+json');
    expect(JSON.stringify(long.body)).toContain('reason');
    expect((await museum.rest('DELETE', `/special-events/${eventId}`, { as: 'visitor' })).status).toBe(403);
    expect((await museum.rest('GET', `/special-events/${eventId}`)).status).toBe(200);
    const tooLong = await museum.rest('PATCH', `/special-events/${eventId}`, {
      as: 'staff',
      body: { dates: [upcomingOpenDay(61)], cancellationReason: 'y'.repeat(501) },
    });
    expect(tooLong.status).toBe(400);
    expect(JSON.stringify(tooLong.body)).toContain('cancellationReason');
  });
});
