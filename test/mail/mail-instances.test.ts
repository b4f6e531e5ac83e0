// Two instances over one PostgreSQL send each mail once (issue 38): sales spread over both, each instance's
// mail worker takes due mails with `for update skip locked` and a lease, so no mail is sent twice or lost.
// (On the embedded database: one instance, which is one session.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statement } from '../../src/db/sql.ts';
import { instancesTitle, useTwoInstances } from '../support/instances.ts';
import { upcomingOpenDay } from '../support/museum.ts';
import { eventually } from '../support/receiver.ts';
import { type SmtpCatcher, smtpEnv, startSmtpCatcher } from '../support/smtp.ts';

let smtp: SmtpCatcher | undefined;
beforeAll(async () => {
  smtp = await startSmtpCatcher();
});
afterAll(() => smtp?.close());
const instances = useTwoInstances(() => ({ ...smtpEnv(smtp!), MAIL_RATE_PER_SECOND: '1000' }));

describe(`mail on ${instancesTitle}`, () => {
  it('sends each of 30 sales’ mails exactly once', async () => {
    const addresses = Array.from({ length: 30 }, (_, i) => `once-${i}-${Date.now()}@example.com`);
    const sold = await Promise.all(
      addresses.map((email, n) =>
        instances.send(n, 'POST', '/tickets', {
          body: { ticketType: 'general', ticketDate: upcomingOpenDay(n % 5), email },
        }),
      ),
    );
    expect(sold.map((response) => response.status)).toEqual(addresses.map(() => 201));
    await eventually(
      async () => addresses.every((address) => smtp!.received.some((mail) => mail.to.includes(address))),
      20_000,
    );
    // Long enough for a second instance to send one again, were it to.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    for (const address of addresses)
      expect(smtp!.received.filter((mail) => mail.to.includes(address))).toHaveLength(1);
    const [row] = await instances.museum.deps.db.sql.query(
      statement<{ sent: number; attempts: number }, [recipients: string[]]>(
        'test_mail_sent_once',
        `select count(*)::int as sent, sum(attempts)::int as attempts from mail
               where recipient = any($1::text[]) and status = 'sent'`,
      ),
      [addresses],
    );
    expect(row).toEqual({ sent: 30, attempts: 30 });
  });
});
