// Paying for a visit (issue 37): a visitor's order holds its seats while it is paid through Stripe Checkout,
// Stripe's signed events confirm or expire it once each in any order, the service expires holds itself, a
// payment after the hold gets its seats back or its money, and a cancellation refunds once. Over REST and
// GraphQL (Stripe's events over its webhook route only), against a Stripe look-alike the service's own `stripe`
// SDK calls.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { placedOrder } from '../support/actions.ts';
import { addGateAccount, eventBody, upcoming } from '../support/museum.ts';
import {
  endHold,
  orderRow,
  paidEvent,
  refundRows,
  STRIPE_WEBHOOK_SECRET,
  sendStripeEvent,
  sessionOf,
  stripeEnv,
  usePaidMuseum,
} from '../support/payments.ts';
import { eventually } from '../support/receiver.ts';
import { openToday } from '../support/visit.ts';

/** The log lines of this file's museum, as pino writes them. */
const logged: string[] = [];
const logger = createLogger('info', { write: (line: string) => void logged.push(line) });
const { museum, stripe } = usePaidMuseum({ MUSEUM_DAILY_CAPACITY: '3' }, { logger });

const ORDER_FIELDS = `orderId status total currency expiresAt checkoutUrl refundedAmount
  tickets { ticketId status confirmationCode price }`;

let dayIndex = 0;
/** A day of its own for each test: the daily capacity (3) is counted per day. */
const nextDay = () => upcoming([2, 3, 4], dayIndex++);

const general = (ticketDate: string, quantity = 1, category?: string) => ({
  ticketType: 'general',
  ticketDate,
  quantity,
  ...(category ? { category } : {}),
});

const placePending = (day: string, quantity = 2) =>
  placedOrder(museum, { email: 'payer@example.com', lines: [general(day, quantity)] });

const remaining = async (day: string) => {
  const hours = await museum.rest('GET', `/museum-hours?startDate=${day}&limit=1`);
  return hours.body[0]?.remaining as number;
};

describe('start-up', () => {
  it('refuses MUSEUM_PAYMENTS=stripe without each Stripe setting, naming it, and an hold outside 1–1440', () => {
    const full = stripeEnv('http://127.0.0.1:1');
    for (const name of [
      'STRIPE_SECRET_KEY',
      'STRIPE_WEBHOOK_SECRET',
      'STRIPE_SUCCESS_URL',
      'STRIPE_CANCEL_URL',
    ]) {
      const { [name]: _left, ...env } = full;
      expect(() => loadConfig(env)).toThrow(`${name} must be set with MUSEUM_PAYMENTS=stripe`);
    }
    expect(() => loadConfig({ ...full, ORDER_HOLD_MINUTES: '0' })).toThrow(
      'ORDER_HOLD_MINUTES must be 1 to 1440',
    );
    expect(() => loadConfig({ ...full, MUSEUM_PAYMENTS: 'paypal' })).toThrow(
      'MUSEUM_PAYMENTS must be none or stripe',
    );
    expect(loadConfig(full).payments).toMatchObject({
      mode: 'stripe',
      holdMinutes: 30,
      apiBase: 'http://127.0.0.1:1',
    });
    // No secret is ever repeated in the error.
    expect(() => loadConfig({ ...full, STRIPE_SECRET_KEY: 'pk_live_wrong' })).toThrow(/^(?!.*pk_live_wrong)/);
  });
});

