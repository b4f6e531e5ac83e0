import { workerLoop } from '../common/worker-loop.ts';
import type { Sql } from '../db/sql.ts';
import type { Logger } from '../logger.ts';
import { composeMail, type MailSettings } from './compose.ts';
import type { MailKind } from './mail.entity.ts';
import type { DueMail } from './mail.queries.ts';
import { mailTickets } from './mail.service.ts';
import { nextMailInSeconds, queueOwedMail, recordMail, takeDueMail } from './outbox.ts';
import { MailRefused, type MailTransport, withoutAddresses } from './transport.ts';

/** What the mail worker counts, when metrics are on. */
export type MailCounts = (kind: MailKind, outcome: 'sent' | 'failed' | 'retry') => void;

/**
 * A mail taken is left to its worker this long (a send gives up after 10 s to connect, 10 s for the greeting
 * and 30 s of silence); then anyone's, after a crash. A crash mid-send may so send a mail twice, never lose it.
 */
const LEASE_SECONDS = 90;
/** A mail the server keeps refusing for a passing reason (4xx, or unreachable) is given up after 3 days. */
const GIVE_UP_MS = 3 * 86_400_000;
/** Other instances' mail (a crashed one's) is found this often even without being told. */
const SAFETY_POLL_MS = 30_000;

export interface Mailer {
  /** A mail was queued (its transaction committed): send it soon. */
  wake(): void;
  /** Counts into the app's metrics from now on. */
  observe(counts: MailCounts): void;
  close(): Promise<void>;
}

/**
 * The mail worker of an instance: takes due mails from the outbox (rows another instance holds are skipped),
 * renders each from its tickets, hands it to the transport, and records the outcome: sent; given up for a
 * permanent refusal (5xx) or after 3 days; else tried again after the next delay of `retrySchedule` (its
 * last delay repeating). At most `ratePerSecond` mails a second, as SMTP relays allow, and so that a rush of
 * sales does not spend its instance's one thread on drawing mails: they follow within seconds.
 */
export function createMailer(options: {
  sql: Sql;
  transport: MailTransport;
  settings: MailSettings;
  logger: Logger;
  retrySchedule: number[];
  ratePerSecond: number;
  /** Whether the instance is in a rush of requests: then one mail a second at most, the rest after it. */
  busy?: () => boolean;
}): Mailer {
  const { sql, transport, settings, logger, retrySchedule, ratePerSecond } = options;
  let counts: MailCounts | undefined;
  /** When each of the sends of the last second began, oldest first: at most `ratePerSecond` of them. */
  const recentSends: number[] = [];
  /** Mails that may be sent now without passing the rate. */
  const allowance = (now: number) => {
    while (recentSends.length > 0 && recentSends[0]! <= now - 1000) recentSends.shift();
    return Math.max(0, (options.busy?.() ? 1 : ratePerSecond) - recentSends.length);
  };
  /** Milliseconds until the oldest send of the last second leaves it. */
  const untilAllowed = (now: number) => recentSends[0]! + 1000 - now;
  const loop = workerLoop({ round, logger, name: 'mail worker', pollMs: SAFETY_POLL_MS });

  async function send(mail: DueMail): Promise<void> {
    const failed = async (error: string) => {
      counts?.(mail.kind, 'failed');
      logger.error('a mail was given up', { mailId: mail.id, kind: mail.kind, reason: error });
      await recordMail(sql, mail.id, { status: 'failed', error });
    };
    if (mail.recipient === null) {
      await recordMail(sql, mail.id, { status: 'failed', error: 'the address was erased' });
      return;
    }
    try {
      const tickets = await mailTickets(sql, mail.ticketIds);
      await transport.send(await composeMail({ ...mail, recipient: mail.recipient }, tickets, settings));
    } catch (error) {
      const said = withoutAddresses(String((error as Error).message ?? error));
      if (error instanceof MailRefused) return failed(said);
      if (Date.now() - Date.parse(mail.createdAt) > GIVE_UP_MS) return failed(`for 3 days: ${said}`);
      const retryInSeconds = retrySchedule[Math.min(mail.attempts, retrySchedule.length) - 1] ?? 3600;
      await recordMail(sql, mail.id, { status: 'pending', error: said, retryInSeconds });
      counts?.(mail.kind, 'retry');
      logger.warn('a mail was not sent; trying again', { mailId: mail.id, retryInSeconds, reason: said });
      return;
    }
    await recordMail(sql, mail.id, { status: 'sent' });
    counts?.(mail.kind, 'sent');
    logger.info('mail sent', { mailId: mail.id, kind: mail.kind });
  }

  async function round(): Promise<number | null> {
    const free = allowance(Date.now());
    if (free === 0) return untilAllowed(Date.now());
    // Owed mails become rows as fast as they are sent, not faster: a rush of sales pays for no second write.
    await queueOwedMail(sql, free);
    const due = await takeDueMail(sql, free, LEASE_SECONDS);
    // One at a time: a mail's QR codes take a few milliseconds of this process's one thread to draw.
    for (const mail of due) {
      if (loop.closed) break;
      recentSends.push(Date.now());
      await send(mail);
    }
    // More may be due: look again as soon as the rate allows.
    if (due.length === free) return allowance(Date.now()) > 0 ? 0 : untilAllowed(Date.now());
    const next = await nextMailInSeconds(sql);
    return next === null ? null : Math.max(0, next * 1000);
  }

  // Mail left by a stop or a crash goes out at start.
  loop.wake();
  return {
    wake() {
      // A sale rush wakes the worker with every ticket: while the rate is used up, its timer is enough.
      if (allowance(Date.now()) > 0) loop.wake();
    },
    observe(observer) {
      counts = observer;
    },
    async close() {
      await loop.close();
      transport.close();
    },
  };
}
