import { createEvents, type EventAttributes } from 'ics';
import type { SendMailOptions } from 'nodemailer';
import { instantIn } from '../common/dates.ts';
import { admissionCodePng } from '../common/qr-code.ts';
import { escapeHtml } from '../common/text.ts';
import type { DueMail, MailTicket } from './mail.queries.ts';

/** What every mail says of the museum, and how it signs. */
export interface MailSettings {
  museumName: string;
  /** MAIL_FROM: the sender's address. */
  from: string;
  timeZone: string;
  currency: string;
}

/** What a mail says, once for its plain-text part and once for its HTML part. */
interface Content {
  subject: string;
  /** Paragraphs. */
  lead: string[];
  /** The tickets it tells of, with their QR codes (the tickets mail) or without. */
  tickets: MailTicket[];
  withCodes: boolean;
}

const CODE_CID = (ticketId: string) => `ticket-${ticketId}@museum`;

function contentOf(mail: DueMail, tickets: MailTicket[], settings: MailSettings): Content {
  const { museumName } = settings;
  const orderLine = mail.orderId ? ` (order ${mail.orderId})` : '';
  switch (mail.kind) {
    case 'tickets': {
      const valid = tickets.filter((ticket) => !ticket.cancelled);
      return {
        subject: `Your ${valid.length === 1 ? 'ticket' : `${valid.length} tickets`} for ${museumName}`,
        lead: [
          `Thank you for your purchase${orderLine}. Show the QR code of each ticket at the entrance; the calendar entry attached holds the date and time of your visit.`,
        ],
        tickets: valid,
        withCodes: true,
      };
    }
    case 'cancellation':
      if (tickets.some((ticket) => ticket.calledOff)) return calledOff(mail, tickets, settings);
      return {
        subject: `${museumName}: your tickets were cancelled`,
        lead: [
          `The tickets below${orderLine} were cancelled and no longer admit anyone. Whatever was paid for them is refunded to the card that paid; another mail confirms the refund once it is made.`,
        ],
        tickets,
        withCodes: false,
      };
    case 'expired':
      return {
        subject: `${museumName}: your reservation expired`,
        lead: [
          `Your order${orderLine} was not paid in time, so its tickets were released. Nothing was charged. You are welcome to order again.`,
        ],
        tickets,
        withCodes: false,
      };
    case 'refund':
      return {
        subject: `${museumName}: your refund of ${money(mail.amount ?? 0, settings.currency)}`,
        lead: [
          `We refunded ${money(mail.amount ?? 0, settings.currency)}${orderLine} to the card that paid. Depending on your bank, it shows on your statement within 5 to 10 days.`,
        ],
        tickets,
        withCodes: false,
      };
  }
}

/**
 * The museum called the tickets off (an event deleted, a date dropped or closed, or staff): what, why, and
 * what happens to the money — refunded when paid, nothing charged while the order waited for payment.
 */
function calledOff(mail: DueMail, tickets: MailTicket[], settings: MailSettings): Content {
  const orderLine = mail.orderId ? ` (order ${mail.orderId})` : '';
  const reason = tickets.find((ticket) => ticket.cancellationReason)?.cancellationReason;
  const refunded = tickets.filter((ticket) => ticket.paid).reduce((sum, ticket) => sum + ticket.price, 0);
  const pending = tickets.find((ticket) => ticket.orderPending);
  const lead = [
    `We are sorry: the museum had to call off the ${tickets.length === 1 ? 'ticket' : 'tickets'} below${orderLine}. ${tickets.length === 1 ? 'It no longer admits' : 'They no longer admit'} anyone.`,
    reason ? `The reason: ${reason}` : 'The museum gave no further reason.',
  ];
  if (refunded > 0)
    lead.push(
      `We refund ${money(refunded, settings.currency)} to the card that paid; another mail confirms the refund once it is made.`,
    );
  else if (tickets.some((ticket) => ticket.awaitingPayment)) lead.push('Nothing was charged for them.');
  else lead.push('Nothing was paid for them online, so there is nothing to refund by card.');
  if (pending?.holdEndsAt)
    lead.push(
      `The rest of your order is still reserved for you until ${localInstant(pending.holdEndsAt, settings.timeZone)}. Its payment page now asks for the new total: open your order to pay it.`,
    );
  return {
    subject: `${settings.museumName}: your visit was called off`,
    lead,
    tickets,
    withCodes: false,
  };
}

const instantFormats = new Map<string, Intl.DateTimeFormat>();
/** An instant as the museum's clock shows it: `3 Jan 2031, 14:05`. */
function localInstant(instant: string, timeZone: string): string {
  let format = instantFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-GB', { timeZone, dateStyle: 'medium', timeStyle: 'short' });
    instantFormats.set(timeZone, format);
  }
  return format.format(new Date(instant));
}

// Intl's formatters are costly to make (a millisecond each): one per currency, made once.
const moneyFormats = new Map<string, Intl.NumberFormat>();
const money = (minorUnits: number, currency: string) => {
  let format = moneyFormats.get(currency);
  if (!format) {
    format = new Intl.NumberFormat('en', { style: 'currency', currency });
    moneyFormats.set(currency, format);
  }
  return format.format(minorUnits / 100);
};

const LONG_DATE = new Intl.DateTimeFormat('en-GB', {
  weekday: 'long',
  day: 'numeric',
  month: 'long',
  year: 'numeric',
  timeZone: 'UTC',
});
const longDate = (date: string) => LONG_DATE.format(new Date(`${date}T00:00:00Z`));

