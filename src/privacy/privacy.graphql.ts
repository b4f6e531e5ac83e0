import { RoleEnum } from '../accounts/accounts.graphql.ts';
import { toAmount } from '../common/money.ts';
import { pageOf } from '../common/pagination.ts';
import { builder } from '../graphql/builder.ts';
import { pageArgs, pageType } from '../graphql/pagination.ts';
import { MAIL_KINDS } from '../mail/mail.entity.ts';
import { MailStatusEnum } from '../mail/mail.graphql.ts';
import { OrderStatusEnum } from '../payments/payments.graphql.ts';
import { TicketKindEnum, TicketStatusEnum } from '../tickets/tickets.graphql.ts';
import { PRIVACY_REQUEST_KINDS, REQUESTERS } from './privacy.entity.ts';
import {
  exportBuyerData,
  exportMyData,
  type PersonalData,
  type PersonalMail,
  type PersonalOrder,
  type PersonalTicket,
} from './privacy.export.ts';
import { listPrivacyRequests, type PrivacyCounts, type PrivacyRequestView } from './privacy.requests.ts';
import { buyerSchema, requestsSchema } from './privacy.rules.ts';
import { deleteMyAccount, eraseBuyerData } from './privacy.service.ts';

const staffOnly = { staff: true } as const;

const PrivacyRequestKindEnum = builder.enumType('PrivacyRequestKind', {
  description:
    'export: what is held was sent to who asked; erasure: an address was erased (eraseBuyerData); account_deletion: an account holder deleted their account and its data (deleteMyAccount); retention: the daily erasure of visits past MUSEUM_RETENTION_DAYS.',
  values: PRIVACY_REQUEST_KINDS,
});

const RequesterEnum = builder.enumType('PrivacyRequester', {
  description:
    'staff: a staff account; account_holder: the account the data is about; retention: the service itself.',
  values: REQUESTERS,
});

const MailKindEnum = builder.enumType('MailKind', {
  description:
    'tickets: the tickets with their QR codes and calendar entry; cancellation, refund, expired: what became of them.',
  values: MAIL_KINDS,
});

const PrivacyCountsType = builder.objectRef<PrivacyCounts>('PrivacyCounts').implement({
  description:
    'What a request covered: for an export, what it listed; for an erasure, what it removed personal data from.',
  fields: (t) => ({
    orders: t.exposeInt('orders'),
    tickets: t.exposeInt('tickets'),
    mails: t.exposeInt('mails', { description: 'Mails of the outbox (sent, failed or owed).' }),
    idempotencyRecords: t.exposeInt('idempotencyRecords', {
      description: 'Stored answers of Idempotency-Key requests naming the address (deleted).',
    }),
    accounts: t.exposeInt('accounts'),
  }),
});

const PrivacyRequestType = builder.objectRef<PrivacyRequestView>('PrivacyRequest').implement({
  description:
    'The record of an export or erasure of personal data: who asked, when, what it covered; never the address (a keyed hash of it finds the record again).',
  fields: (t) => ({
    requestId: t.expose('requestId', { type: 'UUID' }),
    kind: t.expose('kind', { type: PrivacyRequestKindEnum }),
    requestedBy: t.expose('requestedBy', { type: RequesterEnum }),
    accountId: t.expose('accountId', {
      type: 'UUID',
      nullable: true,
      description: 'The account that asked (it may have been deleted since); null for retention.',
    }),
    requestedAt: t.expose('requestedAt', { type: 'DateTime' }),
    retentionDate: t.expose('retentionDate', {
      type: 'Date',
      nullable: true,
      description: "A retention run's museum day; null for any other request.",
    }),
    counts: t.expose('counts', { type: PrivacyCountsType }),
  }),
});