describe("a visitor's order waits for payment", () => {
  it('POST /orders answers pending with its total, hold and Checkout URL; Stripe has the session as documented', async () => {
    const day = nextDay();
    const before = Date.now();
    const order = await placePending(day);
    expect(order).toMatchObject({ status: 'pending', total: 40, currency: 'EUR', refundedAmount: 0 });
    expect(order.tickets.map((t) => t.status)).toEqual(['pending', 'pending']);
    const holdEnds = Date.parse(order.expiresAt!);
    expect(holdEnds).toBeGreaterThanOrEqual(before + 30 * 60_000 - 2000);
    expect(holdEnds).toBeLessThanOrEqual(Date.now() + 30 * 60_000 + 2000);
    const session = sessionOf(stripe, order.orderId);
    expect(order.checkoutUrl).toBe(session.url);
    expect(session).toMatchObject({
      amount_total: 4000,
      currency: 'eur',
      mode: 'payment',
      success_url: `https://shop.example/orders/${order.orderId}/paid`,
      cancel_url: `https://shop.example/orders/${order.orderId}`,
    });
    // Stripe's shortest session is 30 minutes from its making: a 30-minute hold's session ends a minute later,
    // and the service expires both when the hold ends.
    expect(session.expires_at).toBeGreaterThanOrEqual(Math.floor(holdEnds / 1000));
    expect(session.expires_at).toBeLessThanOrEqual(Math.floor(holdEnds / 1000) + 65);
    const create = stripe.calls.find(
      (c) => c.path === '/v1/checkout/sessions' && c.body.client_reference_id === order.orderId,
    );
    expect(create?.body.line_items).toEqual([
      {
        quantity: '2',
        price_data: {
          currency: 'eur',
          unit_amount: '2000',
          product_data: { name: `General admission, ${day}, Adult` },
        },
      },
    ]);
    // Held seats count against the capacity: 3 a day, 2 held.
    expect(await remaining(day)).toBe(1);
    const more = await museum.rest('POST', '/orders', {
      body: { email: 'late@example.com', lines: [general(day, 2)] },
    });
    expect(more.status).toBe(409);
  });

  it('a pending ticket has no QR code yet (409) and is not admitted at the door (409 not paid)', async () => {
    const today = await openToday(museum);
    await addGateAccount(museum);
    const placed = await museum.rest('POST', '/orders', {
      body: { email: 'payer@example.com', lines: [general(today, 1)] },
    });
    expect(placed.status, placed.text).toBe(201);
    const [ticket] = placed.body.tickets;
    const qr = await museum.rest('GET', `/tickets/${ticket.ticketId}/qr`);
    expect(qr.status).toBe(409);
    expect(qr.body.detail).toMatch(/^not paid/);
    const scan = await museum.rest('POST', '/check-ins', {
      as: 'gate',
      body: { confirmationCode: ticket.confirmationCode },
    });
    expect(scan.status).toBe(409);
    expect(scan.body.detail).toMatch(/^not paid/);
    const read = await museum.rest('GET', `/tickets/${ticket.ticketId}`);
    expect(read.body.status).toBe('pending');
    // Paid: the code is served and the door admits it.
    const paid = await sendStripeEvent(museum, paidEvent(stripe, placed.body.orderId));
    expect(paid.body).toEqual({ received: true, outcome: 'confirmed' });
    expect((await museum.rest('GET', `/tickets/${ticket.ticketId}/qr`)).status).toBe(200);
    const admitted = await museum.rest('POST', '/check-ins', {
      as: 'gate',
      body: { confirmationCode: ticket.confirmationCode },
    });
    expect(admitted.status, admitted.text).toBe(201);
  });

  it('POST /tickets is a one-ticket order: the reference fields plus orderId, status, checkoutUrl and expiresAt', async () => {
    const day = nextDay();
    const bought = await museum.rest('POST', '/tickets', {
      body: { ticketType: 'general', ticketDate: day, email: 'one@example.com' },
    });
    expect(bought.status, bought.text).toBe(201);
    expect(Object.keys(bought.body).sort()).toEqual(
      [
        'message',
        'ticketId',
        'ticketType',
        'ticketDate',
        'confirmationCode',
        'orderId',
        'status',
        'checkoutUrl',
        'expiresAt',
      ].sort(),
    );
    expect(bought.body.status).toBe('pending');
    expect(bought.body.checkoutUrl).toBe(sessionOf(stripe, bought.body.orderId).url);
    const order = await museum.rest('GET', `/orders/${bought.body.orderId}`);
    expect(order.body.tickets.map((t: { ticketId: string }) => t.ticketId)).toEqual([bought.body.ticketId]);
    // Its errors name its own fields, as a ticket bought alone does.
    const closed = await museum.rest('POST', '/tickets', {
      body: { ticketType: 'general', ticketDate: day, email: 'one@example.com', category: 'pensioner' },
    });
    expect(closed.status).toBe(400);
    expect(closed.body.errors[0].path).toBe('category');
  });

  it('staff sell at the desk: their orders and tickets are confirmed at once, with no Checkout', async () => {
    const day = nextDay();
    const order = await museum.rest('POST', '/orders', {
      as: 'staff',
      body: { email: 'desk@example.com', lines: [general(day, 1)] },
    });
    expect(order.status).toBe(201);
    expect(order.body.status).toBe('confirmed');
    expect(order.body.checkoutUrl).toBeUndefined();
    expect(order.body.tickets[0].status).toBe('valid');
    const ticket = await museum.rest('POST', '/tickets', {
      as: 'staff',
      body: { ticketType: 'general', ticketDate: day, email: 'desk@example.com' },
    });
    expect(Object.keys(ticket.body).sort()).toEqual(
      ['message', 'ticketId', 'ticketType', 'ticketDate', 'confirmationCode'].sort(),
    );
    expect(stripe.calls.some((c) => c.body.client_reference_id === order.body.orderId)).toBe(false);
  });

  it('anonymous callers may not order (401); GraphQL placeOrder answers the same pending order', async () => {
    const day = nextDay();
    const anonymous = await museum.request('POST', '/orders', {
      body: { email: 'a@example.com', lines: [general(day)] },
    });
    expect(anonymous.status).toBe(401);
    const placed = await museum.graphql(
      `mutation($input: PlaceOrderInput!) { placeOrder(input: $input) { ${ORDER_FIELDS} } }`,
      { input: { email: 'gql@example.com', lines: [general(day, 1, 'child')] } },
    );
    expect(placed.body.errors).toBeUndefined();
    const order = placed.body.data.placeOrder;
    expect(order).toMatchObject({ status: 'pending', total: 8, currency: 'EUR' });
    expect(order.checkoutUrl).toBe(sessionOf(stripe, order.orderId).url);
    const bought = await museum.graphql(
      'mutation($input: BuyMuseumTicketsInput!) { buyMuseumTickets(input: $input) { ticketId orderId status checkoutUrl expiresAt } }',
      { input: { ticketType: 'general', ticketDate: day, email: 'gql@example.com' } },
    );
    expect(bought.body.data.buyMuseumTickets).toMatchObject({ status: 'pending' });
    expect(bought.body.data.buyMuseumTickets.checkoutUrl).toMatch(/^https:\/\/checkout\.stripe\.com\//);
  });

  it('an Idempotency-Key replays the pending order with its one Checkout Session', async () => {
    const day = nextDay();
    const body = { email: 'again@example.com', lines: [general(day, 1)] };
    const headers = { 'idempotency-key': `pay-${day}` };
    const first = await museum.rest('POST', '/orders', { body, headers });
    const second = await museum.rest('POST', '/orders', { body, headers });
    expect(second.status).toBe(201);
    expect(second.body.orderId).toBe(first.body.orderId);
    expect(second.body.checkoutUrl).toBe(first.body.checkoutUrl);
    expect(stripe.calls.filter((c) => c.body.client_reference_id === first.body.orderId)).toHaveLength(1);
  });

  it('when Stripe cannot make the session: 503, and no seat stays held', async () => {
    const day = nextDay();
    stripe.failNext('/v1/checkout/sessions', 3, 500);
    const refused = await museum.rest('POST', '/orders', {
      body: { email: 'x@example.com', lines: [general(day, 3)] },
    });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('content-type')).toMatch(/problem\+json/);
    expect(await remaining(day)).toBe(3);
    const retried = await museum.rest('POST', '/orders', {
      body: { email: 'x@example.com', lines: [general(day, 3)] },
    });
    expect(retried.status).toBe(201);
  });
});

