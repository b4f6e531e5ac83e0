// POST /tickets over GraphQL (buyMuseumTickets): one ticket, sold at once, or, when it waits for payment
// (MUSEUM_PAYMENTS=stripe), placed as a one-ticket order and offered at Stripe Checkout. It lives with the
// orders, which it may place; the tickets' fields it answers with are theirs.
import type { Principal } from '../accounts/authenticator.ts';
import { invalidField } from '../common/errors.ts';
import type { AppDeps } from '../context.ts';
import { withinArgument } from '../graphql/argument-errors.ts';
import { builder } from '../graphql/builder.ts';
import type { OrderStatus } from '../tickets/order.entity.ts';
import { purchaseOptions } from '../tickets/purchase-options.ts';
import {
  TicketKindEnum,
  ticketFields,
  ticketPriceFields,
  visitInputFields,
} from '../tickets/tickets.graphql.ts';
import { type BuyTicketsInput, buyTicketsSchema } from '../tickets/tickets.rules.ts';
import { buyTickets, type PurchaseOptions, type TicketConfirmation } from '../tickets/tickets.service.ts';
import { withCheckout } from './checkout.ts';
import { OrderStatusEnum } from './order-status.graphql.ts';
import { placeOrder } from './orders.service.ts';

/** A purchase's answer: with its order's payment, when it waits for one (MUSEUM_PAYMENTS=stripe). */
type PurchaseAnswer = TicketConfirmation & {
  orderId?: string;
  status?: OrderStatus;
  checkoutUrl?: string | null;
  expiresAt?: string | null;
};

export const MuseumTicketsConfirmationType = builder
  .objectRef<PurchaseAnswer>('MuseumTicketsConfirmation')
  .implement({
    description: 'Details for a museum ticket after a successful purchase.',
    fields: (t) => ({
      ...ticketFields(t),
      ...ticketPriceFields(t),
      orderId: t.field({
        type: 'UUID',
        nullable: true,
        description:
          "With MUSEUM_PAYMENTS=stripe, a visitor's ticket is a one-ticket order, paid at checkoutUrl; else null.",
        resolve: (answer) => answer.orderId ?? null,
      }),
      status: t.field({
        type: OrderStatusEnum,
        nullable: true,
        description: "That order's status (pending until it is paid); null without one.",
        resolve: (answer) => answer.status ?? null,
      }),
      checkoutUrl: t.string({
        nullable: true,
        description: 'Where the ticket is paid (Stripe Checkout); null without an order to pay.',
        resolve: (answer) => answer.checkoutUrl ?? null,
      }),
      expiresAt: t.field({
        type: 'DateTime',
        nullable: true,
        description:
          'When the held seat is given back unless the ticket is paid; null without an order to pay.',
        resolve: (answer) => answer.expiresAt ?? null,
      }),
    }),
  });

export const BuyMuseumTicketsInput = builder.inputType('BuyMuseumTicketsInput', {
  description: 'A ticket purchase: general entry on an open day, or a special event on one of its dates.',
  fields: (t) => ({
    ticketType: t.field({
      type: TicketKindEnum,
      description: 'What the ticket is for: general entry, or a special event (then eventId).',
    }),
    ticketDate: t.field({ type: 'Date', description: 'Today or later (museum time zone).' }),
    email: t.field({ type: 'EmailAddress', description: 'Where the ticket is sent.' }),
    eventId: t.field({
      type: 'UUID',
      required: false,
      description: 'Required for event tickets, forbidden for general.',
    }),
    ...visitInputFields(t),
  }),
  validate: buyTicketsSchema,
});

builder.mutationField('buyMuseumTickets', (t) =>
  t.field({
    type: MuseumTicketsConfirmationType,
    description: 'Buys a ticket for general entry or a special event.',
    authScopes: { visitor: true },
    args: { input: t.arg({ type: BuyMuseumTicketsInput, description: 'The ticket to buy.' }) },
    resolve: (_root, { input }, { deps, principal, idempotencyKey }) => {
      const options = purchaseOptions(deps, idempotencyKey, principal!);
      return withinArgument('input', () =>
        options.holdMinutes === null
          ? buyTickets(deps.db.sql, principal!, input, options)
          : buyHeldTicket(deps, principal!, input, options),
      );
    },
  }),
);

/** A ticket that waits for payment: a one-ticket order, offered for payment, answered as a purchase. */
async function buyHeldTicket(
  deps: AppDeps,
  buyer: Principal,
  input: BuyTicketsInput,
  options: PurchaseOptions,
): Promise<PurchaseAnswer> {
  if (input.ticketDate < options.today)
    throw invalidField('ticketDate', `must be today (${options.today}) or later`);
  const { email, ...line } = input;
  // Errors name the purchase's own fields, as for a ticket bought alone, not the order's line.
  const placed = await placeOrder(
    deps.db.sql,
    buyer,
    { email, lines: [{ ...line, quantity: 1 }] },
    options,
    (_line, error) => error,
  );
  const order = await withCheckout(deps, buyer, placed);
  const { status: _ticketStatus, checkedInAt: _checkedInAt, ...ticket } = order.tickets[0]!;
  return {
    ...ticket,
    orderId: order.orderId,
    status: order.status ?? 'confirmed',
    checkoutUrl: order.status === 'pending' ? (order.checkoutUrl ?? null) : null,
    expiresAt: order.expiresAt ?? null,
  };
}
