import { AccountType } from '../accounts/accounts.graphql.ts';
import { toAmount } from '../common/money.ts';
import { pageOf, paginationSchema } from '../common/pagination.ts';
import { withinArgument } from '../graphql/argument-errors.ts';
import { builder } from '../graphql/builder.ts';
import { connectionArgsSchema, keysetConnection, TOTAL_COUNT } from '../graphql/connections.ts';
import { globalId, NodeInterface } from '../graphql/node.ts';
import { pageArgs } from '../graphql/pagination.ts';
import { EmailDeliveryType } from '../mail/mail.graphql.ts';
import { RESENDS_PER_HOUR, resendTickets } from '../mail/mail.service.ts';
import { orderDelivery } from '../mail/outbox.ts';
import { cancelOrderTickets } from '../tickets/cancellation.ts';
import { purchaseOptions } from '../tickets/purchase-options.ts';
import { TicketKindEnum, TicketType, visitInputFields } from '../tickets/tickets.graphql.ts';
import { withCheckout } from './checkout.ts';
import { orderKeySchema, ordersScope, readOrderWindow } from './order-connection.ts';
import { OrderStatusEnum } from './order-status.graphql.ts';
import type { OrderView } from './orders.queries.ts';
import { MAX_ORDER_LINES, MAX_ORDER_TICKETS, placeOrderSchema } from './orders.rules.ts';
import { getOrder, listOrders, placeOrder } from './orders.service.ts';