describe("Stripe's webhook", () => {
  it('confirms a paid order once: a replay, a bad or stale signature, change nothing', async () => {
    const order = await placePending(nextDay());
    const event = paidEvent(stripe, order.orderId);
    const forged = await sendStripeEvent(museum, event, { secret: 'whsec_someone_else' });
    expect(forged.status).toBe(400);
    expect(forged.body.errors[0].path).toBe('stripe-signature');
    const stale = await sendStripeEvent(museum, event, { timestamp: Math.floor(Date.now() / 1000) - 600 });
    expect(stale.status).toBe(400);
    const unsigned = await museum.request('POST', '/payments/stripe', { body: event });
    expect(unsigned.status).toBe(400);
    expect(unsigned.body.detail).toMatch(/stripe-signature: is required/);
    expect((await orderRow(museum, order.orderId))?.status).toBe('pending');

    const applied = await sendStripeEvent(museum, event);
    expect(applied.status).toBe(200);
    expect(applied.body).toEqual({ received: true, outcome: 'confirmed' });
    const replay = await sendStripeEvent(museum, event);
    expect(replay.body.outcome).toBe('replayed');
    const read = await museum.rest('GET', `/orders/${order.orderId}`);
    expect(read.body).toMatchObject({ status: 'confirmed', total: 40, refundedAmount: 0 });
    expect(read.body.checkoutUrl).toBeUndefined();
    expect(read.body.tickets.map((t: { status: string }) => t.status)).toEqual(['valid', 'valid']);
    expect(await orderRow(museum, order.orderId)).toMatchObject({ paidAmount: 4000, heldTickets: 2 });
  });

  it('takes events in any order: expired after paid changes nothing; a second paid event changes nothing', async () => {
    const order = await placePending(nextDay());
    const paid = paidEvent(stripe, order.orderId);
    const expired = stripe.event('checkout.session.expired', sessionOf(stripe, order.orderId));
    expect((await sendStripeEvent(museum, paid)).body.outcome).toBe('confirmed');
    expect((await sendStripeEvent(museum, expired)).body.outcome).toBe('no_change');
    const again = stripe.event('checkout.session.async_payment_succeeded', sessionOf(stripe, order.orderId));
    expect((await sendStripeEvent(museum, again)).body.outcome).toBe('no_change');
    expect((await orderRow(museum, order.orderId))?.status).toBe('confirmed');
  });

  it('waits for an asynchronous payment: it confirms on success, and gives the seats back on failure', async () => {
    const day = nextDay();
    const first = await placePending(day, 1);
    const second = await placePending(day, 1);
    for (const order of [first, second]) {
      const session = stripe.pay(sessionOf(stripe, order.orderId).id, { paymentStatus: 'unpaid' });
      const completed = await sendStripeEvent(museum, stripe.event('checkout.session.completed', session));
      expect(completed.body.outcome).toBe('awaiting_payment');
    }
    const success = stripe.event('checkout.session.async_payment_succeeded', {
      ...sessionOf(stripe, first.orderId),
      payment_status: 'paid',
    });
    expect((await sendStripeEvent(museum, success)).body.outcome).toBe('confirmed');
    const failure = stripe.event('checkout.session.async_payment_failed', sessionOf(stripe, second.orderId));
    expect((await sendStripeEvent(museum, failure)).body.outcome).toBe('expired');
    expect((await museum.rest('GET', `/orders/${second.orderId}`)).body.status).toBe('expired');
    expect(await remaining(day)).toBe(2);
  });

  it('answers 200 for a session of no order here, and for event types it does not act on', async () => {
    const stranger = stripe.event('checkout.session.completed', {
      ...sessionOf(stripe, (await placePending(nextDay(), 1)).orderId),
      id: 'cs_test_elsewhere',
      payment_status: 'paid',
      client_reference_id: '00000000-0000-4000-8000-000000000000',
    });
    const unknown = await sendStripeEvent(museum, stranger);
    expect(unknown.status).toBe(200);
    expect(unknown.body.outcome).toBe('unknown_session');
    const other = await sendStripeEvent(museum, {
      ...stranger,
      id: 'evt_other',
      type: 'customer.created',
      data: { object: { id: 'cus_1', object: 'customer' } },
    });
    expect(other.body.outcome).toBe('ignored');
  });

  it('is a route, not GraphQL: the mutation is gone, and POST /payments/stripe still confirms', async () => {
    const order = await placePending(nextDay(), 1);
    const event = paidEvent(stripe, order.orderId);
    const { signedEventRequest } = await import('../support/stripe-server.ts');
    const { body, headers } = signedEventRequest(event, STRIPE_WEBHOOK_SECRET);
    const mutation = await museum.graphql(
      'mutation($payload: String!, $signature: String) { receiveStripeEvent(payload: $payload, signature: $signature) { received outcome } }',
      { payload: body, signature: headers['stripe-signature'] },
      { as: 'anonymous' },
    );
    expect(mutation.body.data).toBeUndefined();
    expect(mutation.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(mutation.body.errors[0].message).toMatch(
      /Cannot query field "receiveStripeEvent" on type "Mutation"/,
    );
    expect((await orderRow(museum, order.orderId))?.status).toBe('pending');
    const received = await museum.request('POST', '/payments/stripe', { rawBody: body, headers });
    expect(received.body).toEqual({ received: true, outcome: 'confirmed' });
  });
});

describe('holds that run out', () => {
  it('the service expires a pending order once its hold ends: its seats come back and its session is expired', async () => {
    const day = nextDay();
    const order = await placePending(day, 3);
    expect(await remaining(day)).toBe(0);
    await endHold(museum, order.orderId);
    museum.deps.payments!.wake();
    await eventually(async () => (await orderRow(museum, order.orderId))?.status === 'expired');
    expect(await remaining(day)).toBe(3);
    await eventually(async () => sessionOf(stripe, order.orderId).status === 'expired');
    const read = await museum.rest('GET', `/orders/${order.orderId}`);
    expect(read.body.status).toBe('expired');
    expect(read.body.tickets.map((t: { status: string }) => t.status)).toEqual([
      'cancelled',
      'cancelled',
      'cancelled',
    ]);
    // Stripe's own expiry arriving afterwards changes nothing more.
    const late = stripe.event('checkout.session.expired', sessionOf(stripe, order.orderId));
    expect((await sendStripeEvent(museum, late)).body.outcome).toBe('no_change');
    expect(await remaining(day)).toBe(3);
  });

  it('a payment after the hold, its seats still free: they are taken again and the order is confirmed', async () => {
    const day = nextDay();
    const order = await placePending(day, 2);
    // Stripe does not take the expiry (the visitor is paying right then): the session stays open.
    stripe.failNext(`/v1/checkout/sessions/${sessionOf(stripe, order.orderId).id}/expire`, 1, 400);
    await endHold(museum, order.orderId);
    museum.deps.payments!.wake();
    await eventually(async () => (await orderRow(museum, order.orderId))?.status === 'expired');
    const paid = await sendStripeEvent(museum, paidEvent(stripe, order.orderId));
    expect(paid.body.outcome).toBe('confirmed_late');
    expect(await orderRow(museum, order.orderId)).toMatchObject({ status: 'confirmed', heldTickets: 2 });
    expect(await remaining(day)).toBe(1);
    expect(await refundRows(museum, order.orderId)).toEqual([]);
  });

  it('a payment after the hold, its seats sold meanwhile: refunded in full, once, never oversold', async () => {
    const day = nextDay();
    const order = await placePending(day, 2);
    stripe.failNext(`/v1/checkout/sessions/${sessionOf(stripe, order.orderId).id}/expire`, 1, 400);
    await endHold(museum, order.orderId);
    museum.deps.payments!.wake();
    await eventually(async () => (await orderRow(museum, order.orderId))?.status === 'expired');
    const desk = await museum.rest('POST', '/orders', {
      as: 'staff',
      body: { email: 'd@example.com', lines: [general(day, 2)] },
    });
    expect(desk.status).toBe(201);
    const event = paidEvent(stripe, order.orderId);
    const paid = await sendStripeEvent(museum, event);
    expect(paid.body.outcome).toBe('refunded');
    expect((await sendStripeEvent(museum, event)).body.outcome).toBe('replayed');
    const refund = await eventually(async () =>
      stripe.refunds.find((r) => r.payment_intent === sessionOf(stripe, order.orderId).payment_intent),
    );
    expect(refund.amount).toBe(4000);
    await eventually(async () => (await refundRows(museum, order.orderId))[0]?.status === 'succeeded');
    expect(await refundRows(museum, order.orderId)).toMatchObject([{ amount: 4000, reason: 'late_payment' }]);
    const read = await museum.rest('GET', `/orders/${order.orderId}`);
    expect(read.body).toMatchObject({ status: 'refunded', refundedAmount: 40 });
    expect(await remaining(day)).toBe(1);
    expect(stripe.refunds.filter((r) => r.payment_intent === refund.payment_intent)).toHaveLength(1);
  });
});

describe('holds under every capacity', () => {
  it("an event date's and an entry slot's seats are held too; a late payment takes them again through their counters", async () => {
    const day = nextDay();
    const created = await museum.rest('POST', '/special-events', {
      as: 'staff',
      body: eventBody({ dates: [day], capacity: 2, price: 12 }),
    });
    expect(created.status).toBe(201);
    const eventId = created.body.eventId as string;
    const eventLine = { ticketType: 'event', eventId, ticketDate: day, quantity: 2 };
    const held = await museum.rest('POST', '/orders', {
      body: { email: 'e@example.com', lines: [eventLine] },
    });
    expect(held.status, held.text).toBe(201);
    expect(held.body).toMatchObject({ status: 'pending', total: 24 });
    const full = await museum.rest('POST', '/orders', {
      body: { email: 'f@example.com', lines: [{ ...eventLine, quantity: 1 }] },
    });
    expect(full.status).toBe(409);

    const slots = await museum.graphql(
      'mutation($input: SetDayEntrySlotsInput!) { setDayEntrySlots(input: $input) { minutes } }',
      { input: { date: day, minutes: 60, capacity: 1 } },
      { as: 'staff' },
    );
    expect(slots.body.errors).toBeUndefined();
    const timed = { ...general(day, 1), entryTime: '10:00' };
    const slotHeld = await museum.rest('POST', '/orders', {
      body: { email: 's@example.com', lines: [timed] },
    });
    expect(slotHeld.status, slotHeld.text).toBe(201);
    const slotFull = await museum.rest('POST', '/orders', {
      body: { email: 's@example.com', lines: [timed] },
    });
    expect(slotFull.status).toBe(409);
    expect(slotFull.body.errors[0].path).toBe('lines[0].entryTime');

    // Both holds run out while Stripe keeps their sessions open; both are paid afterwards, their seats free.
    for (const order of [held.body, slotHeld.body]) {
      stripe.failNext(`/v1/checkout/sessions/${sessionOf(stripe, order.orderId).id}/expire`, 1, 400);
      await endHold(museum, order.orderId);
    }
    museum.deps.payments!.wake();
    await eventually(async () => (await orderRow(museum, slotHeld.body.orderId))?.status === 'expired');
    await eventually(async () => (await orderRow(museum, held.body.orderId))?.status === 'expired');
    for (const order of [held.body, slotHeld.body])
      expect((await sendStripeEvent(museum, paidEvent(stripe, order.orderId))).body.outcome).toBe(
        'confirmed_late',
      );
    // The seats are taken again: the event and the slot are full once more.
    expect(
      (
        await museum.rest('POST', '/orders', {
          body: { email: 'f@example.com', lines: [{ ...eventLine, quantity: 1 }] },
        })
      ).status,
    ).toBe(409);
    expect(
      (await museum.rest('POST', '/orders', { body: { email: 's@example.com', lines: [timed] } })).status,
    ).toBe(409);
    const availability = await museum.rest('GET', `/special-events/${eventId}/availability`);
    expect(JSON.stringify(availability.body)).toContain('"remaining":0');
  });
});

describe('refunds', () => {
  it('cancelling a paid ticket refunds its price, cancelling its order the rest; each once', async () => {
    const day = nextDay();
    const placed = await museum.rest('POST', '/orders', {
      body: { email: 'r@example.com', lines: [general(day, 1), general(day, 1, 'child')] },
    });
    await sendStripeEvent(museum, paidEvent(stripe, placed.body.orderId));
    const intent = sessionOf(stripe, placed.body.orderId).payment_intent;
    const [adult, child] = placed.body.tickets;
    expect((await museum.rest('DELETE', `/tickets/${child.ticketId}`)).status).toBe(204);
    expect((await museum.rest('DELETE', `/tickets/${child.ticketId}`)).status).toBe(204);
    await eventually(async () => stripe.refunds.some((r) => r.payment_intent === intent));
    let read = await museum.rest('GET', `/orders/${placed.body.orderId}`);
    expect(read.body).toMatchObject({ status: 'confirmed', total: 28, refundedAmount: 8 });
    const cancelled = await museum.graphql('mutation($orderId: UUID!) { cancelOrder(orderId: $orderId) }', {
      orderId: placed.body.orderId,
    });
    expect(cancelled.body.data.cancelOrder).toBe(true);
    await eventually(async () => stripe.refunds.filter((r) => r.payment_intent === intent).length === 2);
    await eventually(async () =>
      (await refundRows(museum, placed.body.orderId)).every((r) => r.status === 'succeeded'),
    );
    read = await museum.rest('GET', `/orders/${placed.body.orderId}`);
    expect(read.body).toMatchObject({ status: 'refunded', refundedAmount: 28 });
    // The sales report: both sold, both given back, both refunded; a held order that was never paid is no sale.
    await placePending(day, 1);
    const report = await museum.rest('GET', `/reports/sales?startDate=${day}&endDate=${day}`, {
      as: 'staff',
    });
    expect(report.body.rows).toEqual([
      expect.objectContaining({ category: 'adult', sold: 1, cancelled: 1, refunded: 1, revenue: 0 }),
      expect.objectContaining({ category: 'child', sold: 1, cancelled: 1, refunded: 1, revenue: 0 }),
    ]);
    const csv = await museum.rest('GET', `/reports/sales?startDate=${day}&endDate=${day}`, {
      as: 'staff',
      headers: { accept: 'text/csv' },
    });
    expect(csv.text.split('\r\n')[0]).toBe(
      'date,ticketType,eventId,eventName,category,sold,cancelled,refunded,checkedIn,revenue,currency',
    );
    expect(
      stripe.refunds
        .filter((r) => r.payment_intent === intent)
        .map((r) => r.amount)
        .sort((a, b) => a - b),
    ).toEqual([800, 2000]);
    expect(adult.status).toBe('pending');
  });

  it('a pending ticket goes only with its order; cancelling a pending order gives its seats back and expires its session, refunding nothing', async () => {
    const day = nextDay();
    const order = await placePending(day, 2);
    const alone = await museum.rest('DELETE', `/tickets/${order.tickets[0]!.ticketId}`);
    expect(alone.status).toBe(409);
    expect(alone.body.detail).toMatch(/waits for its order's payment/);
    expect((await museum.rest('DELETE', `/orders/${order.orderId}`)).status).toBe(204);
    expect((await museum.rest('GET', `/orders/${order.orderId}`)).body.status).toBe('cancelled');
    expect(await remaining(day)).toBe(3);
    await eventually(async () => sessionOf(stripe, order.orderId).status === 'expired');
    expect(await refundRows(museum, order.orderId)).toEqual([]);
  });

  it('a refund Stripe does not answer is tried again with the same idempotency key, and made once', async () => {
    const placed = await placePending(nextDay(), 1);
    await sendStripeEvent(museum, paidEvent(stripe, placed.orderId));
    const intent = sessionOf(stripe, placed.orderId).payment_intent;
    stripe.failNext('/v1/refunds', 3, 500);
    expect((await museum.rest('DELETE', `/orders/${placed.orderId}`)).status).toBe(204);
    await eventually(async () => (await refundRows(museum, placed.orderId))[0]?.lastError);
    // The worker waits before the next attempt; here it is woken instead of waiting 10 s.
    await museum.deps.db.sql.query(
      (await import('../../src/db/sql.ts')).statement(
        'test_refund_due',
        "update refund set next_attempt_at = now() where status = 'pending'",
      ),
      [],
    );
    museum.deps.payments!.wake();
    await eventually(async () => (await refundRows(museum, placed.orderId))[0]?.status === 'succeeded');
    expect(stripe.refunds.filter((r) => r.payment_intent === intent)).toHaveLength(1);
    const keys = stripe.calls
      .filter((c) => c.path === '/v1/refunds' && c.body.payment_intent === intent)
      .map((c) => c.idempotencyKey);
    expect(new Set(keys).size).toBe(1);
  });
});

describe('what it leaves behind', () => {
  it('counts Stripe events, orders by status and refunds in /metrics, and logs no e-mail address or secret', async () => {
    const metrics = await museum.request('GET', '/metrics');
    expect(metrics.text).toMatch(
      /museum_stripe_events_total\{type="checkout.session.completed",outcome="confirmed"\} [1-9]/,
    );
    expect(metrics.text).toMatch(
      /museum_stripe_events_total\{type="unverified",outcome="bad_signature"\} [1-9]/,
    );
    expect(metrics.text).toMatch(/museum_orders_total\{status="pending"\} [1-9]/);
    expect(metrics.text).toMatch(/museum_orders_total\{status="expired"\} [1-9]/);
    expect(metrics.text).toMatch(/museum_refunds_total\{outcome="succeeded"\} [1-9]/);
    expect(metrics.text).toMatch(/museum_refunds_total\{outcome="retry"\} [1-9]/);
    const log = logged.join('\n');
    expect(log).toContain('Stripe event');
    expect(log).toContain('refund made');
    expect(log).not.toMatch(/@example\.com/);
    expect(log).not.toContain(STRIPE_WEBHOOK_SECRET);
    expect(log).not.toContain('sk_test_museum');
  });
});
