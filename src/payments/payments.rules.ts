import { z } from 'zod';
import { EVENT_OUTCOMES } from './payments.service.ts';

/**
 * A Stripe event as it reaches the webhook: any JSON object. Its fields are Stripe's, and the signature, not
 * this schema, vouches for them: the payments read the body's text exactly as it came (the signature covers
 * its bytes, not what parsing makes of them).
 */
export const stripeEventBody = z
  .object({})
  .meta({ description: 'The request body exactly as Stripe sent it.' });

/** What the webhook answers for an event it took in. */
export const stripeEventReceipt = z
  .object({
    received: z.boolean().meta({
      description: 'Always true: the event was verified and taken in (a bad signature is an error instead).',
    }),
    outcome: z.enum(EVENT_OUTCOMES).meta({
      description:
        'confirmed, confirmed_late (paid after its hold ended, its seats still free), refunded (paid too late: no seat left), expired, awaiting_payment, no_change, replayed (this event took effect before), unknown_session, ignored (a type the service does not act on).',
    }),
  })
  .meta({
    description:
      "What a Stripe event did: Stripe needs only the 2xx; the outcome is for the operator's logs.",
  });

export type StripeEventReceipt = z.infer<typeof stripeEventReceipt>;
