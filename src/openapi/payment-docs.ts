// What the OpenAPI document says of Stripe's webhook, as route-docs.ts does for the rest; document.ts reads it.

import type { RouteDocs } from './route-docs.ts';

export const paymentDocs: Record<string, RouteDocs> = {
  receiveStripeEvent: {
    summary: "Stripe's webhook",
    description:
      "Where Stripe sends its events (`MUSEUM_PAYMENTS=stripe`; register this URL in Stripe's dashboard for `checkout.session.completed`, `checkout.session.async_payment_succeeded`, `checkout.session.async_payment_failed` and `checkout.session.expired`). No account: the `Stripe-Signature` header, made with `STRIPE_WEBHOOK_SECRET`, at most 5 minutes old, vouches for the body; without it, 400 and nothing changes. A paid session confirms its order (or, paid after the hold ended, takes its seats again if they are free, else refunds the payment in full); an expired or failed one gives the order's seats back. Each event takes effect once (a replay answers 200 `replayed`), in whatever order events come; an event for no order here answers 200 too, and is logged. 404 where payments are off.",
    tags: ['Payments'],
    responseSchema: 'StripeEventReceipt',
    examples: {
      response: {
        ReceiveStripeEventResponseExample: {
          summary: 'An order confirmed',
          value: { received: true, outcome: 'confirmed' },
        },
      },
    },
  },
};
