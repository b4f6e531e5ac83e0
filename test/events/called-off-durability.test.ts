// The museum's cancellations happen exactly once, whatever happens (issue 55, point 4). The transaction that
// deletes an event writes a refund row per paid order and a mail per order into the outboxes; the workers
// that send them run on every instance, and only the database remembers what is owed. So: two instances
// over one database send each refund and each mail once (row locks and leases, checked at the Stripe
// look-alike, the SMTP server and in the outbox rows); a server killed (kill -9) right after the cancelling
// transaction committed, before it could send anything, has them sent by the next process, once, each refund
// under the one idempotency key its row gives it; and with payments off (the default) and no mail server, the
// tickets are cancelled and mailed as .eml files, and nothing is refunded.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/db/database.ts';
import { type Queryable, statement } from '../../src/db/sql.ts';
import { instancesTitle, useTwoInstances } from '../support/instances.ts';
import { basic, eventBody, ownDatabase, STAFF, upcoming, VISITOR } from '../support/museum.ts';
import { STRIPE_SECRET_KEY, signedEventRequestFor, stripeEnv } from '../support/payments.ts';
import { eventually } from '../support/receiver.ts';
import { spawnServer } from '../support/server.ts';
import { type SmtpCatcher, smtpEnv, startSmtpCatcher } from '../support/smtp.ts';
import { type StripeServer, startStripeServer } from '../support/stripe-server.ts';

const REASON = 'The gallery roof is being repaired.';
const json = { 'content-type': 'application/json' };
const staff = { authorization: basic(STAFF.name, STAFF.password), ...json };
const visitor = { authorization: basic(VISITOR.name, VISITOR.password), ...json };
const admin = { MUSEUM_ADMIN_USER: STAFF.name, MUSEUM_ADMIN_PASSWORD: STAFF.password };
// Long enough for a second sender to send one again, were it to: only to see that nothing more comes.
const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

const calledOffMails = (smtp: SmtpCatcher, address: string) =>
  smtp.received.filter(
    (mail) => mail.to.includes(address) && mail.parsed.subject?.endsWith('your visit was called off'),
  );
const refundMails = (smtp: SmtpCatcher, address: string) =>
  smtp.received.filter(
    (mail) => mail.to.includes(address) && mail.parsed.subject?.includes('your refund of'),
  );
const refundCalls = (stripe: StripeServer) => stripe.calls.filter((call) => call.path === '/v1/refunds');
const intentOf = (stripe: StripeServer, orderId: string) =>
  [...stripe.sessions.values()].find((session) => session.client_reference_id === orderId)!.payment_intent!;

interface RefundRow {
  id: string;
  orderId: string;
  status: string;
  attempts: number;
}
const REFUND_ROWS = statement<RefundRow, [orderIds: string[]]>(
  'test_called_off_durability_refunds',
  `select id, order_id as "orderId", status, attempts from refund where order_id = any($1::uuid[])
   order by order_id`,
);
interface MailRow {
  kind: string;
  recipient: string;
  status: string;
  attempts: number;
}
const MAIL_ROWS = statement<MailRow, [recipients: string[]]>(
  'test_called_off_durability_mails',
  `select kind, recipient, status, attempts from mail
   where recipient = any($1::text[]) and kind in ('cancellation', 'refund')
   order by recipient collate "C", kind`,
);
const REFUND_COUNT = statement<{ refunds: number }>(
  'test_called_off_durability_refund_count',
  'select count(*)::int as refunds from refund',
);
// What the clock would do for a dead process: its leases (mail 90 s, refunds 30 s) and the backoffs of the
// tries it failed run out, so the next process sends them at once.
const END_LEASES = statement(
  'test_called_off_durability_end_leases',
  `with mails as (update mail set next_attempt_at = now() where status = 'pending' returning 1)
   update refund set next_attempt_at = now() where status = 'pending'`,
);

/** Runs `use` on the database of the server processes of `env` while none runs (PGlite is one process's). */
async function withDatabase<T>(env: Record<string, string>, use: (sql: Queryable) => Promise<T>): Promise<T> {
  const db = await openDatabase(loadConfig({ ...env, LOG_LEVEL: 'silent' }).database);
  try {
    return await use(db.sql);
  } finally {
    await db.close();
  }
}

