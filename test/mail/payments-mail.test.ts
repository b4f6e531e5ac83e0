// The mails of a paid visit (issues 37 and 38): a pending order is mailed nothing until Stripe says it is paid,
// then its tickets; a hold that runs out sends "expired"; a paid order cancelled sends the cancellation, then the
// refund once Stripe made it. Against the Stripe look-alike and a real SMTP server, each in this process.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { placedOrder } from '../support/actions.ts';
import { upcoming } from '../support/museum.ts';
import { endHold, paidEvent, sendStripeEvent, usePaidMuseum } from '../support/payments.ts';
import { eventually } from '../support/receiver.ts';
import { qrImages, readQrCode, type SmtpCatcher, smtpEnv, startSmtpCatcher } from '../support/smtp.ts';

let smtp: SmtpCatcher | undefined;
const catcher = () => smtp!;
beforeAll(async () => {
  smtp = await startSmtpCatcher();
});
afterAll(() => smtp?.close());
// The museum's variables are read in its beforeAll, after the catcher has started.
const { museum, stripe } = usePaidMuseum(() => smtpEnv(catcher()));

let mailbox = 0;
const newAddress = () => `payer-${++mailbox}-${Date.now()}@example.com`;
const mailsTo = (address: string) => catcher().received.filter((mail) => mail.to.includes(address));
const mailsArrive = (address: string, count: number) =>
  eventually(async () => mailsTo(address).length >= count && mailsTo(address), 15_000);

async function placePending(email: string, day = upcoming([2, 3, 4], mailbox)) {
  const placed = await placedOrder(museum, {
    email,
    lines: [{ ticketType: 'general', ticketDate: day, quantity: 2 }],
  });
  expect(placed.status).toBe('pending');
  return placed;
}

const pay = (orderId: string) => sendStripeEvent(museum, paidEvent(stripe, orderId));

describe('mails of a paid visit', () => {
  it('sends the tickets once the order is paid, not while it waits for payment', async () => {
    const email = newAddress();
    const order = await placePending(email);
    const pending = await museum.rest('GET', `/orders/${order.orderId}`);
    expect(pending.body.emailDelivery).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(mailsTo(email)).toHaveLength(0);
    const paid = paidEvent(stripe, order.orderId);
    expect((await sendStripeEvent(museum, paid)).status).toBe(200);
    const [mail] = await mailsArrive(email, 1);
    expect(
      qrImages(mail!.parsed)
        .map((image) => readQrCode(image.content))
        .sort(),
    ).toEqual(order.tickets.map((ticket) => ticket.confirmationCode).sort());
    // Stripe sends the event again: nothing more is mailed.
    expect((await sendStripeEvent(museum, paid)).body.outcome).toBe('replayed');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(mailsTo(email)).toHaveLength(1);
  });

  it('tells the buyer when the hold ran out, and sends no tickets', async () => {
    const email = newAddress();
    const order = await placePending(email);
    await endHold(museum, order.orderId);
    museum.deps.payments!.wake();
    const [mail] = await mailsArrive(email, 1);
    expect(mail!.parsed.subject).toBe('Museum of Testing: your reservation expired');
    expect(mail!.parsed.text).toContain('Nothing was charged');
    expect(qrImages(mail!.parsed)).toHaveLength(0);
  });

  it('sends the cancellation of a paid order, then its refund once Stripe made it', async () => {
    const email = newAddress();
    const order = await placePending(email);
    await pay(order.orderId);
    await mailsArrive(email, 1);
    expect((await museum.rest('DELETE', `/orders/${order.orderId}`)).status).toBe(204);
    const mails = await mailsArrive(email, 3);
    const subjects = mails.map((mail) => mail.parsed.subject);
    expect(subjects).toContain('Museum of Testing: your tickets were cancelled');
    const refund = mails.find((mail) => mail.parsed.subject?.includes('refund'));
    expect(refund?.parsed.subject).toBe('Museum of Testing: your refund of €40.00');
    expect(refund?.parsed.text).toContain(`order ${order.orderId}`);
  });
});
