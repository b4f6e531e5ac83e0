import { notFound } from '../common/errors.ts';
import { builder } from '../graphql/builder.ts';

interface StripeEventReceipt {
  received: true;
  outcome: string;
}

const StripeEventReceiptType = builder.objectRef<StripeEventReceipt>('StripeEventReceipt').implement({
  description: "What a Stripe event did: Stripe needs only the 2xx; the outcome is for the operator's logs.",
  fields: (t) => ({
    received: t.exposeBoolean('received', {
      description: 'Always true: the event was verified and taken in (a bad signature is an error instead).',
    }),
    outcome: t.exposeString('outcome', {
      description:
        'confirmed, confirmed_late (paid after its hold ended, its seats still free), refunded (paid too late: no seat left), expired, awaiting_payment, no_change, replayed (this event took effect before), unknown_session, ignored (a type the service does not act on).',
    }),
  }),
});

builder.mutationField('receiveStripeEvent', (t) =>
  t.field({
    type: StripeEventReceiptType,
    description:
      "Stripe's webhook (POST /payments/stripe), with MUSEUM_PAYMENTS=stripe: no account, the Stripe-Signature of the payload (STRIPE_WEBHOOK_SECRET, at most 5 minutes old) instead; else BAD_USER_INPUT and nothing changes. Each event takes effect once, in whatever order events come.",
    args: {
      payload: t.arg.string({ description: 'The request body exactly as Stripe sent it.' }),
      signature: t.arg.string({ required: false, description: 'The Stripe-Signature header.' }),
    },
    resolve: async (_root, { payload, signature }, { deps }) => {
      if (!deps.payments) throw notFound('Payments are not taken here (MUSEUM_PAYMENTS=none)');
      const outcome = await deps.payments.receive(payload, signature ?? null);
      return { received: true as const, outcome };
    },
  }),
);
