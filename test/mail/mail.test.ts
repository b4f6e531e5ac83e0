// Tickets reach the buyer (issue 38): a confirmed sale writes its mail to the outbox in its own transaction,
// and the mail worker sends it through a real SMTP server (smtp-server, in this process) with nodemailer:
// plain text and HTML, each ticket's QR code inline (read back with jsqr, and checked in with what it reads),
// and an RFC 5545 calendar entry in the museum's time zone. A cancellation sends its own mail; the server
// down, saying "later" or "never", or slow; copies on request, limited; no address in any log line.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { statement } from '../../src/db/sql.ts';
import { createLogger } from '../../src/logger.ts';
import { placedOrder } from '../support/actions.ts';
import { addGateAccount, eventBody, startMuseum, type TestMuseum, upcoming } from '../support/museum.ts';
import { eventually } from '../support/receiver.ts';
import {
  calendarOf,
  qrImages,
  readQrCode,
  SMTP_PASSWORD,
  type SmtpCatcher,
  smtpEnv,
  startSmtpCatcher,
} from '../support/smtp.ts';
import { openToday } from '../support/visit.ts';

const TIME_ZONE = 'Europe/Amsterdam';
const logged: string[] = [];
const logger = createLogger('debug', { write: (line: string) => void logged.push(line) });
let smtp: SmtpCatcher;
let museum: TestMuseum;

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  museum = await startMuseum(
    { ...smtpEnv(smtp), MUSEUM_TIMEZONE: TIME_ZONE, MAIL_RETRY_SCHEDULE: '1' },
    { logger },
  );
  await addGateAccount(museum);
});
afterAll(async () => {
  await museum?.close();
  await smtp?.close();
});

/** Every address a test here bought with: none may appear in a log line. */
const used = new Set<string>();
let mailbox = 0;
/** A buyer's address of its own, so that each test reads only its own mails. */
const newAddress = () => {
  const address = `buyer-${++mailbox}-${Date.now()}@example.com`;
  used.add(address);
  return address;
};
const mailsTo = (address: string) => smtp.received.filter((mail) => mail.to.includes(address));
const mailsArrive = (address: string, count: number, timeoutMs = 15_000) =>
  eventually(async () => mailsTo(address).length >= count && mailsTo(address), timeoutMs);

/**
 * The UTC instant at which the clocks of `timeZone` read `time` on `date`, found by trying every offset a zone
 * can have (quarter hours, −14 h to +14 h) rather than as the service computes it.
 */
function expectedInstant(timeZone: string, date: string, time: string): string {
  const format = new Intl.DateTimeFormat('sv-SE', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
  });
  const wall = Date.parse(`${date}T${time}:00Z`);
  for (let quarter = -56; quarter <= 56; quarter++) {
    const instant = wall - quarter * 15 * 60_000;
    if (format.format(instant) === `${date} ${time}`)
      return new Date(instant)
        .toISOString()
        .replace(/[-:]/g, '')
        .replace(/\.\d{3}/, '');
  }
  throw new Error(`${date} ${time} does not happen in ${timeZone}`);
}

const calendarEvents = (calendar: string) =>
  calendar
    .split('BEGIN:VEVENT')
    .slice(1)
    .map((block) => ({
      start: /DTSTART:(\S+)/.exec(block)?.[1],
      end: /DTEND:(\S+)/.exec(block)?.[1],
      summary: /SUMMARY:(.*)/.exec(block)?.[1]?.trim(),
    }));