/** An order of `quantity` tickets of `eventId` placed on `url` as the visitor, its session paid at Stripe. */
async function paidOrder(
  url: string,
  stripe: StripeServer,
  { eventId, date, email, quantity }: { eventId: string; date: string; email: string; quantity: number },
): Promise<string> {
  const placed = await fetch(`${url}/orders`, {
    method: 'POST',
    headers: visitor,
    body: JSON.stringify({ email, lines: [{ ticketType: 'event', eventId, ticketDate: date, quantity }] }),
  });
  expect(placed.status).toBe(201);
  const { orderId } = (await placed.json()) as { orderId: string };
  const session = [...stripe.sessions.values()].find((s) => s.client_reference_id === orderId)!;
  const paid = signedEventRequestFor(stripe.event('checkout.session.completed', stripe.pay(session.id)));
  const confirmed = await fetch(`${url}/payments/stripe`, { method: 'POST', ...paid });
  expect(await confirmed.json()).toEqual({ received: true, outcome: 'confirmed' });
  return orderId;
}

/** An event on `date` at €12.50 a ticket, made by staff on `url`. */
async function createdEvent(url: string, date: string): Promise<string> {
  const created = await fetch(`${url}/special-events`, {
    method: 'POST',
    headers: staff,
    body: JSON.stringify(eventBody({ dates: [date], price: 12.5 })),
  });
  expect(created.status).toBe(201);
  return ((await created.json()) as { eventId: string }).eventId;
}

const callOff = (url: string, eventId: string) =>
  fetch(`${url}/special-events/${eventId}?reason=${encodeURIComponent(REASON)}`, {
    method: 'DELETE',
    headers: staff,
  });

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

  it('refunds each paid order once and mails each buyer once, both instances’ workers running', async () => {
    const date = upcoming([2], 70);
    const eventId = await createdEvent(instances.instance(0).url, date);
    const addresses = Array.from({ length: 6 }, (_, n) => `both-${n}-${Date.now()}@example.com`);
    const quantityOf = (n: number) => 1 + (n % 2);
    // Sales spread over both instances, as a balancer would.
    const orders: string[] = [];
    for (const [n, email] of addresses.entries())
      orders.push(
        await paidOrder(instances.instance(n).url, stripe!, {
          eventId,
          date,
          email,
          quantity: quantityOf(n),
        }),
      );

    // Every instance's refund and mail workers look for due work again and again, as their safety polls
    // might at any moment: they race for the same rows, each of which must be sent once.
    const wakeWorkers = () => {
      for (const instance of [instances.museum, instances.second]) {
        instance?.deps.payments?.wake();
        instance?.deps.mail?.wake();
      }
    };
    expect((await callOff(instances.instance(1).url, eventId)).status).toBe(204);

    await eventually(async () => {
      wakeWorkers();
      return addresses.every(
        (address) => calledOffMails(smtp!, address).length > 0 && refundMails(smtp!, address).length > 0,
      );
    }, 30_000);
    wakeWorkers();
    await settle();
    for (const [n, orderId] of orders.entries())
      expect(
        stripe!.refunds.filter((refund) => refund.payment_intent === intentOf(stripe!, orderId)),
      ).toEqual([expect.objectContaining({ amount: 1250 * quantityOf(n) })]);
    for (const address of addresses) {
      expect(calledOffMails(smtp!, address).map((mail) => mail.parsed.text)).toEqual([
        expect.stringContaining(`The reason: ${REASON}`),
      ]);
      expect(refundMails(smtp!, address).map((mail) => mail.parsed.subject)).toHaveLength(1);
    }

    // One refund row per order, taken once by one worker (a second taking would count a second attempt),
    // its id the only idempotency key Stripe saw for it.
    const sql = instances.museum.deps.db.sql;
    const refunds = await sql.query(REFUND_ROWS, [orders]);
    expect(refunds.map(({ orderId, status, attempts }) => ({ orderId, status, attempts }))).toEqual(
      [...orders].sort().map((orderId) => ({ orderId, status: 'succeeded', attempts: 1 })),
    );
    expect(new Set(refundCalls(stripe!).map((call) => call.idempotencyKey))).toEqual(
      new Set(refunds.map((refund) => `refund-${refund.id}`)),
    );
    // Each buyer's two mails (called off, then refunded) queued once and sent on the first attempt.
    expect(await sql.query(MAIL_ROWS, [addresses])).toEqual(
      [...addresses].sort().flatMap((recipient) => [
        { kind: 'cancellation', recipient, status: 'sent', attempts: 1 },
        { kind: 'refund', recipient, status: 'sent', attempts: 1 },
      ]),
    );
  }, 60_000);
});

