// "My tickets": an account's own tickets, on the account (`me { tickets }`) and as a root field for REST's
// GET /tickets; read in batches (ticket-loads.ts). myTicketsConnection pages the same list by cursor.
import { z } from 'zod';
import { AccountType } from '../accounts/accounts.graphql.ts';
import { pageOf, paginationSchema } from '../common/pagination.ts';
import { builder } from '../graphql/builder.ts';
import { connectionArgsSchema, keysetConnection, TOTAL_COUNT } from '../graphql/connections.ts';
import { pageArgs, pageType } from '../graphql/pagination.ts';
import { readTicketWindow, ticketKeySchema, ticketRangeScope } from './ticket-connection.ts';
import { loadTicketsOf } from './ticket-loads.ts';
import { TicketType } from './tickets.graphql.ts';

export const TicketPageType = pageType('TicketPage', TicketType, {
  type: "One page of an account's tickets, and how many there are over all pages.",
  items: 'Ordered by ticket date, then purchase time.',
  total: 'Tickets in the range over all pages.',
});

const ticketRangeArgs = builder.args((t) => ({
  startDate: t.field({
    type: 'Date',
    required: false,
    description: 'First ticket date to list; left out: no bound.',
  }),
  endDate: t.field({
    type: 'Date',
    required: false,
    description: 'Last ticket date to list; left out: no bound.',
  }),
}));

const ticketListArgs = { ...ticketRangeArgs, ...pageArgs };

const TICKET_RANGE = { startDate: z.iso.date().nullish(), endDate: z.iso.date().nullish() };

const ticketListSchema = paginationSchema.extend(TICKET_RANGE);

builder.objectFields(AccountType, (t) => ({
  tickets: t.field({
    type: TicketPageType,
    description:
      "The account's own tickets (staff: theirs too, not everyone's), ordered by ticket date, then purchase time; cancelled and used ones included, with their status.",
    args: ticketListArgs,
    validate: ticketListSchema,
    resolve: (account, args, { deps, shared }) =>
      loadTicketsOf(deps.db.sql, shared, account.id, args, pageOf(args)),
  }),
}));

builder.queryField('myTickets', (t) =>
  t.field({
    type: TicketPageType,
    description: 'Your own tickets, as `me { tickets }` lists them (REST: GET /tickets).',
    authScopes: { visitor: true },
    args: ticketListArgs,
    validate: ticketListSchema,
    resolve: (_root, args, { deps, shared, principal }) =>
      loadTicketsOf(deps.db.sql, shared, principal!.id, args, pageOf(args)),
  }),
);

builder.queryField('myTicketsConnection', (t) =>
  t.connection(
    {
      type: TicketType,
      description:
        'myTickets as a Relay cursor connection: your own tickets in the same order, paged by cursor (first/after forwards, last/before backwards). A cursor holds its owner and range: give the same startDate and endDate with it.',
      authScopes: { visitor: true },
      args: ticketRangeArgs,
      validate: connectionArgsSchema(TICKET_RANGE),
      resolve: (_root, args, { deps, principal }) =>
        keysetConnection(args, {
          scope: ticketRangeScope(principal!.id, args),
          key: ticketKeySchema,
          read: (window) => readTicketWindow(deps.db.sql, principal!.id, args, window),
        }),
    },
    {
      name: 'TicketConnection',
      description: "A page of an account's tickets, by cursor (Relay cursor connection).",
      fields: (t) => ({
        totalCount: t.int({ description: TOTAL_COUNT, resolve: (page) => page.totalCount }),
      }),
    },
    { name: 'TicketEdge', description: 'A ticket of a page, and its cursor.' },
  ),
);