/** When a ticket admits: its entry slot, else the museum's hours that day. */
function visitTimes(ticket: MailTicket): { start: string; end: string } | null {
  if (ticket.entryTime && ticket.entryEnd) return { start: ticket.entryTime, end: ticket.entryEnd };
  if (ticket.timeOpen && ticket.timeClose) return { start: ticket.timeOpen, end: ticket.timeClose };
  return null;
}

function describe(ticket: MailTicket, settings: MailSettings): string[] {
  const times = visitTimes(ticket);
  const when = `${longDate(ticket.ticketDate)}${
    ticket.entryTime ? `, entry at ${ticket.entryTime}` : times ? `, open ${times.start}–${times.end}` : ''
  }`;
  return [
    ticket.eventName ?? 'General admission',
    when,
    `${ticket.category}, ${money(ticket.price, settings.currency)}`,
    `Confirmation code ${ticket.confirmationCode}${ticket.cancelled ? ' (cancelled)' : ''}`,
  ];
}

function plainText(content: Content, settings: MailSettings): string {
  const blocks = [
    ...content.lead,
    ...content.tickets.map((ticket) => describe(ticket, settings).join('\n')),
    settings.museumName,
  ];
  return `${blocks.join('\n\n')}\n`;
}

function html(content: Content, settings: MailSettings): string {
  const name = escapeHtml(settings.museumName);
  const cards = content.tickets.map((ticket) => {
    const [title, ...lines] = describe(ticket, settings).map(escapeHtml);
    const code = content.withCodes
      ? `<img src="cid:${CODE_CID(ticket.ticketId)}" width="200" height="200" alt="QR code of ticket ${escapeHtml(ticket.confirmationCode)}" style="display:block;margin:12px 0 0">`
      : '';
    return `<div style="border:1px solid #d0d0d0;border-radius:8px;padding:16px;margin:16px 0">
<h2 style="font-size:18px;margin:0 0 8px">${title}</h2>
${lines.map((line) => `<p style="margin:4px 0">${line}</p>`).join('\n')}
${code}
</div>`;
  });
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(content.subject)}</title></head>
<body style="margin:0;padding:24px;background:#f6f6f4;font-family:Helvetica,Arial,sans-serif;color:#1d1d1b">
<div style="max-width:560px;margin:0 auto;background:#ffffff;padding:24px;border-radius:8px">
<h1 style="font-size:22px;margin:0 0 16px">${name}</h1>
${content.lead.map((paragraph) => `<p style="line-height:1.5">${escapeHtml(paragraph)}</p>`).join('\n')}
${cards.join('\n')}
<p style="color:#6b6b6b;font-size:13px">${name}</p>
</div>
</body>
</html>
`;
}

/** One calendar event per visit (a date, its time and what is seen), in UTC instants of the museum's zone. */
function calendar(mail: DueMail, tickets: MailTicket[], settings: MailSettings): string | null {
  const visits = new Map<string, EventAttributes>();
  for (const ticket of tickets) {
    const times = visitTimes(ticket);
    if (!times) continue;
    const key = `${ticket.ticketDate} ${times.start} ${ticket.eventName ?? ''}`;
    if (visits.has(key)) continue;
    visits.set(key, {
      uid: `${mail.id}-${visits.size + 1}@museum`,
      title: ticket.eventName
        ? `${ticket.eventName} — ${settings.museumName}`
        : `Visit to ${settings.museumName}`,
      location: settings.museumName,
      start: instantIn(settings.timeZone, ticket.ticketDate, times.start).getTime(),
      startInputType: 'utc',
      startOutputType: 'utc',
      end: instantIn(settings.timeZone, ticket.ticketDate, times.end).getTime(),
      endInputType: 'utc',
      endOutputType: 'utc',
      status: 'CONFIRMED',
      productId: 'museum-api',
    });
  }
  if (visits.size === 0) return null;
  const { error, value } = createEvents([...visits.values()], { method: 'PUBLISH' });
  if (error || !value) throw error ?? new Error('the calendar entry could not be written');
  return value;
}

/** The message of a mail from the outbox, rendered from its tickets as they are now. */
export async function composeMail(
  mail: DueMail & { recipient: string },
  tickets: MailTicket[],
  settings: MailSettings,
): Promise<SendMailOptions> {
  const content = contentOf(mail, tickets, settings);
  const attachments: NonNullable<SendMailOptions['attachments']> = [];
  if (content.withCodes) {
    for (const ticket of content.tickets)
      attachments.push({
        filename: `ticket-${ticket.confirmationCode}.png`,
        content: await admissionCodePng(ticket.confirmationCode),
        contentType: 'image/png',
        cid: CODE_CID(ticket.ticketId),
      });
    const ics = calendar(mail, content.tickets, settings);
    if (ics)
      attachments.push({
        filename: 'visit.ics',
        content: ics,
        contentType: 'text/calendar; charset=utf-8; method=PUBLISH',
      });
  }
  const domain = settings.from.split('@')[1]?.replace(/[>\s]/g, '') || 'museum.invalid';
  return {
    from: { name: settings.museumName, address: settings.from },
    to: mail.recipient,
    subject: content.subject,
    text: plainText(content, settings),
    html: html(content, settings),
    attachments,
    // The same id on every attempt: a mail client shows a copy sent twice (after a crash mid-send) once.
    messageId: `<${mail.id}@${domain}>`,
  };
}