it('sends every refund and mail once after a kill -9 right after the cancelling transaction committed', async () => {
  const stripe = await startStripeServer({ secretKey: STRIPE_SECRET_KEY });
  // The killed process's Stripe: it answers every refund call 500, so nothing is refunded before the kill,
  // yet it keeps the idempotency key of each call that came.
  const refusing = await startStripeServer({ secretKey: STRIPE_SECRET_KEY });
  refusing.failNext('/v1/refunds', 1_000);
  const smtp = await startSmtpCatcher();
  const database = await ownDatabase();
  const env = { ...database.env, ...stripeEnv(stripe.url), ...smtpEnv(smtp), ...admin };
  const date = upcoming([3], 70);
  const addresses = [1, 2, 3].map((n) => `killed-${n}-${Date.now()}@example.com`);
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
        orders.push(await paidOrder(seller.url, stripe, { eventId, date, email, quantity: n + 1 }));
    } finally {
      await seller.stop();
    }

    // The call-off, by a process that can send nothing (its Stripe refuses, its mail server is down) and is
    // killed as soon as the transaction has committed.
    await smtp.stop();
    const killed = await spawnServer({ ...env, STRIPE_API_BASE: refusing.url });
    try {
      expect((await callOff(killed.url, eventId)).status).toBe(204);
    } finally {
      killed.child.kill('SIGKILL');
      await killed.exited;
    }

    await smtp.start();
    await withDatabase(env, (sql) => sql.query(END_LEASES, []));
    const restarted = await spawnServer(env);
    try {
      await eventually(
        async () =>
          stripe.refunds.length >= orders.length &&
          addresses.every((address) => calledOffMails(smtp, address).length > 0),
        60_000,
      );
      await settle();
      const order = await fetch(`${restarted.url}/orders/${orders[1]}`, { headers: visitor });
      expect(await order.json()).toMatchObject({ status: 'refunded', refundedAmount: 25 });
    } finally {
      await restarted.stop();
    }

    for (const [n, orderId] of orders.entries())
      expect(stripe.refunds.filter((refund) => refund.payment_intent === intentOf(stripe, orderId))).toEqual([
        expect.objectContaining({ amount: 1250 * (n + 1) }),
      ]);
    for (const address of addresses)
      expect(calledOffMails(smtp, address).map((mail) => mail.parsed.text)).toEqual([
        expect.stringContaining(`The reason: ${REASON}`),
      ]);
    const [refunds, mails] = await withDatabase(
      env,
      async (sql) =>
        [await sql.query(REFUND_ROWS, [orders]), await sql.query(MAIL_ROWS, [addresses])] as const,
    );
    expect(refunds.map(({ orderId, status }) => ({ orderId, status }))).toEqual(
      [...orders].sort().map((orderId) => ({ orderId, status: 'succeeded' })),
    );
    // Every attempt at an order's refund, the dead process's (if it came to one before the kill) and the new
    // one's, carried the key its row gives it: whichever process sends it, Stripe makes it once.
    for (const { id, orderId } of refunds) {
      const intent = intentOf(stripe, orderId);
      const keys = [...refundCalls(refusing), ...refundCalls(stripe)]
        .filter((call) => call.body.payment_intent === intent)
        .map((call) => call.idempotencyKey);
      expect(new Set(keys)).toEqual(new Set([`refund-${id}`]));
    }
    expect(
      mails
        .filter((mail) => mail.kind === 'cancellation')
        .map(({ recipient, status }) => ({ recipient, status })),
    ).toEqual([...addresses].sort().map((recipient) => ({ recipient, status: 'sent' })));
  } finally {
    await database.drop();
    await stripe.close();
    await refusing.close();
    await smtp.close();
  }
}, 120_000);