describe('the tickets mail', () => {
  it('sends an order of three tickets as one mail whose three QR codes each check in', async () => {
    const today = await openToday(museum);
    const event = await museum.rest('POST', '/special-events', {
      as: 'staff',
      body: eventBody({ dates: [today], capacity: 10 }),
    });
    const email = newAddress();
    const placed = await museum.rest('POST', '/orders', {
      body: {
        email,
        lines: [
          { ticketType: 'general', ticketDate: today, quantity: 2 },
          { ticketType: 'event', eventId: event.body.eventId, ticketDate: today, quantity: 1 },
        ],
      },
    });
    expect(placed.status, placed.text).toBe(201);
    const [mail] = await mailsArrive(email, 1);
    // Exactly one: give the worker a moment to send a second, were there one.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(mailsTo(email)).toHaveLength(1);
    const { parsed } = mail!;
    expect(parsed.subject).toBe('Your 3 tickets for Museum of Testing');
    expect(parsed.from?.value[0]).toEqual({ address: 'tickets@museum.example', name: 'Museum of Testing' });
    const codes = placed.body.tickets.map((ticket: { confirmationCode: string }) => ticket.confirmationCode);
    for (const code of codes) {
      expect(parsed.text).toContain(code);
      expect(parsed.html).toContain(code);
    }
    expect(parsed.text).toContain('Mermaid Treasure Identification and Analysis');
    const images = qrImages(parsed);
    expect(images).toHaveLength(3);
    // Each image is shown in the HTML part where its ticket is.
    for (const image of images) expect(parsed.html).toContain(`cid:${image.contentId!.replace(/[<>]/g, '')}`);
    const read = images.map((image) => readQrCode(image.content));
    expect(read.sort()).toEqual([...codes].sort());
    for (const code of read) {
      const admitted = await museum.rest('POST', '/check-ins', {
        as: 'gate',
        body: { confirmationCode: code },
      });
      expect(admitted.status).toBe(201);
    }
  });

  it("writes a calendar entry at the entry time, or the day's opening hours, in the museum's time zone", async () => {
    // A Monday (09:00–18:00) with timed entry, and a Friday (10:00–16:00) without.
    const monday = upcoming([1], 2);
    const friday = upcoming([5], 2);
    const slots = await museum.graphql(
      'mutation($input: SetDayEntrySlotsInput!) { setDayEntrySlots(input: $input) { date } }',
      { input: { date: monday, minutes: 60, capacity: 5 } },
      { as: 'staff' },
    );
    expect(slots.body.errors).toBeUndefined();
    const email = newAddress();
    const placed = await museum.rest('POST', '/orders', {
      body: {
        email,
        lines: [
          { ticketType: 'general', ticketDate: monday, entryTime: '11:00', quantity: 2 },
          { ticketType: 'general', ticketDate: friday, quantity: 1 },
        ],
      },
    });
    expect(placed.status).toBe(201);
    const [mail] = await mailsArrive(email, 1);
    const calendar = calendarOf(mail!.parsed);
    expect(calendar).toMatch(/^BEGIN:VCALENDAR/);
    expect(calendar).toContain('METHOD:PUBLISH');
    // One event per visit: two tickets for the same slot are one visit.
    expect(calendarEvents(calendar!)).toEqual([
      {
        start: expectedInstant(TIME_ZONE, monday, '11:00'),
        end: expectedInstant(TIME_ZONE, monday, '12:00'),
        summary: 'Visit to Museum of Testing',
      },
      {
        start: expectedInstant(TIME_ZONE, friday, '10:00'),
        end: expectedInstant(TIME_ZONE, friday, '16:00'),
        summary: 'Visit to Museum of Testing',
      },
    ]);
    expect(mail!.parsed.text).toContain('entry at 11:00');
  });

  it('sends a ticket bought on its own (POST /tickets) with its QR code', async () => {
    const email = newAddress();
    const ticketDate = upcoming([2], 3);
    const bought = await museum.rest('POST', '/tickets', {
      body: { ticketType: 'general', ticketDate, email },
    });
    expect(bought.status).toBe(201);
    const [mail] = await mailsArrive(email, 1);
    expect(mail!.parsed.subject).toBe('Your ticket for Museum of Testing');
    expect(qrImages(mail!.parsed).map((image) => readQrCode(image.content))).toEqual([
      bought.body.confirmationCode,
    ]);
  });

  it('sends nothing for a sale that did not happen', async () => {
    const email = newAddress();
    // A closed day, and not the museum's today, which the first test opens (late in UTC's evening, today in
    // the museum's time zone may be this coming Saturday already).
    const closedDay = upcoming([6], 1);
    const closed = await museum.rest('POST', '/tickets', {
      body: { ticketType: 'general', ticketDate: closedDay, email },
    });
    expect(closed.status, closed.text).toBe(400);
    const soldOut = await museum.rest('POST', '/orders', {
      body: { email, lines: [{ ticketType: 'general', ticketDate: closedDay, quantity: 1 }] },
    });
    expect(soldOut.status).toBe(400);
    const [row] = await museum.deps.db.sql.query(
      statement<{ count: string }, [email: string]>(
        'test_mail_to',
        // A mail queued, or owed by a ticket sold on its own.
        `select (select count(*) from mail where recipient = $1)
                    + (select count(*) from ticket where email = $1 and mail_owed) as count`,
      ),
      [email],
    );
    expect(Number(row!.count)).toBe(0);
  });
});

