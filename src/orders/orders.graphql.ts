import { AccountType } from '../accounts/accounts.graphql.ts';
import { toAmount } from '../common/money.ts';
import { pageOf, paginationSchema } from '../common/pagination.ts';
import { withinArgument } from '../graphql/argument-errors.ts';
import { builder } from '../graphql/builder.ts';
import { globalId, NodeInterface } from '../graphql/node.ts';
import { pageArgs } from '../graphql/pagination.ts';
import { cancelOrderTickets } from '../tickets/cancellation.ts';
import { purchaseOptions } from '../tickets/purchase-options.ts';
import { TicketKindEnum, TicketType, visitInputFields } from '../tickets/tickets.graphql.ts';
import { MAX_ORDER_LINES, MAX_ORDER_TICKETS, placeOrderSchema } from './orders.rules.ts';
import { getOrder, listOrders, type OrderView, placeOrder } from './orders.service.ts';

export const OrderType = builder.objectRef<OrderView>('Order').implement({
  description: 'Tickets bought together, all or none, as their buyer (or staff) sees them.',
  interfaces: [NodeInterface],
  fields: (t) => ({
    id: t.id({ description: 'Global id (Node).', resolve: (order) => globalId('Order', order.orderId) }),
    orderId: t.expose('orderId', { type: 'UUID' }),
    email: t.exposeString('email', { description: 'Where the tickets are sent.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    total: t.float({
      description: 'What its tickets cost when they were sold, all of them: the sum of their prices.',
      resolve: (order) => toAmount(order.tickets.reduce((sum, ticket) => sum + ticket.price, 0)),
    }),
    currency: t.string({
      description: "ISO 4217 code of total and of its tickets' prices (MUSEUM_CURRENCY).",
      resolve: (_order, _args, { deps }) => deps.config.currency,
    }),
    tickets: t.expose('tickets', {
      type: [TicketType],
      extensions: { listSize: MAX_ORDER_TICKETS },
      description:
        'In the order of the lines. Each has its own ticketId and confirmationCode; its QR code is at GET /tickets/{ticketId}/qr.',
    }),
  }),
});

const OrderLineInput = builder.inputType('OrderLineInput', {
  description: '`quantity` tickets of one kind for one date (and event).',
  fields: (t) => ({
    ticketType: t.field({ type: TicketKindEnum }),
    ticketDate: t.field({ type: 'Date', description: 'Today or later (museum time zone).' }),
    eventId: t.field({
      type: 'UUID',
      required: false,
      description: 'Required for event tickets, forbidden for general.',
    }),
    quantity: t.int({ description: `1 to ${MAX_ORDER_TICKETS}.` }),
    ...visitInputFields(t),
  }),
});

export const PlaceOrderInput = builder.inputType('PlaceOrderInput', {
  description: `An order: 1 to ${MAX_ORDER_LINES} lines, at most ${MAX_ORDER_TICKETS} tickets in all, sold whole or not at all.`,
  fields: (t) => ({
    email: t.field({ type: 'EmailAddress', description: 'Where the tickets are sent.' }),
    lines: t.field({ type: [OrderLineInput] }),
  }),
  validate: placeOrderSchema,
});

builder.mutationFields((t) => ({
  placeOrder: t.field({
    type: OrderType,
    description:
      'Buys the tickets of every line in one transaction: all of them, or (a line sold out: CONFLICT naming input.lines[i]) none. Idempotency-Key works as for buyMuseumTickets.',
    authScopes: { visitor: true },
    args: { input: t.arg({ type: PlaceOrderInput }) },
    resolve: (_root, { input }, { deps, principal, idempotencyKey }) => {
      const options = purchaseOptions(deps, idempotencyKey);
      return withinArgument('input', () => placeOrder(deps.db.sql, principal!, input, options));
    },
  }),
  cancelOrder: t.boolean({
    description:
      'Cancels every ticket of an order under the rules of cancelTicket, all or none (CONFLICT naming the ticket that stands in the way). True, also when it was cancelled already; NOT_FOUND for an order that is not yours.',
    authScopes: { visitor: true },
    args: { orderId: t.arg({ type: 'UUID' }) },
    resolve: (_root, { orderId }, { deps, principal }) =>
      cancelOrderTickets(deps.db.sql, principal!, orderId, deps.clock.today()),
  }),
}));

builder.queryField('order', (t) =>
  t.field({
    type: OrderType,
    nullable: true,
    description: "An order of yours (staff: anyone's); null when there is none you may see.",
    authScopes: { visitor: true },
    args: { orderId: t.arg({ type: 'UUID' }) },
    resolve: (_root, { orderId }, { deps, principal }) => getOrder(deps.db.sql, principal!, orderId),
  }),
);

builder.objectField(AccountType, 'orders', (t) =>
  t.field({
    type: [OrderType],
    description: 'The orders this account placed, newest first.',
    args: pageArgs,
    validate: paginationSchema,
    resolve: (account, args, { deps }) => listOrders(deps.db.sql, account, pageOf(args)),
  }),
);
