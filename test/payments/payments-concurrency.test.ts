// Held seats under concurrency (issue 37): 30 visitors race for 10 seats while paying through Stripe, and
// holds run out together, through two instances over one PostgreSQL (with TEST_DATABASE_URL; on the embedded
// database, one instance, which is one session).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statement } from '../../src/db/sql.ts';
import { instancesTitle, useTwoInstances } from '../support/instances.ts';
import { upcoming } from '../support/museum.ts';
import { orderRow, STRIPE_SECRET_KEY, sessionOf, stripeEnv } from '../support/payments.ts';
import { eventually } from '../support/receiver.ts';
import { type StripeServer, startStripeServer } from '../support/stripe-server.ts';

let stripe: StripeServer;
beforeAll(async () => {
  stripe = await startStripeServer({ secretKey: STRIPE_SECRET_KEY });
});
afterAll(() => stripe?.close());
// Registered after the look-alike's hooks: the instances close before it does.
const instances = useTwoInstances(() => ({ ...stripeEnv(stripe.url), MUSEUM_DAILY_CAPACITY: '10' }));
const post = (n: number, path: string, body: unknown) => instances.send(n, 'POST', path, { body });

const COUNTS = statement<{ counter: number; held: number }, [day: string]>(
  'test_general_counts',
  `select (select sold from ticket_sales where scope = 'general' and date = $1::date) as counter,
          (select count(*)::int from ticket where ticket_type = 'general' and ticket_date = $1::date
             and cancelled_at is null) as held`,
);
const counts = async (day: string) => (await instances.museum.deps.db.sql.query(COUNTS, [day]))[0]!;

const END_HOLDS = statement(
  'test_end_holds',
  "update ticket_order set expires_at = now() - interval '1 second' where status = 'pending'",
);

describe(`30 visitors race for 10 seats while paying (${instancesTitle})`, () => {
  it('hold exactly 10 seats; the rest get 409; the holds run out once each and give every seat back', async () => {
    const day = upcoming([3], 2);
    const responses = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        i % 2
          ? post(i, '/tickets', { ticketType: 'general', ticketDate: day, email: 'racer@example.com' })
          : post(i, '/orders', {
              email: 'racer@example.com',
              lines: [{ ticketType: 'general', ticketDate: day, quantity: 1 }],
            }),
      ),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(10);
    expect(statuses.filter((s) => s !== 201 && s !== 409)).toEqual([]);
    const orders = responses.filter((r) => r.status === 201).map((r) => r.body.orderId as string);
    for (const response of responses.filter((r) => r.status === 201))
      expect(response.body.status).toBe('pending');
    // Each order has one session at Stripe, and held seats are counted as sold ones are.
    for (const orderId of orders) expect(sessionOf(stripe, orderId).status).toBe('open');
    expect(await counts(day)).toEqual({ counter: 10, held: 10 });

    // Every hold ends at once; both instances' workers look at the same moment.
    await instances.museum.deps.db.sql.query(END_HOLDS, []);
    instances.museum.deps.payments!.wake();
    instances.second?.deps.payments?.wake();
    await eventually(async () => {
      const rows = await Promise.all(orders.map((orderId) => orderRow(instances.museum, orderId)));
      return rows.every((row) => row?.status === 'expired');
    });
    expect(await counts(day)).toEqual({ counter: 0, held: 0 });
    // Each session expired once: one expiry per order reached Stripe.
    await eventually(async () => orders.every((orderId) => sessionOf(stripe, orderId).status === 'expired'));
    const expiries = stripe.calls.filter((c) => c.path.endsWith('/expire'));
    expect(expiries).toHaveLength(10);

    // The seats are sold again, exactly up to the capacity.
    const again = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        post(i, '/orders', {
          email: 'second@example.com',
          lines: [{ ticketType: 'general', ticketDate: day, quantity: 1 }],
        }),
      ),
    );
    expect(again.filter((r) => r.status === 201)).toHaveLength(10);
    expect(await counts(day)).toEqual({ counter: 10, held: 10 });
  });
});