describe('the cancellation mail', () => {
  it('follows a cancellation, naming the tickets given back, with no QR code', async () => {
    const email = newAddress();
    const day = upcoming([3], 3);
    const placed = await museum.rest('POST', '/orders', {
      body: { email, lines: [{ ticketType: 'general', ticketDate: day, quantity: 2 }] },
    });
    await mailsArrive(email, 1);
    expect((await museum.rest('DELETE', `/orders/${placed.body.orderId}`)).status).toBe(204);
    const [, cancelled] = await mailsArrive(email, 2);
    expect(cancelled!.parsed.subject).toBe('Museum of Testing: your tickets were cancelled');
    for (const ticket of placed.body.tickets)
      expect(cancelled!.parsed.text).toContain(ticket.confirmationCode);
    expect(qrImages(cancelled!.parsed)).toHaveLength(0);
    expect(calendarOf(cancelled!.parsed)).toBeUndefined();
  });

  it('follows the cancellation of a ticket bought on its own', async () => {
    const email = newAddress();
    const bought = await museum.rest('POST', '/tickets', {
      body: { ticketType: 'general', ticketDate: upcoming([4], 3), email },
    });
    await mailsArrive(email, 1);
    expect((await museum.rest('DELETE', `/tickets/${bought.body.ticketId}`)).status).toBe(204);
    const [, cancelled] = await mailsArrive(email, 2);
    expect(cancelled!.parsed.text).toContain(bought.body.confirmationCode);
  });
});

const DELIVERY = `query($orderId: UUID!) { order(orderId: $orderId) {
  emailDelivery { status attempts lastAttemptAt lastError } } }`;

async function placeFor(email: string, day = upcoming([1, 2, 3, 4], 5)) {
  const placed = await placedOrder(museum, {
    email,
    lines: [{ ticketType: 'general', ticketDate: day, quantity: 1 }],
  });
  return placed.orderId;
}

