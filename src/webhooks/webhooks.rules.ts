import { z } from 'zod';

/** How many subscriptions the museum keeps: every event change is queued once for each of them. */
export const MAX_WEBHOOK_SUBSCRIPTIONS = 100;

/** Seconds to wait before each retry of a failed delivery (MUSEUM_WEBHOOK_RETRY_SCHEDULE), as Svix does. */
export const DEFAULT_RETRY_SCHEDULE = [5, 300, 1800, 7200, 18_000, 36_000, 36_000] as const;

/** An attempt that has no 2xx answer after this long has failed. */
export const DELIVERY_TIMEOUT_MS = 10_000;

/** How much of a receiver's answer is kept with the delivery. */
export const KEPT_RESPONSE_BYTES = 1024;

const isHttpUrl = (value: string) => {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '';
  } catch {
    return false;
  }
};

/** A new subscription; where its URL may point is decided by the service (it resolves the host). */
export const webhookSubscriptionSchema = z.object({
  url: z
    .string()
    .trim()
    .max(2048, 'must be at most 2048 characters')
    .refine(isHttpUrl, 'must be an absolute https:// URL')
    .meta({ format: 'uri' }),
  description: z
    .string()
    .trim()
    .max(500, 'must be at most 500 characters')
    .refine((value) => !value.includes('\u0000'), 'must not contain the NUL character')
    .meta({ pattern: '^[^\\u0000]*$' })
    .nullish(),
});

export type WebhookSubscriptionFields = z.infer<typeof webhookSubscriptionSchema>;

/**
 * The wait before retry `n` (1-based) from the schedule, with ±20 % jitter so that receivers that failed
 * together are not retried together; null when the schedule is used up.
 */
export function retryDelaySeconds(schedule: readonly number[], retry: number, random = Math.random()) {
  const base = schedule[retry - 1];
  return base === undefined ? null : base * (0.8 + 0.4 * random);
}