export const OrderType = builder.objectRef<OrderView>('Order').implement({
  description: 'Tickets bought together, all or none, as their buyer (or staff) sees them.',
  interfaces: [NodeInterface],
  fields: (t) => ({
    id: t.id({ description: 'Global id (Node).', resolve: (order) => globalId('Order', order.orderId) }),
    orderId: t.expose('orderId', {
      type: 'UUID',
      description: "The order's id, as order(orderId), cancelOrder and resendTickets take it.",
    }),
    email: t.exposeString('email', {
      nullable: true,
      description: "Where the tickets are sent; null once the buyer's address was erased (eraseBuyerData).",
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was placed.' }),
    total: t.float({
      description: 'What its tickets cost when they were sold, all of them: the sum of their prices.',
      resolve: (order) => toAmount(order.tickets.reduce((sum, ticket) => sum + ticket.price, 0)),
    }),
    currency: t.string({
      description: "ISO 4217 code of total and of its tickets' prices (MUSEUM_CURRENCY).",
      resolve: (_order, _args, { deps }) => deps.config.currency,
    }),
    status: t.field({
      type: OrderStatusEnum,
      description: 'Where it stands; confirmed for an order that never waited for payment.',
      resolve: (order) => order.status ?? 'confirmed',
    }),
    expiresAt: t.field({
      type: 'DateTime',
      nullable: true,
      description:
        'When a pending order gives its seats back unless it is paid (ORDER_HOLD_MINUTES after it was placed); null for an order that never waited for payment.',
      resolve: (order) => order.expiresAt ?? null,
    }),
    checkoutUrl: t.string({
      nullable: true,
      description:
        'Where its buyer pays (Stripe Checkout) while the order is pending; null once it is not, and for an order paid at the desk.',
      resolve: (order) => (order.status === 'pending' ? (order.checkoutUrl ?? null) : null),
    }),
    refundedAmount: t.float({
      description: 'What was given back to its buyer, or is on its way back (Stripe refunds).',
      resolve: (order) => toAmount(order.refundedAmount ?? 0),
    }),
    tickets: t.expose('tickets', {
      type: [TicketType],
      extensions: { listSize: MAX_ORDER_TICKETS },
      description:
        'In the order of the lines. Each has its own ticketId and confirmationCode; its QR code is at GET /tickets/{ticketId}/qr.',
    }),
    emailDelivery: t.field({
      type: EmailDeliveryType,
      nullable: true,
      description:
        'How the mail of its tickets (to email) fared, or the last copy asked for (resendTickets); null while none is owed (an order waiting for payment).',
      resolve: (order, _args, { deps }) => orderDelivery(deps.db.sql, order.orderId),
    }),
  }),
});

const OrderLineInput = builder.inputType('OrderLineInput', {
  description: '`quantity` tickets of one kind for one date (and event).',
  fields: (t) => ({
    ticketType: t.field({
      type: TicketKindEnum,
      description: "What the line's tickets are for: general entry, or a special event (then eventId).",
    }),
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
    lines: t.field({
      type: [OrderLineInput],
      description: `1 to ${MAX_ORDER_LINES} lines; the order's tickets come back in the order of the lines.`,
    }),
  }),
  validate: placeOrderSchema,
});

builder.mutationFields((t) => ({
  placeOrder: t.field({
    type: OrderType,
    description:
      "Buys the tickets of every line in one transaction: all of them, or (a line sold out: CONFLICT naming input.lines[i]) none. With MUSEUM_PAYMENTS=stripe a visitor's order is pending: its seats are held until expiresAt and it is paid at checkoutUrl (UNAVAILABLE, nothing held, when Stripe cannot be reached); staff orders are confirmed at once. Idempotency-Key works as for buyMuseumTickets.",
    authScopes: { visitor: true },
    args: { input: t.arg({ type: PlaceOrderInput, description: 'The order to place.' }) },
    resolve: async (_root, { input }, { deps, principal, idempotencyKey }) => {
      const options = purchaseOptions(deps, idempotencyKey, principal!);
      const order = await withinArgument('input', () => placeOrder(deps.db.sql, principal!, input, options));
      return withCheckout(deps, principal!, order);
    },
  }),
  resendTickets: t.field({
    type: EmailDeliveryType,
    description: `Queues a fresh copy of the mail of a confirmed order's tickets, with their QR codes and calendar entry, to the order's email: its owner or staff (NOT_FOUND for anyone else; CONFLICT for an order that is not confirmed), at most ${RESENDS_PER_HOUR} an hour per order (then TOO_MANY_REQUESTS with Retry-After). Answers the copy's delivery, pending.`,
    authScopes: { visitor: true },
    args: { orderId: t.arg({ type: 'UUID', description: "The order's id (Order.orderId)." }) },
    resolve: async (_root, { orderId }, { deps, principal }) => {
      const delivery = await resendTickets(deps.db.sql, principal!, orderId);
      deps.mail?.wake();
      return delivery;
    },
  }),
  cancelOrder: t.boolean({
    description:
      'Cancels every ticket of an order under the rules of cancelTicket, all or none (CONFLICT naming the ticket that stands in the way); what was paid for them is refunded through Stripe, once. A pending order gives up its held seats and its Checkout Session. True, also when it was cancelled already; NOT_FOUND for an order that is not yours.',
    authScopes: { visitor: true },
    args: { orderId: t.arg({ type: 'UUID', description: "The order's id (Order.orderId)." }) },
    resolve: async (_root, { orderId }, { deps, principal }) => {
      const givenBack = await cancelOrderTickets(deps.db.sql, principal!, orderId, deps.clock.today());
      deps.payments?.givenBack(givenBack);
      deps.mail?.wake();
      return true;
    },
  }),
}));

builder.queryField('order', (t) =>
  t.field({
    type: OrderType,
    nullable: true,
    description: "An order of yours (staff: anyone's); null when there is none you may see.",
    authScopes: { visitor: true },
    args: { orderId: t.arg({ type: 'UUID', description: "The order's id (Order.orderId)." }) },
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

builder.objectField(AccountType, 'ordersConnection', (t) =>
  t.connection(
    {
      type: OrderType,
      description:
        'orders as a Relay cursor connection: the orders this account placed, newest first, paged by cursor (first/after forwards, last/before backwards).',
      validate: connectionArgsSchema({}),
      resolve: (account, args, { deps }) =>
        keysetConnection(args, {
          scope: ordersScope(account.id),
          key: orderKeySchema,
          read: (window) => readOrderWindow(deps.db.sql, account.id, window),
        }),
    },
    {
      name: 'OrderConnection',
      description: "A page of an account's orders, by cursor (Relay cursor connection).",
      fields: (t) => ({
        totalCount: t.int({ description: TOTAL_COUNT, resolve: (page) => page.totalCount }),
      }),
    },
    { name: 'OrderEdge', description: 'An order of a page, and its cursor.' },
  ),
);