describe('sending reliably', () => {
  it('sends the mail once the SMTP server is back, after it was down', async () => {
    await smtp.stop();
    const email = newAddress();
    const orderId = await placeFor(email);
    // Tried and failed at least twice while the server is down (MAIL_RETRY_SCHEDULE=1: every second).
    await eventually(async () => {
      const delivery = (await museum.rest('GET', `/orders/${orderId}`)).body.emailDelivery;
      return delivery.status === 'pending' && delivery.attempts >= 2;
    });
    await smtp.start();
    expect(await mailsArrive(email, 1)).toHaveLength(1);
    const delivery = await eventually(async () => {
      const read = (await museum.graphql(DELIVERY, { orderId }, { as: 'staff' })).body.data.order
        .emailDelivery;
      return read.status === 'sent' && read;
    });
    // At least one attempt failed before the one that sent it (the one under way may reach the server as it
    // comes back).
    expect(delivery.attempts).toBeGreaterThanOrEqual(2);
    expect(delivery.lastError).toBeNull();
  });

  it('tries again after a 4xx and sends on the next attempt', async () => {
    smtp.behave({ answer: 'later', times: 1 });
    const email = newAddress();
    const orderId = await placeFor(email);
    await mailsArrive(email, 1);
    const delivery = await eventually(async () => {
      const read = (await museum.graphql(DELIVERY, { orderId }, { as: 'staff' })).body.data.order
        .emailDelivery;
      return read.status === 'sent' && read;
    });
    expect(delivery.attempts).toBe(2);
    smtp.behave({ answer: 'accept' });
  });

  it('gives up on a 5xx: failed, with what the server said (without the address) for staff only', async () => {
    smtp.behave({ answer: 'refuse' });
    const email = newAddress();
    const orderId = await placeFor(email);
    const delivery = await eventually(async () => {
      const read = (await museum.graphql(DELIVERY, { orderId }, { as: 'staff' })).body.data.order
        .emailDelivery;
      return read.status === 'failed' && read;
    });
    smtp.behave({ answer: 'accept' });
    expect(delivery.attempts).toBe(1);
    expect(delivery.lastError).toContain('Recipient address rejected');
    expect(delivery.lastError).not.toContain('@');
    // Its owner sees how it stands, not what the server said.
    const owner = await museum.rest('GET', `/orders/${orderId}`);
    expect(owner.body.emailDelivery).toEqual({
      status: 'failed',
      attempts: 1,
      lastAttemptAt: delivery.lastAttemptAt,
    });
    expect(mailsTo(email)).toHaveLength(0);
    const metrics = await (await museum.fetch('http://museum.test/metrics')).text();
    expect(metrics).toMatch(/^museum_mails_total\{kind="tickets",outcome="failed"\} [1-9]/m);
    expect(metrics).toMatch(/^museum_mail_pending \d+$/m);
  });

  it('upgrades with STARTTLS when the server offers it, and sends nothing to one whose certificate fails', async () => {
    const tls = await startSmtpCatcher({ startTls: true });
    const strict = await startMuseum({ ...smtpEnv(tls), MAIL_RETRY_SCHEDULE: '60' });
    try {
      const email = newAddress();
      const placed = await strict.rest('POST', '/orders', {
        body: { email, lines: [{ ticketType: 'general', ticketDate: upcoming([3], 5), quantity: 1 }] },
      });
      const delivery = await eventually(async () => {
        const read = (await strict.graphql(DELIVERY, { orderId: placed.body.orderId }, { as: 'staff' })).body
          .data.order.emailDelivery;
        return read.attempts >= 1 && read.lastError && read;
      });
      expect(delivery.status).toBe('pending');
      expect(delivery.lastError).toMatch(/certificate/i);
      expect(tls.dataReceived).toBe(0);
    } finally {
      await strict.close();
      await tls.close();
    }
  });

  it('waits for a slow server without sending twice', async () => {
    smtp.behave({ answer: 'slowly', ms: 3_000 });
    const email = newAddress();
    await placeFor(email);
    await mailsArrive(email, 1);
    smtp.behave({ answer: 'accept' });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(mailsTo(email)).toHaveLength(1);
  });
});

const RESEND = 'mutation($orderId: UUID!) { resendTickets(orderId: $orderId) { status attempts lastError } }';

describe('sending the tickets again', () => {
  it('queues a fresh copy for the owner (REST) and staff (GraphQL), at most 5 an hour, then 429', async () => {
    const email = newAddress();
    const orderId = await placeFor(email);
    await mailsArrive(email, 1);
    const again = await museum.rest('POST', `/orders/${orderId}/resend`);
    expect(again.status).toBe(202);
    // REST leaves out what is null, as the reference does.
    expect(again.body).toEqual({ status: 'pending', attempts: 0 });
    const [, copy] = await mailsArrive(email, 2);
    expect(qrImages(copy!.parsed)).toHaveLength(1);
    const byStaff = await museum.graphql(RESEND, { orderId }, { as: 'staff' });
    expect(byStaff.body.data.resendTickets).toEqual({ status: 'pending', attempts: 0, lastError: null });
    for (let i = 3; i <= 5; i++)
      expect((await museum.rest('POST', `/orders/${orderId}/resend`)).status).toBe(202);
    const sixth = await museum.rest('POST', `/orders/${orderId}/resend`);
    expect(sixth.status).toBe(429);
    expect(sixth.headers.get('content-type')).toContain('application/problem+json');
    expect(Number(sixth.headers.get('retry-after'))).toBeGreaterThan(3000);
    expect(sixth.body.detail).toMatch(/At most 5 copies/);
    await mailsArrive(email, 6);
  });

  it("refuses another visitor's order (404), an order not confirmed (409), and needs credentials", async () => {
    const email = newAddress();
    const orderId = await placeFor(email);
    expect((await museum.rest('POST', `/orders/${orderId}/resend`, { as: 'other' })).status).toBe(404);
    expect((await museum.rest('POST', `/orders/${orderId}/resend`, { as: 'anonymous' })).status).toBe(401);
    expect((await museum.rest('POST', `/orders/${orderId}/resend`, { as: 'gate' })).status).toBe(403);
    expect((await museum.rest('POST', '/orders/not-a-uuid/resend')).status).toBe(400);
    expect((await museum.rest('DELETE', `/orders/${orderId}`)).status).toBe(204);
    const cancelled = await museum.rest('POST', `/orders/${orderId}/resend`);
    expect(cancelled.status).toBe(409);
    expect(cancelled.body.detail).toContain('cancelled');
  });
});