const PersonalTicketType = builder.objectRef<PersonalTicket>('PersonalTicket').implement({
  description: 'A ticket as held, in an export.',
  fields: (t) => ({
    ticketId: t.expose('ticketId', { type: 'UUID' }),
    orderId: t.expose('orderId', { type: 'UUID', nullable: true }),
    email: t.exposeString('email', { nullable: true, description: 'Null once erased.' }),
    ticketType: t.expose('ticketType', { type: TicketKindEnum }),
    ticketDate: t.expose('ticketDate', { type: 'Date' }),
    entryTime: t.expose('entryTime', { type: 'LocalTime', nullable: true }),
    eventId: t.expose('eventId', { type: 'UUID', nullable: true }),
    eventName: t.exposeString('eventName', { nullable: true }),
    category: t.exposeString('category'),
    price: t.float({ description: 'What it cost.', resolve: (ticket) => toAmount(ticket.price) }),
    confirmationCode: t.exposeString('confirmationCode'),
    status: t.expose('status', { type: TicketStatusEnum }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    checkedInAt: t.expose('checkedInAt', { type: 'DateTime', nullable: true }),
    cancelledAt: t.expose('cancelledAt', { type: 'DateTime', nullable: true }),
  }),
});

const PersonalOrderType = builder.objectRef<PersonalOrder>('PersonalOrder').implement({
  description: 'An order as held, in an export.',
  fields: (t) => ({
    orderId: t.expose('orderId', { type: 'UUID' }),
    email: t.exposeString('email', { nullable: true, description: 'Null once erased.' }),
    status: t.expose('status', { type: OrderStatusEnum }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    total: t.float({ description: 'What its tickets cost.', resolve: (order) => toAmount(order.totalMinor) }),
    ticketIds: t.exposeStringList('ticketIds', { description: 'Its tickets, in its order.' }),
  }),
});

const PersonalMailType = builder.objectRef<PersonalMail>('PersonalMail').implement({
  description: 'A mail to the buyer (sent, given up, or still owed), in an export.',
  fields: (t) => ({
    mailId: t.expose('mailId', { type: 'UUID' }),
    kind: t.expose('kind', { type: MailKindEnum }),
    orderId: t.expose('orderId', { type: 'UUID', nullable: true }),
    ticketIds: t.exposeStringList('ticketIds'),
    recipient: t.exposeString('recipient', { nullable: true, description: 'Null once erased.' }),
    status: t.expose('status', { type: MailStatusEnum }),
    attempts: t.exposeInt('attempts'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    lastAttemptAt: t.expose('lastAttemptAt', { type: 'DateTime', nullable: true }),
    sentAt: t.expose('sentAt', { type: 'DateTime', nullable: true }),
  }),
});

const PersonalAccountType = builder
  .objectRef<NonNullable<PersonalData['account']>>('PersonalAccount')
  .implement({
    description: 'An account as held (its password only as a hash, which is not exported).',
    fields: (t) => ({
      accountId: t.expose('accountId', { type: 'UUID' }),
      name: t.exposeString('name'),
      role: t.expose('role', { type: RoleEnum }),
      createdAt: t.expose('createdAt', { type: 'DateTime' }),
    }),
  });

const PersonalDataType = builder.objectRef<PersonalData>('PersonalData').implement({
  description:
    'Everything the museum holds about a buyer (by address) or an account (its own): GDPR articles 15 and 20.',
  fields: (t) => ({
    exportedAt: t.expose('exportedAt', { type: 'DateTime' }),
    email: t.exposeString('email', { nullable: true, description: 'The address asked about (buyerData).' }),
    account: t.expose('account', {
      type: PersonalAccountType,
      nullable: true,
      description: 'The account asked about (myData).',
    }),
    currency: t.string({
      description: 'ISO 4217 code of the prices and totals.',
      resolve: (_data, _args, { deps }) => deps.config.currency,
    }),
    orders: t.expose('orders', { type: [PersonalOrderType] }),
    tickets: t.expose('tickets', { type: [PersonalTicketType] }),
    mails: t.expose('mails', { type: [PersonalMailType] }),
    privacyRequests: t.expose('privacyRequests', {
      type: [PrivacyRequestType],
      description: 'Earlier requests about the same address or account (exports, erasures), oldest first.',
    }),
  }),
});

const PrivacyRequestPageType = pageType('PrivacyRequestPage', PrivacyRequestType, {
  type: 'One page of the record of privacy requests, newest first.',
});

export const BuyerInput = builder.inputType('BuyerInput', {
  description: 'A buyer, by the address their tickets were sent to (matched without regard to case).',
  fields: (t) => ({ email: t.field({ type: 'EmailAddress' }) }),
  validate: buyerSchema,
});

builder.queryFields((t) => ({
  buyerData: t.field({
    type: PersonalDataType,
    description:
      'Everything held about a buyer’s address: orders, tickets, mails and earlier requests (staff only). Recorded in privacyRequests.',
    authScopes: staffOnly,
    args: { input: t.arg({ type: BuyerInput }) },
    resolve: (_root, { input }, { deps, principal }) =>
      exportBuyerData(deps.db.sql, deps.config.privacyKey, principal!, input.email),
  }),
  myData: t.field({
    type: PersonalDataType,
    description:
      'Everything held about your account: the account, its orders, tickets and mails, and earlier requests. Recorded in privacyRequests.',
    authScopes: { authenticated: true },
    resolve: (_root, _args, { deps, principal }) =>
      exportMyData(deps.db.sql, deps.config.privacyKey, principal!),
  }),
  privacyRequests: t.field({
    type: PrivacyRequestPageType,
    description:
      'The record of exports and erasures, newest first (staff only); with `email`, those about that address.',
    authScopes: staffOnly,
    args: { email: t.arg({ type: 'EmailAddress', required: false }), ...pageArgs },
    validate: requestsSchema,
    resolve: (_root, args, { deps }) =>
      listPrivacyRequests(deps.db.sql, deps.config.privacyKey, args.email ?? null, pageOf(args)),
  }),
}));

builder.mutationFields((t) => ({
  eraseBuyerData: t.field({
    type: PrivacyRequestType,
    description:
      'Erases a buyer’s address everywhere it is held (tickets, orders, the mail outbox, stored answers), in one transaction (staff only). Tickets, amounts, check-ins and the sales report stay; valid tickets still admit, but nothing more is mailed. Answers the record of the erasure with what it counted; a second erasure counts zeros.',
    authScopes: staffOnly,
    args: { input: t.arg({ type: BuyerInput }) },
    resolve: (_root, { input }, { deps, principal }) =>
      eraseBuyerData(deps.db.sql, deps.config.privacyKey, principal!, input.email, deps.forgetMails),
  }),
  deleteMyAccount: t.field({
    type: PrivacyRequestType,
    description:
      'Deletes your account and erases the addresses of its orders and tickets (they stay valid; nothing more is mailed). Its credentials stop working at once. The last staff account cannot be deleted (CONFLICT).',
    authScopes: { authenticated: true },
    resolve: async (_root, _args, { deps, principal }) => {
      const recorded = await deleteMyAccount(
        deps.db.sql,
        deps.config.privacyKey,
        principal!,
        deps.forgetMails,
      );
      deps.authenticator.forget(principal!.name);
      return recorded;
    },
  }),
}));
