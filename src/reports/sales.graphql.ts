import { toAmount } from '../common/money.ts';
import { builder } from '../graphql/builder.ts';
import { CATEGORY_DESCRIPTION } from '../prices/prices.graphql.ts';
import { TicketKindEnum } from '../tickets/tickets.graphql.ts';
import type { SalesRow } from './reports.queries.ts';
import { MAX_REPORT_DAYS, salesReportArgsSchema } from './sales.rules.ts';
import { salesReport } from './sales.service.ts';

const SalesRowType = builder.objectRef<SalesRow>('SalesRow').implement({
  description: 'The tickets of one visit date, ticket type, event and visitor category.',
  fields: (t) => ({
    date: t.expose('date', { type: 'Date', description: 'The visit date the tickets are for.' }),
    ticketType: t.expose('ticketType', {
      type: TicketKindEnum,
      description: 'Whether the tickets are general admission or for a special event.',
    }),
    eventId: t.expose('eventId', {
      type: 'UUID',
      nullable: true,
      description: 'Null for general admission.',
    }),
    eventName: t.exposeString('eventName', { nullable: true, description: 'Null for general admission.' }),
    category: t.exposeString('category', { description: CATEGORY_DESCRIPTION }),
    sold: t.exposeInt('sold', {
      description:
        'Tickets sold, those cancelled since included; a ticket held for an order that was never paid is not one.',
    }),
    cancelled: t.exposeInt('cancelled', {
      description: 'Of those, given back since (or of an event that was deleted, and not used).',
    }),
    refunded: t.exposeInt('refunded', {
      description:
        'Of the cancelled, those whose price was refunded through Stripe (MUSEUM_PAYMENTS=stripe).',
    }),
    checkedIn: t.exposeInt('checkedIn', { description: 'Of those, admitted at the door.' }),
    revenue: t.float({
      description: 'What the tickets not cancelled cost when they were sold, in the currency of the report.',
      resolve: (row) => toAmount(row.revenue),
    }),
  }),
});

export interface SalesReport {
  currency: string;
  startDate: string;
  endDate: string;
  rows: SalesRow[];
}

const SalesReportType = builder.objectRef<SalesReport>('SalesReport').implement({
  description: 'What was sold, given back and used, per visit date, ticket type, event and category.',
  fields: (t) => ({
    currency: t.exposeString('currency', {
      description: 'ISO 4217 code of every revenue (MUSEUM_CURRENCY).',
    }),
    startDate: t.expose('startDate', {
      type: 'Date',
      description: 'First visit date of the report, YYYY-MM-DD, as asked.',
    }),
    endDate: t.expose('endDate', {
      type: 'Date',
      description: 'Last visit date of the report, included, YYYY-MM-DD, as asked.',
    }),
    rows: t.expose('rows', {
      type: [SalesRowType],
      // A day has a row per ticket type, event and category; query-cost.ts counts a typical month's worth
      // (30 days of three rows).
      extensions: { listSize: 90 },
      description: 'By date, general admission first, then events by name, then category.',
    }),
  }),
});

builder.queryField('sales', (t) =>
  t.field({
    type: SalesReportType,
    description: `The sales report of the visit dates [startDate, endDate], at most ${MAX_REPORT_DAYS} days (staff only; REST: GET /reports/sales, also as CSV).`,
    authScopes: { staff: true },
    args: {
      startDate: t.arg({ type: 'Date', description: 'First visit date.' }),
      endDate: t.arg({ type: 'Date', description: 'Last visit date, included.' }),
    },
    validate: salesReportArgsSchema,
    resolve: async (_root, args, { deps }) => ({
      currency: deps.config.currency,
      startDate: args.startDate,
      endDate: args.endDate,
      rows: await salesReport(deps.db.sql, args),
    }),
  }),
);