const TICKET_DELIVERY = `query($ticketId: UUID!) { ticket(ticketId: $ticketId) {
  emailDelivery { status attempts } } }`;

describe('sending a ticket again', () => {
  it('queues a copy of the mail of a ticket bought on its own; Ticket.emailDelivery follows it', async () => {
    const email = newAddress();
    const bought = await museum.rest('POST', '/tickets', {
      body: { ticketType: 'general', ticketDate: upcoming([1], 6), email },
    });
    await mailsArrive(email, 1);
    const sent = await eventually(async () => {
      const read = (await museum.graphql(TICKET_DELIVERY, { ticketId: bought.body.ticketId })).body.data;
      return read.ticket.emailDelivery?.status === 'sent' && read.ticket.emailDelivery;
    });
    expect(sent).toEqual({ status: 'sent', attempts: 1 });
    const again = await museum.rest('POST', `/tickets/${bought.body.ticketId}/resend`);
    expect(again.status).toBe(202);
    const [, copy] = await mailsArrive(email, 2);
    expect(qrImages(copy!.parsed).map((image) => readQrCode(image.content))).toEqual([
      bought.body.confirmationCode,
    ]);
    const byStaff = await museum.graphql(
      'mutation($ticketId: UUID!) { resendTicket(ticketId: $ticketId) { status } }',
      { ticketId: bought.body.ticketId },
      { as: 'staff' },
    );
    expect(byStaff.body.data.resendTicket).toEqual({ status: 'pending' });
    expect(
      (await museum.rest('POST', `/tickets/${bought.body.ticketId}/resend`, { as: 'other' })).status,
    ).toBe(404);
    expect((await museum.rest('DELETE', `/tickets/${bought.body.ticketId}`)).status).toBe(204);
    expect((await museum.rest('POST', `/tickets/${bought.body.ticketId}/resend`)).status).toBe(409);
  });

  it("sends a ticket of an order again as its order's mail, counted against the order's limit", async () => {
    const email = newAddress();
    const orderId = await placeFor(email);
    await mailsArrive(email, 1);
    const order = await museum.rest('GET', `/orders/${orderId}`);
    const ticketId = order.body.tickets[0].ticketId;
    expect((await museum.rest('POST', `/tickets/${ticketId}/resend`)).status).toBe(202);
    const [, copy] = await mailsArrive(email, 2);
    expect(copy!.parsed.text).toContain(`order ${orderId}`);
    const [row] = await museum.deps.db.sql.query(
      statement<{ copies: number }, [orderId: string]>(
        'test_order_copies',
        'select count(*)::int as copies from mail where order_id = $1::uuid and resent',
      ),
      [orderId],
    );
    expect(row!.copies).toBe(1);
  });
});

describe('the sending rate', () => {
  it('sends at most MAIL_RATE_PER_SECOND mails a second, however fast tickets sell, and then all of them', async () => {
    const slow = await startMuseum({ ...smtpEnv(smtp), MAIL_RATE_PER_SECOND: '2' });
    try {
      const addresses = Array.from({ length: 6 }, () => newAddress());
      const sold = await Promise.all(
        addresses.map((email, n) =>
          slow.rest('POST', '/tickets', {
            body: { ticketType: 'general', ticketDate: upcoming([2], 6 + n), email },
          }),
        ),
      );
      expect(sold.map((response) => response.status)).toEqual(addresses.map(() => 201));
      // Those still waiting for the rate owe their mail, not yet attempted; the backlog counts them.
      const waiting = await Promise.all(
        sold.map(async (response) => {
          const read = await slow.graphql(TICKET_DELIVERY, { ticketId: response.body.ticketId });
          return read.body.data.ticket.emailDelivery;
        }),
      );
      const notYetTried = waiting.filter((delivery) => delivery?.attempts === 0);
      expect(notYetTried.length).toBeGreaterThanOrEqual(2);
      for (const delivery of notYetTried) expect(delivery).toEqual({ status: 'pending', attempts: 0 });
      const backlog = (await (await slow.fetch('http://museum.test/metrics')).text()).match(
        /^museum_mail_pending (\d+)$/m,
      );
      expect(Number(backlog?.[1])).toBeGreaterThanOrEqual(1);
      const arrived = new Map<string, number>();
      await eventually(async () => {
        for (const email of addresses)
          if (mailsTo(email).length > 0 && !arrived.has(email)) arrived.set(email, Date.now());
        return arrived.size === addresses.length;
      }, 15_000);
      // At two a second, the fifth and sixth mails begin at least two seconds after the first two.
      const times = [...arrived.values()].sort((a, b) => a - b);
      expect(times[5]! - times[0]!).toBeGreaterThanOrEqual(1_900);
      for (const email of addresses) expect(mailsTo(email)).toHaveLength(1);
    } finally {
      await slow.close();
    }
  });
});

