import type { Role } from '../accounts/account.entity.ts';
import type { Principal } from '../accounts/authenticator.ts';
import { type Queryable, rfc3339, type Sql, statement } from '../db/sql.ts';
import type { MailKind, MailStatus } from '../mail/mail.entity.ts';
import type { OrderStatus } from '../tickets/order.entity.ts';
import { toTicketView } from '../tickets/ticket-view.ts';
import { TICKET_VIEW_COLUMNS, type TicketView } from '../tickets/tickets.views.queries.ts';
import { type PrivacyRequestView, REQUESTS_ABOUT, recordRequest, subjectHash } from './privacy.requests.ts';

// Exports of what is held about a buyer's address or an account (docs/privacy.md), each recorded
// (privacy.requests.ts). Addresses are matched case-insensitively: `Todd@Example.com` and `todd@example.com` are one buyer. No index
// serves that (one would cost every sale): an export or erasure reads the tables through, which is what a
// rare staff request may cost.

export interface PersonalTicket extends TicketView {
  orderId: string | null;
  email: string | null;
  createdAt: string;
  cancelledAt: string | null;
}

export interface PersonalOrder {
  orderId: string;
  email: string | null;
  status: OrderStatus;
  createdAt: string;
  /** Hundredths of the currency: what its tickets cost. */
  totalMinor: number;
  ticketIds: string[];
}

export interface PersonalMail {
  mailId: string;
  kind: MailKind;
  orderId: string | null;
  ticketIds: string[];
  recipient: string | null;
  status: MailStatus;
  attempts: number;
  createdAt: string;
  lastAttemptAt: string | null;
  sentAt: string | null;
}

/** Everything held about an address (staff's export) or an account (its holder's). */
export interface PersonalData {
  exportedAt: string;
  email: string | null;
  account: { accountId: string; name: string; role: Role; createdAt: string } | null;
  orders: PersonalOrder[];
  tickets: PersonalTicket[];
  mails: PersonalMail[];
  /** The requests recorded before this one about the same address or account: earlier exports and erasures. */
  privacyRequests: PrivacyRequestView[];
}

// ------------------------------------------------------------------------------------------ the subject hash

/** The statements of an export, for a subject given as `$1`: an address (`byEmail`) or an account id. */
function exportStatements(subject: 'email' | 'account') {
  const ticketOf = subject === 'email' ? 'lower(t.email) = lower($1)' : 't.account_id = $1::uuid';
  const orderOf = subject === 'email' ? 'lower(o.email) = lower($1)' : 'o.account_id = $1::uuid';
  // An account's mails are those of its orders and tickets; an address's, those sent to it.
  const mailOf =
    subject === 'email'
      ? 'lower(m.recipient) = lower($1)'
      : `(m.order_id in (select o.id from ticket_order o where ${orderOf})
          or m.ticket_ids && array(select t.id from ticket t where ${ticketOf}))`;
  return {
    tickets: statement<Omit<PersonalTicket, 'message'>, [subject: string]>(
      `privacy_export_tickets_by_${subject}`,
      `select ${TICKET_VIEW_COLUMNS}, t.order_id as "orderId", t.email, ${rfc3339('t.created_at')} as "createdAt",
              ${rfc3339('t.cancelled_at')} as "cancelledAt"
       from ticket t left join special_event e on e.id = t.event_id
       where ${ticketOf} order by t.created_at, t.id`,
    ),
    orders: statement<PersonalOrder, [subject: string]>(
      `privacy_export_orders_by_${subject}`,
      `select o.id as "orderId", o.email, o.status, ${rfc3339('o.created_at')} as "createdAt",
              (select coalesce(sum(t.price), 0)::int from ticket t where t.order_id = o.id) as "totalMinor",
              array(select t.id from ticket t where t.order_id = o.id order by t.order_position) as "ticketIds"
       from ticket_order o where ${orderOf} order by o.created_at, o.id`,
    ),
    // A mail still owed by a ticket sold on its own (ticket.mail_owed) is shown as the pending mail it is.
    mails: statement<PersonalMail, [subject: string]>(
      `privacy_export_mails_by_${subject}`,
      `select * from (
         select m.id as "mailId", m.kind, m.order_id as "orderId", m.ticket_ids as "ticketIds", m.recipient,
                m.status, m.attempts, ${rfc3339('m.created_at')} as "createdAt",
                ${rfc3339('m.last_attempt_at')} as "lastAttemptAt", ${rfc3339('m.sent_at')} as "sentAt"
         from mail m where ${mailOf}
         union all
         select t.id, 'tickets', null, array[t.id], t.email, 'pending', 0, ${rfc3339('t.created_at')}, null, null
         from ticket t where t.mail_owed and ${ticketOf}
       ) mails order by "createdAt", "mailId"`,
    ),
  };
}

const BY_EMAIL = exportStatements('email');
const BY_ACCOUNT = exportStatements('account');

const ACCOUNT_ROW = statement<NonNullable<PersonalData['account']>, [accountId: string]>(
  'privacy_account',
  `select id as "accountId", name, role, ${rfc3339('created_at')} as "createdAt" from account where id = $1::uuid`,
);

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
