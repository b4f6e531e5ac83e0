import { mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SendMailOptions } from 'nodemailer';
import { withoutAddresses } from '../common/text.ts';

/** Where mail goes: an SMTP server, or `.eml` files to open (no SMTP_URL). */
export type MailTransportSettings = { kind: 'smtp'; url: string } | { kind: 'files'; dir: string };

/** A mail the server refused for good (5xx): trying again would get the same answer. */
export class MailRefused extends Error {}

export interface MailTransport {
  /** Hands the message over; throws MailRefused for a permanent refusal, anything else for a passing one. */
  send(message: SendMailOptions): Promise<void>;
  /** One line for start-up: where mail goes, without credentials. */
  readonly description: string;
  /** Removes what this transport keeps of these mails (the `.eml` files; SMTP keeps nothing). */
  forget(mailIds: string[]): Promise<void>;
  close(): void;
}

/** The suffix of a mail file being written. */
const PART = '.part';
/** At most this many `.eml` files are kept; the oldest go first. */
const KEPT_FILES = 1000;

// What an SMTP server or the connection said is stored and logged without the addresses it may repeat (a 550
// names the recipient).
export { withoutAddresses };

/** Nodemailer over SMTP, or into files; nodemailer is loaded only when the first mail is sent. */
export function mailTransport(settings: MailTransportSettings): MailTransport {
  return settings.kind === 'smtp' ? smtpTransport(settings.url) : fileTransport(settings.dir);
}

function smtpTransport(url: string): MailTransport {
  const shown = new URL(url);
  let transporter: Promise<import('nodemailer').Transporter> | undefined;
  const connect = () =>
    (transporter ??= import('nodemailer').then(({ default: nodemailer }) =>
      // STARTTLS whenever the server offers it (nodemailer's default), with its certificate checked.
      nodemailer.createTransport(url, {
        connectionTimeout: 10_000,
        greetingTimeout: 10_000,
        socketTimeout: 30_000,
      } as never),
    ));
  return {
    description: `SMTP at ${shown.protocol}//${shown.host}`,
    async send(message) {
      try {
        await (await connect()).sendMail(message);
      } catch (error) {
        const { responseCode, code } = error as { responseCode?: number; code?: string };
        const said = withoutAddresses(String((error as Error).message ?? error));
        // A 5xx is final, but for a login refused: the credentials are fixed, then the mail goes.
        if (responseCode !== undefined && responseCode >= 500 && code !== 'EAUTH')
          throw new MailRefused(said);
        throw new Error(said);
      }
    },
    async forget() {},
    close() {
      void transporter?.then((t) => t.close());
    },
  };
}

function fileTransport(dir: string): MailTransport {
  let written = 0;
  let composer: Promise<import('nodemailer').Transporter> | undefined;
  const compose = () =>
    (composer ??= import('nodemailer').then(({ default: nodemailer }) =>
      nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' }),
    ));
  async function prune() {
    const files = (await readdir(dir)).filter((name) => name.endsWith('.eml')).sort();
    await Promise.all(
      files
        .slice(0, Math.max(0, files.length - KEPT_FILES))
        .map((name) => rm(join(dir, name), { force: true })),
    );
  }
  return {
    description: `.eml files in ${dir} (no SMTP_URL)`,
    async send(message) {
      const info = (await (await compose()).sendMail(message)) as { message: Buffer };
      await mkdir(dir, { recursive: true });
      const id = String(message.messageId ?? '')
        .replace(/[<>]/g, '')
        .split('@')[0];
      // Named by when it was written, so a directory listing reads in order.
      const stamp = new Date().toISOString().replace(/[:.]/g, '-');
      // Written under another name, then renamed: whoever opens the folder sees whole mails only.
      const file = join(dir, `${stamp}-${id}.eml`);
      await writeFile(`${file}${PART}`, info.message);
      await rename(`${file}${PART}`, file);
      if (++written % 100 === 0) await prune();
    },
    async forget(mailIds) {
      if (mailIds.length === 0) return;
      const forgotten = new Set(mailIds);
      const files = await readdir(dir).catch(() => [] as string[]);
      // `<time>-<mail id>.eml`: the id is the last 36 characters before the extension. A part left by a
      // crash between writing and renaming holds the address too.
      const mailIdOf = (name: string) => name.replace(PART, '').slice(-40, -4);
      await Promise.all(
        files
          .filter((name) => /\.eml(\.part)?$/.test(name) && forgotten.has(mailIdOf(name)))
          .map((name) => rm(join(dir, name), { force: true })),
      );
    },
    close() {},
  };
}