describe('in a rush of requests', () => {
  it('sends one mail a second while the instance answers 200 requests a second or more, and the rest after', async () => {
    const rush = await startMuseum(smtpEnv(smtp));
    let rushing = true;
    const load = (async () => {
      while (rushing) {
        await Promise.all(Array.from({ length: 20 }, () => rush.request('GET', '/health/live')));
        // In process, an answer can come without leaving the microtask queue: let timers (and mail) run.
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      const addresses = Array.from({ length: 5 }, () => newAddress());
      const sold = await Promise.all(
        addresses.map((email, n) =>
          rush.rest('POST', '/tickets', {
            body: { ticketType: 'general', ticketDate: upcoming([3], 6 + n), email },
          }),
        ),
      );
      expect(sold.map((response) => response.status)).toEqual(addresses.map(() => 201));
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      // At ten a second (MAIL_RATE_PER_SECOND) all five would be out by now; at one a second, three at most.
      const duringTheRush = addresses.filter((address) => mailsTo(address).length > 0).length;
      rushing = false;
      await load;
      expect(duringTheRush).toBeGreaterThanOrEqual(1);
      expect(duringTheRush).toBeLessThanOrEqual(3);
      for (const address of addresses) await mailsArrive(address, 1, 10_000);
      for (const address of addresses) expect(mailsTo(address)).toHaveLength(1);
    } finally {
      rushing = false;
      await load;
      await rush.close();
    }
  });
});

describe('configuration', () => {
  it('names each bad mail setting in one line, never repeating a password', () => {
    expect(() => loadConfig({ SMTP_URL: 'smtp://relay:s3cret-pw@127.0.0.1:25' })).toThrow(
      'MAIL_FROM must be set with SMTP_URL',
    );
    for (const [name, value, said] of [
      ['SMTP_URL', 'http://relay:s3cret-pw@127.0.0.1:25', 'SMTP_URL must be an smtp:// or smtps:// URL'],
      ['MAIL_FROM', 'not an address', 'MAIL_FROM must be an e-mail address'],
      ['MAIL_RATE_PER_SECOND', '0', 'MAIL_RATE_PER_SECOND must be 1 to 1000'],
      ['MAIL_RETRY_SCHEDULE', 'soon', 'MAIL_RETRY_SCHEDULE must be comma-separated seconds'],
      ['MUSEUM_NAME', 'x'.repeat(101), 'MUSEUM_NAME must be at most 100 characters'],
    ] as const) {
      let message = '';
      try {
        loadConfig({ MAIL_FROM: 'tickets@museum.example', [name]: value });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toContain(said);
      expect(message).not.toContain('s3cret-pw');
    }
    const config = loadConfig({ SMTP_URL: smtp.url, MAIL_FROM: 'tickets@museum.example' });
    expect(config.mail).toMatchObject({ museumName: 'The Museum', ratePerSecond: 10 });
    expect(config.mail.transport).toEqual({ kind: 'smtp', url: smtp.url });
  });
});

describe('privacy of the mail', () => {
  it('writes no address and no SMTP credential in any log line, at debug level', async () => {
    expect(logged.length).toBeGreaterThan(10);
    const text = logged.join('\n');
    for (const address of used) expect(text).not.toContain(address);
    expect(text).not.toContain(SMTP_PASSWORD);
    expect(text).toMatch(/mail to buyers: SMTP at smtp:\/\/127\.0\.0\.1:\d+/);
  });
});
