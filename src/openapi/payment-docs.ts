// What the OpenAPI document says of Stripe's webhook (POST /payments/stripe, src/http/stripe-webhook.ts): a route
// of the HTTP lane, not an operation of routes.ts, so it is described here from the zod schemas its handler
// uses (src/payments/payments.rules.ts) and the refusals it gives; document.ts adds it to the paths.

import { ERROR_KINDS, type ErrorKind } from '../common/errors.ts';
import { stripeEventBody, stripeEventReceipt } from '../payments/payments.rules.ts';
import { type Components, HEADER_VALUE } from './components.ts';
import { fromZod, type Json } from './schemas.ts';

export const STRIPE_WEBHOOK = { path: '/payments/stripe', method: 'post', tag: 'Payments' } as const;

/**
 * What it refuses: a bad or missing signature and a body that is not a JSON object (400), payments off
 * (404), a body too large (413) or not application/json (415); and, as every route, too many requests in
 * progress from the client (src/http/listener.ts), a fault, the database out of reach or the deadline passed.
 */
const REFUSALS: ErrorKind[] = [
  'validation',
  'notFound',
  'payloadTooLarge',
  'unsupportedMediaType',
  'tooManyRequests',
  'internal',
  'unavailable',
];

/** The webhook's OpenAPI operation; its schemas and examples are added to `components`. */
export function stripeWebhookOperation(components: Components): Json {
  const receipt = components.addSchema(
    'StripeEventReceipt',
    fromZod(stripeEventReceipt),
    'StripeEventReceipt_',
  );
  return {
    summary: "Stripe's webhook",
    description:
      "Where Stripe sends its events (`MUSEUM_PAYMENTS=stripe`; register this URL in Stripe's dashboard for `checkout.session.completed`, `checkout.session.async_payment_succeeded`, `checkout.session.async_payment_failed` and `checkout.session.expired`). No account: the `Stripe-Signature` header, made with `STRIPE_WEBHOOK_SECRET`, at most 5 minutes old, vouches for the body; without it, 400 and nothing changes. A paid session confirms its order (or, paid after the hold ended, takes its seats again if they are free, else refunds the payment in full); an expired or failed one gives the order's seats back. Each event takes effect once (a replay answers 200 `replayed`), in whatever order events come; an event for no order here answers 200 too, and is logged. 404 where payments are off.",
    operationId: 'receiveStripeEvent',
    tags: [STRIPE_WEBHOOK.tag],
    parameters: [
      {
        name: 'Stripe-Signature',
        in: 'header',
        description: 'The Stripe-Signature header.',
        schema: HEADER_VALUE,
      },
    ],
    requestBody: { required: true, content: { 'application/json': { schema: fromZod(stripeEventBody) } } },
    // Stripe sends no credentials: the signature vouches for the event.
    security: [],
    responses: {
      '200': {
        description: 'Success.',
        headers: components.withEdgeHeaders(),
        content: {
          'application/json': {
            schema: receipt,
            ...components.addExamples({
              ReceiveStripeEventResponseExample: {
                summary: 'An order confirmed',
                value: { received: true, outcome: 'confirmed' },
              },
            }),
          },
        },
      },
      ...Object.fromEntries(
        REFUSALS.map((kind) => [String(ERROR_KINDS[kind].status), components.addProblem(kind)]),
      ),
    },
  };
}
