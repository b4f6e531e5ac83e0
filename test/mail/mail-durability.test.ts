// Mail that survives (issue 38), with server processes: the embedded default writes each mail as an .eml file
// a newcomer can open, and says so once at start-up; a kill -9 while the SMTP server holds a mail loses
// nothing: the next process sends it once the dead one's lease has run out (moved here, as a clock would).
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/db/database.ts';
import { statement } from '../../src/db/sql.ts';
import { onPostgres } from '../support/instances.ts';
import { basic, ownDatabase, STAFF, upcomingOpenDay } from '../support/museum.ts';
import { eventually } from '../support/receiver.ts';
import { logLines, spawnServer } from '../support/server.ts';
import { qrImages, readQrCode, smtpEnv, startSmtpCatcher } from '../support/smtp.ts';

const staff = { authorization: basic(STAFF.name, STAFF.password), 'content-type': 'application/json' };
const admin = { MUSEUM_ADMIN_USER: STAFF.name, MUSEUM_ADMIN_PASSWORD: STAFF.password };

const buy = (url: string, email: string) =>
  fetch(`${url}/tickets`, {
    method: 'POST',
    headers: staff,
    body: JSON.stringify({ ticketType: 'general', ticketDate: upcomingOpenDay(1), email }),
  });

// The embedded default is one set-up, whatever database the run is for.
it.skipIf(onPostgres)(
  'writes each mail as an .eml file under MUSEUM_DATA_DIR/mail without SMTP_URL, and says so once',
  async () => {
    // The embedded default: a data directory and no DATABASE_URL.
    const dataDir = await mkdtemp(join(tmpdir(), 'museum-eml-'));
    const server = await spawnServer({ MUSEUM_DATA_DIR: dataDir, ...admin });
    try {
      const bought = await buy(server.url, 'newcomer@example.com');
      expect(bought.status).toBe(201);
      const { confirmationCode } = (await bought.json()) as { confirmationCode: string };
      const mailDir = join(dataDir, 'mail');
      const [file] = await eventually(async () => {
        const files = await readdir(mailDir).catch(() => []);
        return files.filter((name) => name.endsWith('.eml')).length > 0 && files;
      });
      const parsed = await simpleParser(await readFile(join(mailDir, file!)));
      expect(parsed.to && 'text' in parsed.to ? parsed.to.text : '').toBe('newcomer@example.com');
      expect(parsed.subject).toBe('Your ticket for The Museum');
      expect(qrImages(parsed).map((image) => readQrCode(image.content))).toEqual([confirmationCode]);
      const said = logLines(server).filter((line) => String(line.message).startsWith('mail to buyers'));
      expect(said).toEqual([
        expect.objectContaining({ message: `mail to buyers: .eml files in ${mailDir} (no SMTP_URL)` }),
      ]);
    } finally {
      await server.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  },
);

const END_LEASE = statement(
  'test_end_mail_lease',
  "update mail set next_attempt_at = now() where status = 'pending'",
);

it('sends a mail held by the SMTP server when the process was killed (kill -9): once more, never lost', async () => {
  const smtp = await startSmtpCatcher();
  const database = await ownDatabase();
  const env = { ...database.env, ...smtpEnv(smtp), ...admin };
  const email = 'kept@example.com';
  try {
    // The server takes the whole mail and answers only after the process is gone.
    smtp.behave({ answer: 'slowly', ms: 4_000 });
    const first = await spawnServer(env);
    try {
      expect((await buy(first.url, email)).status).toBe(201);
      await eventually(async () => smtp.dataReceived > 0);
    } finally {
      first.child.kill('SIGKILL');
      await first.exited;
    }
    smtp.behave({ answer: 'accept' });
    // The dead process's lease (90 s) runs out now.
    const db = await openDatabase(loadConfig({ ...env, LOG_LEVEL: 'silent' }).database);
    try {
      await db.sql.query(END_LEASE, []);
    } finally {
      await db.close();
    }
    const restarted = await spawnServer(env);
    try {
      await eventually(
        async () => smtp.received.filter((mail) => mail.to.includes(email)).length > 0,
        20_000,
      );
      const [row] = await eventually(async () => {
        const read = await fetch(`${restarted.url}/metrics`);
        return /museum_mails_total\{kind="tickets",outcome="sent"\} 1/.test(await read.text()) && [true];
      });
      expect(row).toBe(true);
    } finally {
      await restarted.stop();
    }
    // Sent again at most once: by the dead process's SMTP session, which the server completed, and the new one.
    const copies = smtp.received.filter((mail) => mail.to.includes(email));
    expect(copies.length).toBeGreaterThanOrEqual(1);
    expect(copies.length).toBeLessThanOrEqual(2);
    expect(new Set(copies.map((mail) => mail.parsed.messageId)).size).toBe(1);
  } finally {
    await database.drop();
    await smtp.close();
  }
}, 90_000);
