import type { Principal } from '../accounts/authenticator.ts';
import { addDays } from '../common/dates.ts';
import { conflict } from '../common/errors.ts';
import type { Queryable, Sql } from '../db/sql.ts';
import type { PrivacyRequestKind, Requester } from './privacy.entity.ts';
import {
  CLAIM_RETENTION_DAY,
  DELETE_ACCOUNT,
  ERASE_ACCOUNT_DATA,
  ERASE_BEFORE,
  ERASE_EMAIL,
  type Erased,
  HOLD_MAIL_QUEUE,
  type PrivacyCounts,
  type PrivacyRequestView,
  RECORD_RETENTION,
  STAFF_LEFT,
  WITHOUT_STATEMENT_TIMEOUT,
} from './privacy.queries.ts';
import { recordRequest, subjectHash } from './privacy.requests.ts';

const countsOf = ({ mailIds: _mailIds, ...erased }: Erased, accounts = 0): PrivacyCounts => ({
  ...erased,
  accounts,
});

/** What an erasure also removes outside the database: the `.eml` copies of the mails it touched. */
export type ForgetMails = (mailIds: string[]) => Promise<void>;

/**
 * One erasure in one transaction: `erase` clears the subject's data (and may refuse), its counts are recorded
 * as `kind`; then the mails' copies outside the database go.
 */
async function eraseAndRecord(
  sql: Sql,
  kind: PrivacyRequestKind,
  by: { requestedBy: Requester; accountId: string | null },
  hash: string,
  forgetMails: ForgetMails,
  erase: (tx: Queryable) => Promise<{ erased: Erased; accounts: number }>,
): Promise<PrivacyRequestView> {
  const { recorded, mailIds } = await sql.transaction(async (tx) => {
    await tx.query(HOLD_MAIL_QUEUE, []);
    const { erased, accounts } = await erase(tx);
    const recorded = await recordRequest(tx, kind, by, hash, countsOf(erased, accounts));
    return { recorded, mailIds: erased.mailIds };
  });
  await forgetMails(mailIds);
  return recorded;
}

/** Staff's erasure of an address, all or nothing, recorded; a second one answers zeros. */
export async function eraseBuyerData(
  sql: Sql,
  configuredKey: string | null,
  staff: Principal,
  email: string,
  forgetMails: ForgetMails,
): Promise<PrivacyRequestView> {
  const hash = await subjectHash(sql, configuredKey, email);
  return eraseAndRecord(
    sql,
    'erasure',
    { requestedBy: 'staff', accountId: staff.id },
    hash,
    forgetMails,
    async (tx) => {
      const [erased] = await tx.query(ERASE_EMAIL, [email]);
      return { erased: erased!, accounts: 0 };
    },
  );
}

/**
 * An account holder deletes their account and its personal data (the tickets stay, and valid ones admit);
 * the last staff account cannot go. Recorded under a hash of the account's name.
 */
export async function deleteMyAccount(
  sql: Sql,
  configuredKey: string | null,
  me: Principal,
  forgetMails: ForgetMails,
): Promise<PrivacyRequestView> {
  const hash = await subjectHash(sql, configuredKey, me.name);
  const by = { requestedBy: 'account_holder', accountId: me.id } as const;
  return eraseAndRecord(sql, 'account_deletion', by, hash, forgetMails, async (tx) => {
    if (me.role === 'staff') {
      const [left] = await tx.query(STAFF_LEFT, [me.id]);
      if (left!.count === 0) throw conflict('The last staff account cannot be deleted');
    }
    const [erased] = await tx.query(ERASE_ACCOUNT_DATA, [me.id]);
    await tx.query(DELETE_ACCOUNT, [me.id]);
    return { erased: erased!, accounts: 1 };
  });
}

/**
 * Erases the personal data of visits more than `retentionDays` before `today` (the museum's), once a day
 * across instances; null when today's run was made already.
 */
export async function runRetention(
  sql: Sql,
  today: string,
  retentionDays: number,
  forgetMails: ForgetMails,
): Promise<PrivacyRequestView | null> {
  const done = await sql.transaction(async (tx) => {
    const [claimed] = await tx.query(CLAIM_RETENTION_DAY, [today]);
    if (!claimed) return null;
    await tx.query(WITHOUT_STATEMENT_TIMEOUT, []);
    await tx.query(HOLD_MAIL_QUEUE, []);
    const [erased] = await tx.query(ERASE_BEFORE, [addDays(today, -retentionDays)]);
    const [recorded] = await tx.query(RECORD_RETENTION, [
      claimed.id,
      erased!.orders,
      erased!.tickets,
      erased!.mails,
    ]);
    return { recorded: recorded!, mailIds: erased!.mailIds };
  });
  if (!done) return null;
  await forgetMails(done.mailIds);
  return done.recorded;
}
