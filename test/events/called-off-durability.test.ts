// The museum's cancellations happen exactly once, whatever happens (issue 55): two instances over one database
// send each refund and each mail once; a server killed (kill -9) right after the cancelling transaction
// committed, before it could send anything, has them sent by the next process, once; and with payments off
// (the default) and no mail server, the tickets are cancelled and mailed as .eml files, nothing refunded.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/db/database.ts';
import { statement } from '../../src/db/sql.ts';
import { instancesTitle, onPostgres, useTwoInstances } from '../support/instances.ts';
import { basic, eventBody, ownDatabase, STAFF, upcoming, VISITOR } from '../support/museum.ts';
import { STRIPE_SECRET_KEY, signedEventRequestFor, stripeEnv } from '../support/payments.ts';
import { eventually } from '../support/receiver.ts';
import { freePort, spawnServer } from '../support/server.ts';
import { type SmtpCatcher, smtpEnv, startSmtpCatcher } from '../support/smtp.ts';
import { type StripeServer, startStripeServer } from '../support/stripe-server.ts';

const END_LEASES = statement(
  'test_called_off_end_leases',
  `with mails as (update mail set next_attempt_at = now() where status = 'pending' returning 1)
   update refund set next_attempt_at = now() where status = 'pending'`,
);

const REASON = 'The gallery roof is being repaired.';
const json = { 'content-type': 'application/json' };
const staff = { authorization: basic(STAFF.name, STAFF.password), ...json };
const visitor = { authorization: basic(VISITOR.name, VISITOR.password), ...json };
const admin = { MUSEUM_ADMIN_USER: STAFF.name, MUSEUM_ADMIN_PASSWORD: STAFF.password };

const calledOff = (smtp: SmtpCatcher, address: string) =>
  smtp.received.filter(
    (mail) => mail.to.includes(address) && mail.parsed.subject?.endsWith('your visit was called off'),
  );
const refundCalls = (stripe: StripeServer) => stripe.calls.filter((call) => call.path === '/v1/refunds');
const sessionFor = (stripe: StripeServer, orderId: string) =>
  [...stripe.sessions.values()].find((session) => session.client_reference_id === orderId)!;

/** Places an order of `quantity` tickets of `eventId` on `url` as the visitor and pays its session. */
async function paidOrder(
  url: string,
  stripe: StripeServer,
  eventId: string,
  date: string,
  email: string,
  quantity: number,
) {
  const placed = await fetch(`${url}/orders`, {
    method: 'POST',
    headers: visitor,
    body: JSON.stringify({ email, lines: [{ ticketType: 'event', eventId, ticketDate: date, quantity }] }),
  });
  expect(placed.status).toBe(201);
  const { orderId } = (await placed.json()) as { orderId: string };
  const paid = signedEventRequestFor(
    stripe.event('checkout.session.completed', stripe.pay(sessionFor(stripe, orderId).id)),
  );
  const confirmed = await fetch(`${url}/payments/stripe`, { method: 'POST', ...paid });
  expect(await confirmed.json()).toEqual({ received: true, outcome: 'confirmed' });
  return orderId;
}

async function createdEvent(url: string, date: string): Promise<string> {
  const created = await fetch(`${url}/special-events`, {
    method: 'POST',
    headers: staff,
    body: JSON.stringify(eventBody({ dates: [date], price: 12.5 })),
  });
  expect(created.status).toBe(201);
  return ((await created.json()) as { eventId: string }).eventId;
}

describe(`an event called off on ${instancesTitle}`, () => {
  let smtp: SmtpCatcher | undefined;
  let stripe: StripeServer | undefined;
  beforeAll(async () => {
    smtp = await startSmtpCatcher();
    stripe = await startStripeServer({ secretKey: STRIPE_SECRET_KEY });
  });
  afterAll(async () => {
    await smtp?.close();
    await stripe?.close();
  });
  const instances = useTwoInstances(() => ({
    ...stripeEnv(stripe!.url),
    ...smtpEnv(smtp!),
    MAIL_RATE_PER_SECOND: '1000',
  }));

  it('refunds each paid order once and mails each buyer once, both instances working', async () => {
    const date = upcoming([2], 70);
    const eventId = await createdEvent(instances.instance(0).url, date);
    const addresses = Array.from({ length: 6 }, (_, n) => `both-${n}-${Date.now()}@example.com`);
    const orders: string[] = [];
    for (const [n, email] of addresses.entries())
      orders.push(await paidOrder(instances.instance(n).url, stripe!, eventId, date, email, 1 + (n % 2)));

    const deleted = await fetch(
      `${instances.instance(1).url}/special-events/${eventId}?reason=${encodeURIComponent(REASON)}`,
      { method: 'DELETE', headers: staff },
    );
    expect(deleted.status).toBe(204);

    await eventually(async () => stripe!.refunds.length >= orders.length, 30_000);
    await eventually(async () => addresses.every((address) => calledOff(smtp!, address).length > 0), 30_000);
    // Long enough for the other instance to send one again, were it to.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    for (const [n, orderId] of orders.entries()) {
      const intent = sessionFor(stripe!, orderId).payment_intent;
      expect(stripe!.refunds.filter((refund) => refund.payment_intent === intent)).toEqual([
        expect.objectContaining({ amount: 1250 * (1 + (n % 2)) }),
      ]);
    }
    expect(new Set(refundCalls(stripe!).map((call) => call.idempotencyKey)).size).toBe(orders.length);
    for (const address of addresses) {
      const [mail, ...more] = calledOff(smtp!, address);
      expect(more).toEqual([]);
      expect(mail!.parsed.text).toContain(`The reason: ${REASON}`);
    }
  }, 90_000);
});