it('with payments off and no mail server: cancels the tickets, writes one .eml per order or lone ticket naming the reason, refunds nothing', async () => {
  // The default set-up: MUSEUM_PAYMENTS unset, no SMTP_URL, so mail goes to MUSEUM_DATA_DIR/mail (on the
  // embedded database that is the database's own directory).
  const database = await ownDatabase();
  const dataDir = database.env.MUSEUM_DATA_DIR ?? (await mkdtemp(join(tmpdir(), 'museum-called-off-')));
  const env = { MUSEUM_DATA_DIR: dataDir, ...database.env, ...admin };
  const mailDir = join(dataDir, 'mail');
  const calledOffFiles = async () =>
    (
      await Promise.all(
        (
          await readdir(mailDir).catch(() => [])
        )
          .filter((name) => name.endsWith('.eml'))
          .map(async (name) => simpleParser(await readFile(join(mailDir, name)))),
      )
    ).filter((parsed) => parsed.subject?.endsWith('your visit was called off'));
  const recipient = (parsed: Awaited<ReturnType<typeof calledOffFiles>>[number]) =>
    parsed.to && 'text' in parsed.to ? parsed.to.text : '';
  const stamp = Date.now();
  const [lone1, lone2, ordered] = [
    `desk-lone-1-${stamp}@example.com`,
    `desk-lone-2-${stamp}@example.com`,
    `desk-order-${stamp}@example.com`,
  ];
  try {
    const server = await spawnServer(env);
    try {
      const date = upcoming([4], 70);
      const eventId = await createdEvent(server.url, date);
      // Two tickets sold on their own, to two people, and an order of two.
      const loneTickets: string[] = [];
      for (const email of [lone1, lone2]) {
        const single = await fetch(`${server.url}/tickets`, {
          method: 'POST',
          headers: staff,
          body: JSON.stringify({ ticketType: 'event', eventId, ticketDate: date, email }),
        });
        expect(single.status).toBe(201);
        loneTickets.push(((await single.json()) as { ticketId: string }).ticketId);
      }
      const sold = await fetch(`${server.url}/orders`, {
        method: 'POST',
        headers: staff,
        body: JSON.stringify({
          email: ordered,
          lines: [{ ticketType: 'event', eventId, ticketDate: date, quantity: 2 }],
        }),
      });
      expect(sold.status).toBe(201);
      const { orderId, tickets } = (await sold.json()) as {
        orderId: string;
        tickets: { ticketId: string }[];
      };

      expect((await callOff(server.url, eventId)).status).toBe(204);
      for (const ticketId of [...loneTickets, ...tickets.map((ticket) => ticket.ticketId)]) {
        const ticket = await fetch(`${server.url}/tickets/${ticketId}`, { headers: staff });
        expect(await ticket.json()).toMatchObject({
          status: 'cancelled',
          cancelledBy: 'museum',
          cancellationReason: REASON,
        });
      }
      await eventually(async () => (await calledOffFiles()).length >= 3);
      await settle();
      const mails = await calledOffFiles();
      expect(mails.map(recipient).sort()).toEqual([lone1, lone2, ordered].sort());
      for (const mail of mails) {
        expect(mail.text).toContain(`The reason: ${REASON}`);
        expect(mail.text).toContain(
          'Nothing was paid for them online, so there is nothing to refund by card.',
        );
      }
      expect(mails.find((mail) => recipient(mail) === ordered)!.text).toContain(`(order ${orderId})`);
    } finally {
      await server.stop();
    }
    expect(await withDatabase(env, (sql) => sql.query(REFUND_COUNT, []))).toEqual([{ refunds: 0 }]);
  } finally {
    await database.drop();
    await rm(dataDir, { recursive: true, force: true });
  }
}, 60_000);
