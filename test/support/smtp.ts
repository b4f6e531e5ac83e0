// A real SMTP server in the test process (the `smtp-server` package, on 127.0.0.1), as a museum's mail relay:
// what it received is read back with `mailparser`. It can be stopped and started again on its port (down for
// a while), answer "later" (4xx) or "never" (5xx), or take its time.
import type { AddressInfo } from 'node:net';
import jsqrModule from 'jsqr';
import { type ParsedMail, simpleParser } from 'mailparser';
import { PNG } from 'pngjs';
import { SMTPServer } from 'smtp-server';
import { eventually } from './receiver.ts';

export const SMTP_USER = 'museum-relay';
export const SMTP_PASSWORD = 'relay-secret-5b1e';

export interface ReceivedMail {
  raw: Buffer;
  parsed: ParsedMail;
  /** The recipients of the SMTP envelope. */
  to: string[];
}

/** What the server answers to DATA: take it, say "later" (451), say "never" (550), or take it after a pause. */
export type SmtpBehaviour =
  | { answer: 'accept' }
  | { answer: 'later'; times: number }
  | { answer: 'refuse' }
  | { answer: 'slowly'; ms: number };

export interface SmtpCatcher {
  /** SMTP_URL for the museum: with credentials, which the server checks. */
  readonly url: string;
  readonly received: ReceivedMail[];
  /** Logins the server accepted. */
  readonly logins: number;
  /** Messages whose DATA began, whatever the answer. */
  readonly dataReceived: number;
  behave(behaviour: SmtpBehaviour): void;
  /** Waits until `count` mails have arrived in all; answers them. */
  receivedAtLeast(count: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  /** Stops listening (connections are refused) until `start`. */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts the server on a free port of 127.0.0.1. With `startTls`, it offers STARTTLS with smtp-server's own
 * self-signed certificate, which a client that checks certificates refuses.
 */
export async function startSmtpCatcher(options: { startTls?: boolean } = {}): Promise<SmtpCatcher> {
  const received: ReceivedMail[] = [];
  let behaviour: SmtpBehaviour = { answer: 'accept' };
  let logins = 0;
  let dataReceived = 0;
  let port = 0;
  let server: SMTPServer | undefined;

  const make = () =>
    new SMTPServer({
      // Plain SMTP on 127.0.0.1 unless asked: without STARTTLS offered, nodemailer sends in the clear, as to a
      // local relay.
      disabledCommands: options.startTls ? [] : ['STARTTLS'],
      authMethods: ['PLAIN', 'LOGIN'],
      logger: false,
      onAuth(auth, _session, callback) {
        if (auth.username === SMTP_USER && auth.password === SMTP_PASSWORD) {
          logins += 1;
          return callback(null, { user: auth.username });
        }
        return callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
      },
      onData(stream, session, callback) {
        dataReceived += 1;
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', async () => {
          const current = behaviour;
          if (current.answer === 'later' && current.times > 0) {
            current.times -= 1;
            return callback(
              Object.assign(new Error(`Mailbox busy for ${session.envelope.rcptTo[0]?.address}, try later`), {
                responseCode: 451,
              }),
            );
          }
          if (current.answer === 'refuse')
            return callback(
              Object.assign(
                new Error(`<${session.envelope.rcptTo[0]?.address}>: Recipient address rejected`),
                {
                  responseCode: 550,
                },
              ),
            );
          if (current.answer === 'slowly') await new Promise((resolve) => setTimeout(resolve, current.ms));
          const raw = Buffer.concat(chunks);
          received.push({
            raw,
            // Image links stay `cid:` references to the parts, as a mail client resolves them.
            parsed: await simpleParser(raw, { skipImageLinks: true }),
            to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          });
          callback();
        });
      },
    });

  async function start() {
    server = make();
    await new Promise<void>((resolve, reject) => {
      server!.once('error', reject);
      server!.listen(port, '127.0.0.1', () => resolve());
    });
    port = (server.server.address() as AddressInfo).port;
  }
  const stop = () =>
    new Promise<void>((resolve) => {
      if (!server) return resolve();
      server.close(() => resolve());
      server = undefined;
    });

  await start();
  return {
    url: `smtp://${SMTP_USER}:${SMTP_PASSWORD}@127.0.0.1:${port}`,
    received,
    get logins() {
      return logins;
    },
    get dataReceived() {
      return dataReceived;
    },
    behave(next) {
      behaviour = next;
    },
    receivedAtLeast: (count, timeoutMs = 15_000) =>
      eventually(async () => received.length >= count && received, timeoutMs),
    stop,
    start,
    close: stop,
  };
}

/** The environment of a museum that sends its mail to `catcher`. */
export const smtpEnv = (catcher: SmtpCatcher): Record<string, string> => ({
  SMTP_URL: catcher.url,
  MAIL_FROM: 'tickets@museum.example',
  MUSEUM_NAME: 'Museum of Testing',
});

// jsqr is CommonJS with an ES-style default in its types.
const jsQR = (jsqrModule as unknown as { default?: typeof jsqrModule.default }).default ?? jsqrModule.default;

/** What the QR code in a PNG reads as (undefined: none found). */
export function readQrCode(png: Buffer): string | undefined {
  const image = PNG.sync.read(png);
  return jsQR(new Uint8ClampedArray(image.data), image.width, image.height)?.data;
}

/** The inline QR images of a mail, in the order of the mail. */
export const qrImages = (mail: ParsedMail) =>
  mail.attachments.filter((part) => part.contentType === 'image/png' && part.contentId);

/** The calendar part of a mail, as text (lines unfolded, as RFC 5545 folds them). */
export function calendarOf(mail: ParsedMail): string | undefined {
  const part = mail.attachments.find((attachment) => attachment.contentType === 'text/calendar');
  return part?.content.toString('utf8').replace(/\r?\n[ \t]/g, '');
}