it('sends every refund and mail once after a kill -9 right after the cancelling transaction committed', async () => {
  const stripe = await startStripeServer({ secretKey: STRIPE_SECRET_KEY });
  const smtp = await startSmtpCatcher();
  const database = await ownDatabase();
  const env = {
    ...database.env,
    ...stripeEnv(stripe.url),
    ...smtpEnv(smtp),
    ...admin,
    MAIL_RETRY_SCHEDULE: '1',
  };
  const date = upcoming([3], 70);
  const addresses = [`killed-a-${Date.now()}@example.com`, `killed-b-${Date.now()}@example.com`];
  const orders: string[] = [];
  try {
    // The sale, by a process that then stops.
    const seller = await spawnServer(env);
    let eventId: string;
    try {
      const account = await fetch(`${seller.url}/graphql`, {
        method: 'POST',
        headers: staff,
        body: JSON.stringify({
          query: 'mutation($input: CreateAccountInput!) { createAccount(input: $input) { name } }',
          variables: { input: { name: VISITOR.name, role: 'visitor', password: VISITOR.password } },
        }),
      });
      expect(account.status).toBe(200);
      eventId = await createdEvent(seller.url, date);
      for (const [n, email] of addresses.entries())
        orders.push(await paidOrder(seller.url, stripe, eventId, date, email, n + 1));
    } finally {
      await seller.stop();
    }
    // The deletion, by a process that can send nothing before its kill: its Stripe and its mail server are
    // unreachable.
    await smtp.stop();
    const first = await spawnServer({ ...env, STRIPE_API_BASE: `http://127.0.0.1:${await freePort()}` });
    try {
      const deleted = await fetch(
        `${first.url}/special-events/${eventId}?reason=${encodeURIComponent(REASON)}`,
        {
          method: 'DELETE',
          headers: staff,
        },
      );
      expect(deleted.status).toBe(204);
    } finally {
      first.child.kill('SIGKILL');
      await first.exited;
    }
    expect(stripe.refunds).toHaveLength(0);
    for (const address of addresses) expect(calledOff(smtp, address)).toHaveLength(0);

    await smtp.start();
    // The dead process's leases (mail 90 s, refunds 30 s) run out now, as the clock would have them.
    const db = await openDatabase(loadConfig({ ...env, LOG_LEVEL: 'silent' }).database);
    try {
      await db.sql.query(END_LEASES, []);
    } finally {
      await db.close();
    }
    const restarted = await spawnServer(env);
    try {
      await eventually(async () => stripe.refunds.length >= orders.length, 60_000);
      await eventually(async () => addresses.every((address) => calledOff(smtp, address).length > 0), 30_000);
      await new Promise((resolve) => setTimeout(resolve, 500));
      for (const [n, orderId] of orders.entries()) {
        const intent = sessionFor(stripe, orderId).payment_intent;
        expect(stripe.refunds.filter((refund) => refund.payment_intent === intent)).toEqual([
          expect.objectContaining({ amount: 1250 * (n + 1) }),
        ]);
      }
      // Each refund row kept its one key through every attempt, before the kill and after.
      expect(new Set(refundCalls(stripe).map((call) => call.idempotencyKey)).size).toBe(orders.length);
      for (const address of addresses) expect(calledOff(smtp, address)).toHaveLength(1);
      const order = await fetch(`${restarted.url}/orders/${orders[1]}`, { headers: visitor });
      expect(await order.json()).toMatchObject({ status: 'refunded', refundedAmount: 25 });
    } finally {
      await restarted.stop();
    }
  } finally {
    await database.drop();
    await stripe.close();
    await smtp.close();
  }
}, 120_000);

// The embedded default is one set-up, whatever database the run is for.
it.skipIf(onPostgres)(
  'with payments off and no mail server: cancels the tickets, writes one .eml per order naming the reason, refunds nothing',
  async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'museum-called-off-'));
    const server = await spawnServer({ MUSEUM_DATA_DIR: dataDir, ...admin });
    try {
      const date = upcoming([4], 70);
      const eventId = await createdEvent(server.url, date);
      const sold = await fetch(`${server.url}/orders`, {
        method: 'POST',
        headers: staff,
        body: JSON.stringify({
          email: 'desk-buyer@example.com',
          lines: [{ ticketType: 'event', eventId, ticketDate: date, quantity: 2 }],
        }),
      });
      expect(sold.status).toBe(201);
      const { tickets } = (await sold.json()) as { tickets: { ticketId: string }[] };
      const deleted = await fetch(
        `${server.url}/special-events/${eventId}?reason=${encodeURIComponent(REASON)}`,
        {
          method: 'DELETE',
          headers: staff,
        },
      );
      expect(deleted.status).toBe(204);
      for (const { ticketId } of tickets) {
        const ticket = await fetch(`${server.url}/tickets/${ticketId}`, { headers: staff });
        expect(await ticket.json()).toMatchObject({
          status: 'cancelled',
          cancelledBy: 'museum',
          cancellationReason: REASON,
        });
      }
      const mailDir = join(dataDir, 'mail');
      const readMails = async () =>
        Promise.all(
          (await readdir(mailDir).catch(() => []))
            .filter((name) => name.endsWith('.eml'))
            .map(async (name) => simpleParser(await readFile(join(mailDir, name)))),
        );
      const [mail, ...more] = await eventually(async () => {
        const mails = (await readMails()).filter((parsed) =>
          parsed.subject?.endsWith('your visit was called off'),
        );
        return mails.length > 0 && mails;
      });
      expect(more).toEqual([]);
      expect(mail!.text).toContain(`The reason: ${REASON}`);
      expect(mail!.text).toContain(
        'Nothing was paid for them online, so there is nothing to refund by card.',
      );
    } finally {
      await server.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  },
  120_000,
);
