// A refund survives a kill -9 between the cancellation and Stripe's answer (issue 37): the new process sends
// it again with the same idempotency key once the dead one's lease runs out, and Stripe makes it once.
import { expect, it } from 'vitest';
import { basic, ownDatabase, STAFF, upcomingOpenDay } from '../support/museum.ts';
import { STRIPE_SECRET_KEY, signedEventRequestFor, stripeEnv } from '../support/payments.ts';
import { eventually } from '../support/receiver.ts';
import { spawnServer } from '../support/server.ts';
import { startStripeServer } from '../support/stripe-server.ts';

const json = { 'content-type': 'application/json' };
const staff = { authorization: basic(STAFF.name, STAFF.password), ...json };
const buyer = { authorization: basic('payer', 'payer-password'), ...json };

it('makes a refund once through a kill -9 between the cancellation and Stripe’s answer', async () => {
  const stripe = await startStripeServer({ secretKey: STRIPE_SECRET_KEY });
  const database = await ownDatabase();
  const env = {
    ...database.env,
    ...stripeEnv(stripe.url),
    MUSEUM_ADMIN_USER: STAFF.name,
    MUSEUM_ADMIN_PASSWORD: STAFF.password,
  };
  try {
    const first = await spawnServer(env);
    let orderId: string;
    try {
      const account = await fetch(`${first.url}/graphql`, {
        method: 'POST',
        headers: staff,
        body: JSON.stringify({
          query: 'mutation($input: CreateAccountInput!) { createAccount(input: $input) { name } }',
          variables: { input: { name: 'payer', role: 'visitor', password: 'payer-password' } },
        }),
      });
      expect(account.status).toBe(200);
      const placed = await fetch(`${first.url}/orders`, {
        method: 'POST',
        headers: buyer,
        body: JSON.stringify({
          email: 'payer@example.com',
          lines: [{ ticketType: 'general', ticketDate: upcomingOpenDay(2), quantity: 2 }],
        }),
      });
      expect(placed.status).toBe(201);
      orderId = ((await placed.json()) as { orderId: string }).orderId;
      const session = [...stripe.sessions.values()].find((s) => s.client_reference_id === orderId)!;
      const paid = signedEventRequestFor(stripe.event('checkout.session.completed', stripe.pay(session.id)));
      const confirmed = await fetch(`${first.url}/payments/stripe`, { method: 'POST', ...paid });
      expect(await confirmed.json()).toEqual({ received: true, outcome: 'confirmed' });

      // Stripe takes the refund call and never answers; the process dies while it waits.
      stripe.hangNext('/v1/refunds', 1);
      const cancelled = await fetch(`${first.url}/orders/${orderId}`, { method: 'DELETE', headers: buyer });
      expect(cancelled.status).toBe(204);
      await eventually(async () => stripe.calls.some((call) => call.path === '/v1/refunds'));
    } finally {
      first.child.kill('SIGKILL');
      await first.exited;
    }
    expect(stripe.refunds).toHaveLength(0);

    const restarted = await spawnServer(env);
    try {
      const intent = [...stripe.sessions.values()].find(
        (s) => s.client_reference_id === orderId,
      )!.payment_intent;
      // The dead process's lease (30 s) runs out, then the new one sends the refund again.
      await eventually(async () => stripe.refunds.length > 0, 60_000);
      expect(stripe.refunds).toEqual([expect.objectContaining({ payment_intent: intent, amount: 4000 })]);
      const keys = stripe.calls
        .filter((call) => call.path === '/v1/refunds')
        .map((call) => call.idempotencyKey);
      expect(keys.length).toBeGreaterThan(1);
      expect(new Set(keys).size).toBe(1);
      const read = await fetch(`${restarted.url}/orders/${orderId}`, { headers: buyer });
      expect(await read.json()).toMatchObject({ status: 'refunded', refundedAmount: 40 });
    } finally {
      await restarted.stop();
    }
  } finally {
    await database.drop();
    await stripe.close();
  }
}, 120_000);
