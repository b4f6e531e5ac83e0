import { RoleEnum } from '../accounts/accounts.graphql.ts';
import { toAmount } from '../common/money.ts';
import { pageOf } from '../common/pagination.ts';
import { builder } from '../graphql/builder.ts';
import { pageArgs, pageType } from '../graphql/pagination.ts';
import type { MailKind } from '../mail/mail.entity.ts';
import { MailStatusEnum } from '../mail/mail.graphql.ts';
import { OrderStatusEnum } from '../orders/order-status.graphql.ts';
import { cancellationFields, TicketKindEnum, TicketStatusEnum } from '../tickets/tickets.graphql.ts';
import type { PrivacyRequestKind, Requester } from './privacy.entity.ts';
import { exportBuyerData, exportMyData } from './privacy.export.ts';
import type {
  PersonalData,
  PersonalMail,
  PersonalOrder,
  PersonalTicket,
  PrivacyCounts,
  PrivacyRequestView,
} from './privacy.queries.ts';
import { listPrivacyRequests } from './privacy.requests.ts';
import { buyerSchema, requestsSchema } from './privacy.rules.ts';
import { deleteMyAccount, eraseBuyerData } from './privacy.service.ts';

const staffOnly = { staff: true } as const;

const PrivacyRequestKindEnum = builder.enumType('PrivacyRequestKind', {
  description:
    'export: what is held was sent to who asked; erasure: an address was erased (eraseBuyerData); account_deletion: an account holder deleted their account and its data (deleteMyAccount); retention: the daily erasure of visits past MUSEUM_RETENTION_DAYS.',
  values: {
    export: {
      value: 'export',
      description: 'What is held about an address or account was sent to who asked.',
    },
    erasure: {
      value: 'erasure',
      description: 'An address was erased everywhere it is held (eraseBuyerData).',
    },
    account_deletion: {
      value: 'account_deletion',
      description:
        'An account holder deleted their account and the addresses of its orders (deleteMyAccount).',
    },
    retention: {
      value: 'retention',
      description: 'The daily erasure of visits older than MUSEUM_RETENTION_DAYS.',
    },
  } satisfies Record<PrivacyRequestKind, { value: PrivacyRequestKind; description: string }>,
});

const RequesterEnum = builder.enumType('PrivacyRequester', {
  description:
    'staff: a staff account; account_holder: the account the data is about; retention: the service itself.',
  values: {
    staff: { value: 'staff', description: 'A staff account (accountId says which).' },
    account_holder: { value: 'account_holder', description: 'The account the data is about (accountId).' },
    retention: { value: 'retention', description: 'The service itself, on its daily retention run.' },
  } satisfies Record<Requester, { value: Requester; description: string }>,
});

const MailKindEnum = builder.enumType('MailKind', {
  description:
    'tickets: the tickets with their QR codes and calendar entry; cancellation, refund, expired: what became of them.',
  values: {
    tickets: { value: 'tickets', description: 'The tickets, with their QR codes and calendar entry.' },
    cancellation: { value: 'cancellation', description: 'The tickets were cancelled and admit no one.' },
    refund: { value: 'refund', description: 'What was paid for the order was refunded.' },
    expired: { value: 'expired', description: 'The order was not paid in time; its tickets were released.' },
  } satisfies Record<MailKind, { value: MailKind; description: string }>,
});

const PrivacyCountsType = builder.objectRef<PrivacyCounts>('PrivacyCounts').implement({
  description:
    'What a request covered: for an export, what it listed; for an erasure, what it removed personal data from.',
  fields: (t) => ({
    orders: t.exposeInt('orders', { description: 'How many orders it listed or erased the address of.' }),
    tickets: t.exposeInt('tickets', { description: 'How many tickets it listed or erased the address of.' }),
    mails: t.exposeInt('mails', { description: 'Mails of the outbox (sent, failed or owed).' }),
    idempotencyRecords: t.exposeInt('idempotencyRecords', {
      description: 'Stored answers of Idempotency-Key requests naming the address (deleted).',
    }),
    accounts: t.exposeInt('accounts', {
      description: 'How many accounts it deleted: 1 for an account deletion, else 0.',
    }),
  }),
});

