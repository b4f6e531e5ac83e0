import type { Principal } from '../accounts/authenticator.ts';
import type { Queryable, Sql } from '../db/sql.ts';
import { toTicketView } from '../tickets/ticket-view.ts';
import {
  ACCOUNT_ROW,
  BY_ACCOUNT,
  BY_EMAIL,
  type exportStatements,
  type PersonalData,
  REQUESTS_ABOUT,
} from './privacy.queries.ts';
import { recordRequest, subjectHash } from './privacy.requests.ts';

async function gather(
  tx: Queryable,
  statements: ReturnType<typeof exportStatements>,
  subject: string,
): Promise<Pick<PersonalData, 'orders' | 'tickets' | 'mails'>> {
  // One after another: a transaction is one connection, which runs one statement at a time (pg 8 queues a
  // second one sent meanwhile, with a warning; pg 9 refuses it).
  const orders = await tx.query(statements.orders, [subject]);
  const tickets = await tx.query(statements.tickets, [subject]);
  const mails = await tx.query(statements.mails, [subject]);
  return { orders, tickets: tickets.map((row) => ({ ...toTicketView(row), ...row })), mails };
}

const exportCounts = (data: Pick<PersonalData, 'orders' | 'tickets' | 'mails'>, accounts = 0) => ({
  orders: data.orders.length,
  tickets: data.tickets.length,
  mails: data.mails.length,
  idempotencyRecords: 0,
  accounts,
});

/** Staff's export of everything held about an address, recorded. */
export async function exportBuyerData(
  sql: Sql,
  configuredKey: string | null,
  staff: Principal,
  email: string,
): Promise<PersonalData> {
  const hash = await subjectHash(sql, configuredKey, email);
  return sql.transaction(async (tx) => {
    const data = await gather(tx, BY_EMAIL, email);
    const privacyRequests = await tx.query(REQUESTS_ABOUT, [hash]);
    const recorded = await recordRequest(
      tx,
      'export',
      { requestedBy: 'staff', accountId: staff.id },
      hash,
      exportCounts(data),
    );
    return { exportedAt: recorded.requestedAt, email, account: null, ...data, privacyRequests };
  });
}

/** An account holder's export of their account and what it bought, recorded. */
export async function exportMyData(
  sql: Sql,
  configuredKey: string | null,
  me: Principal,
): Promise<PersonalData> {
  const hash = await subjectHash(sql, configuredKey, me.name);
  return sql.transaction(async (tx) => {
    const [account] = await tx.query(ACCOUNT_ROW, [me.id]);
    const data = await gather(tx, BY_ACCOUNT, me.id);
    const privacyRequests = await tx.query(REQUESTS_ABOUT, [hash]);
    const recorded = await recordRequest(
      tx,
      'export',
      { requestedBy: 'account_holder', accountId: me.id },
      hash,
      exportCounts(data, account ? 1 : 0),
    );
    return {
      exportedAt: recorded.requestedAt,
      email: null,
      account: account ?? null,
      ...data,
      privacyRequests,
    };
  });
}
