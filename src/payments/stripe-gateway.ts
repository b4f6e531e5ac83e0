import { createHash } from 'node:crypto';
import type Stripe from 'stripe';
import type { StripeSettings } from '../config.ts';

/** One line of a Checkout Session: `quantity` tickets at one price. */
/** A short digest of what a session sells: the same lines, the same key. */
const digestOf = (lines: unknown) =>
  createHash('sha256').update(JSON.stringify(lines)).digest('hex').slice(0, 16);

export interface CheckoutLine {
  name: string;
  /** Hundredths of the currency. */
  unitAmount: number;
  quantity: number;
}

export interface CheckoutRequest {
  orderId: string;
  lines: CheckoutLine[];
  currency: string;
  /** When the session stops taking payment (Stripe: 30 minutes to 24 hours from now). */
  expiresAt: Date;
}

/** What the service reads of a Checkout Session in a Stripe event. */
export interface CheckoutSession {
  id: string;
  clientReferenceId: string | null;
  paymentStatus: string;
  /** Hundredths of the currency. */
  amountTotal: number;
  paymentIntent: string | null;
}

export interface PaymentEvent {
  id: string;
  type: string;
  /** The Checkout Session of a `checkout.session.*` event; null for any other. */
  session: CheckoutSession | null;
}

/** Stripe refused the call (a 4xx other than 429): trying again would not change its answer. */
export class PaymentRefused extends Error {}

/** The calls the service makes to Stripe, and the verification of what Stripe sends. */
export interface PaymentGateway {
  createCheckout(request: CheckoutRequest): Promise<{ sessionId: string; url: string }>;
  /** Expires an open session; one that is complete or expired already is left as it is. */
  expireCheckout(sessionId: string): Promise<void>;
  /** Refunds `amount` of a payment; the same `refundId` refunds once, however often it is sent. */
  refund(refundId: string, paymentIntent: string, amount: number): Promise<{ stripeRefundId: string }>;
  /** The event a webhook request carries, or null when its signature is not Stripe's (or too old). */
  verifyEvent(payload: string, signature: string): PaymentEvent | null;
}

/** Seconds a webhook's signature stays acceptable: Stripe's own default, 5 minutes. */
const SIGNATURE_TOLERANCE_SECONDS = 300;
/** Stripe answers in well under this; a call that takes longer is tried again (with its idempotency key). */
const STRIPE_TIMEOUT_MS = 8_000;

/** The official SDK, loaded only with MUSEUM_PAYMENTS=stripe (it is large, and most museums never need it). */
export async function stripeGateway(settings: StripeSettings): Promise<PaymentGateway> {
  const { default: StripeSdk } = await import('stripe');
  const base = settings.apiBase ? new URL(settings.apiBase) : null;
  const stripe = new StripeSdk(settings.secretKey, {
    maxNetworkRetries: 2,
    timeout: STRIPE_TIMEOUT_MS,
    telemetry: false,
    ...(base
      ? {
          host: base.hostname,
          port: base.port || (base.protocol === 'https:' ? 443 : 80),
          protocol: base.protocol === 'https:' ? 'https' : 'http',
        }
      : {}),
  });
  const refusal = (error: unknown) => {
    const status = (error as Stripe.errors.StripeError).statusCode;
    return status !== undefined && status >= 400 && status < 500 && status !== 429
      ? new PaymentRefused((error as Error).message)
      : error;
  };

  return {
    async createCheckout({ orderId, lines, currency, expiresAt }) {
      const session = await stripe.checkout.sessions
        .create(
          {
            mode: 'payment',
            client_reference_id: orderId,
            metadata: { orderId },
            line_items: lines.map((line) => ({
              quantity: line.quantity,
              price_data: {
                currency: currency.toLowerCase(),
                unit_amount: line.unitAmount,
                product_data: { name: line.name },
              },
            })),
            expires_at: Math.floor(expiresAt.getTime() / 1000),
            success_url: settings.successUrl.replaceAll('{orderId}', orderId),
            cancel_url: settings.cancelUrl.replaceAll('{orderId}', orderId),
          },
          // A retry of this very call (the SDK's, after a lost answer) makes no second session; an order
          // repriced (the museum called some of its tickets off) asks for other lines, so for a new one.
          { idempotencyKey: `checkout-${orderId}-${expiresAt.getTime()}-${digestOf(lines)}` },
        )
        .catch((error: unknown) => {
          throw refusal(error);
        });
      if (!session.url) throw new Error('Stripe answered a Checkout Session without its url');
      return { sessionId: session.id, url: session.url };
    },

    async expireCheckout(sessionId) {
      try {
        await stripe.checkout.sessions.expire(sessionId);
      } catch (error) {
        // Paid or expired meanwhile: its own event says so.
        if (!(refusal(error) instanceof PaymentRefused)) throw error;
      }
    },

    async refund(refundId, paymentIntent, amount) {
      const refund = await stripe.refunds
        .create({ payment_intent: paymentIntent, amount }, { idempotencyKey: `refund-${refundId}` })
        .catch((error: unknown) => {
          throw refusal(error);
        });
      return { stripeRefundId: refund.id };
    },

    verifyEvent(payload, signature) {
      let event: Stripe.Event;
      try {
        event = stripe.webhooks.constructEvent(
          payload,
          signature,
          settings.webhookSecret,
          SIGNATURE_TOLERANCE_SECONDS,
        );
      } catch {
        return null;
      }
      const object = event.data.object as Partial<Stripe.Checkout.Session>;
      const session =
        object.object === 'checkout.session' && typeof object.id === 'string'
          ? {
              id: object.id,
              clientReferenceId: object.client_reference_id ?? null,
              paymentStatus: object.payment_status ?? 'unpaid',
              amountTotal: object.amount_total ?? 0,
              paymentIntent:
                typeof object.payment_intent === 'string'
                  ? object.payment_intent
                  : (object.payment_intent?.id ?? null),
            }
          : null;
      return { id: event.id, type: event.type, session };
    },
  };
}