const PrivacyRequestType = builder.objectRef<PrivacyRequestView>('PrivacyRequest').implement({
  description:
    'The record of an export or erasure of personal data: who asked, when, what it covered; never the address (a keyed hash of it finds the record again).',
  fields: (t) => ({
    requestId: t.expose('requestId', { type: 'UUID', description: 'Identifier of the request.' }),
    kind: t.expose('kind', {
      type: PrivacyRequestKindEnum,
      description: 'What was done: an export, or which erasure.',
    }),
    requestedBy: t.expose('requestedBy', { type: RequesterEnum, description: 'Who asked for it.' }),
    accountId: t.expose('accountId', {
      type: 'UUID',
      nullable: true,
      description: 'The account that asked (it may have been deleted since); null for retention.',
    }),
    requestedAt: t.expose('requestedAt', {
      type: 'DateTime',
      description: 'When it was done, RFC 3339 UTC.',
    }),
    retentionDate: t.expose('retentionDate', {
      type: 'Date',
      nullable: true,
      description: "A retention run's museum day; null for any other request.",
    }),
    counts: t.expose('counts', { type: PrivacyCountsType, description: 'What it covered, counted.' }),
  }),
});

const PersonalTicketType = builder.objectRef<PersonalTicket>('PersonalTicket').implement({
  description: 'A ticket as held, in an export.',
  fields: (t) => ({
    ticketId: t.expose('ticketId', { type: 'UUID', description: 'Identifier of the ticket.' }),
    orderId: t.expose('orderId', {
      type: 'UUID',
      nullable: true,
      description: 'The order it was bought in; null for a ticket bought on its own.',
    }),
    email: t.exposeString('email', { nullable: true, description: 'Null once erased.' }),
    ticketType: t.expose('ticketType', {
      type: TicketKindEnum,
      description: 'General entry or a special event.',
    }),
    ticketDate: t.expose('ticketDate', { type: 'Date', description: 'The museum day it admits on.' }),
    entryTime: t.expose('entryTime', {
      type: 'LocalTime',
      nullable: true,
      description: "A timed ticket's entry slot start; null for an untimed ticket.",
    }),
    eventId: t.expose('eventId', {
      type: 'UUID',
      nullable: true,
      description: 'The special event it admits to; null for general entry.',
    }),
    eventName: t.exposeString('eventName', {
      nullable: true,
      description: "The special event's name; null for general entry.",
    }),
    category: t.exposeString('category', { description: 'The visitor category it was sold in.' }),
    price: t.float({ description: 'What it cost.', resolve: (ticket) => toAmount(ticket.price) }),
    confirmationCode: t.exposeString('confirmationCode', {
      description: 'ticket-{type}-{6 hex}-{5 hex}, shown at the entrance.',
    }),
    status: t.expose('status', { type: TicketStatusEnum, description: 'Its status now.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was sold, RFC 3339 UTC.' }),
    checkedInAt: t.expose('checkedInAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When a gate admitted it, RFC 3339 UTC; null until then.',
    }),
    cancelledAt: t.expose('cancelledAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When it was given back, RFC 3339 UTC; null if it was not.',
    }),
    ...cancellationFields(t),
  }),
});

const PersonalOrderType = builder.objectRef<PersonalOrder>('PersonalOrder').implement({
  description: 'An order as held, in an export.',
  fields: (t) => ({
    orderId: t.expose('orderId', { type: 'UUID', description: 'Identifier of the order.' }),
    email: t.exposeString('email', { nullable: true, description: 'Null once erased.' }),
    status: t.expose('status', { type: OrderStatusEnum, description: 'Its status now.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was placed, RFC 3339 UTC.' }),
    total: t.float({ description: 'What its tickets cost.', resolve: (order) => toAmount(order.totalMinor) }),
    ticketIds: t.exposeStringList('ticketIds', { description: 'Its tickets, in its order.' }),
  }),
});

const PersonalMailType = builder.objectRef<PersonalMail>('PersonalMail').implement({
  description: 'A mail to the buyer (sent, given up, or still owed), in an export.',
  fields: (t) => ({
    mailId: t.expose('mailId', {
      type: 'UUID',
      description: "Identifier of the mail (a mail still owed by a ticket bought on its own: the ticket's).",
    }),
    kind: t.expose('kind', { type: MailKindEnum, description: 'What the mail is about.' }),
    orderId: t.expose('orderId', {
      type: 'UUID',
      nullable: true,
      description: 'The order it is about; null for a ticket bought on its own.',
    }),
    ticketIds: t.exposeStringList('ticketIds', { description: 'The tickets it is about.' }),
    recipient: t.exposeString('recipient', { nullable: true, description: 'Null once erased.' }),
    status: t.expose('status', { type: MailStatusEnum, description: 'How its sending went so far.' }),
    attempts: t.exposeInt('attempts', { description: 'Times it was handed to the mail server so far.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was queued, RFC 3339 UTC.' }),
    lastAttemptAt: t.expose('lastAttemptAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When it was last tried, RFC 3339 UTC; null before the first attempt.',
    }),
    sentAt: t.expose('sentAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When the mail server took it, RFC 3339 UTC; null until then.',
    }),
  }),
});

const PersonalAccountType = builder
  .objectRef<NonNullable<PersonalData['account']>>('PersonalAccount')
  .implement({
    description: 'An account as held (its password only as a hash, which is not exported).',
    fields: (t) => ({
      accountId: t.expose('accountId', { type: 'UUID', description: 'Identifier of the account.' }),
      name: t.exposeString('name', { description: 'The name it signs in with.' }),
      role: t.expose('role', { type: RoleEnum, description: 'What it may do.' }),
      createdAt: t.expose('createdAt', {
        type: 'DateTime',
        description: 'When it was created, RFC 3339 UTC.',
      }),
    }),
  });

const PersonalDataType = builder.objectRef<PersonalData>('PersonalData').implement({
  description:
    'Everything the museum holds about a buyer (by address) or an account (its own): GDPR articles 15 and 20.',
  fields: (t) => ({
    exportedAt: t.expose('exportedAt', {
      type: 'DateTime',
      description: 'When the export was made (its requestedAt), RFC 3339 UTC.',
    }),
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
    orders: t.expose('orders', { type: [PersonalOrderType], description: 'Its orders, oldest first.' }),
    tickets: t.expose('tickets', { type: [PersonalTicketType], description: 'Its tickets, oldest first.' }),
    mails: t.expose('mails', {
      type: [PersonalMailType],
      description: 'Its mails (sent, given up or still owed), oldest first.',
    }),
    privacyRequests: t.expose('privacyRequests', {
      type: [PrivacyRequestType],
      description: 'Earlier requests about the same address or account (exports, erasures), oldest first.',
    }),
  }),
});

const PrivacyRequestPageType = pageType('PrivacyRequestPage', PrivacyRequestType, {
  type: 'One page of the record of privacy requests, newest first.',
  items: 'The requests of this page.',
  total: 'How many requests there are over all pages.',
});

export const BuyerInput = builder.inputType('BuyerInput', {
  description: 'A buyer, by the address their tickets were sent to (matched without regard to case).',
  fields: (t) => ({ email: t.field({ type: 'EmailAddress', description: 'The address of the buyer.' }) }),
  validate: buyerSchema,
});

builder.queryFields((t) => ({
  buyerData: t.field({
    type: PersonalDataType,
    description:
      'Everything held about a buyer’s address: orders, tickets, mails and earlier requests (staff only). Recorded in privacyRequests.',
    authScopes: staffOnly,
    args: { input: t.arg({ type: BuyerInput, description: 'The buyer to export.' }) },
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
    args: {
      email: t.arg({
        type: 'EmailAddress',
        required: false,
        description: 'Only the requests about this address (matched without regard to case).',
      }),
      ...pageArgs,
    },
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
    args: { input: t.arg({ type: BuyerInput, description: 'The buyer to erase.' }) },
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
