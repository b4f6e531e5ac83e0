import { z } from 'zod';
import { priceSchema } from '../common/money.ts';
import { paginationSchema } from '../common/pagination.ts';
import { optionalTextField, textField } from '../common/text.ts';
import { eventPricesSchema } from '../prices/prices.rules.ts';

export const MAX_EVENT_DATES = 366;

const eventDates = z
  .array(z.iso.date('must be a calendar date YYYY-MM-DD that exists'))
  .min(1, 'must list at least one date')
  .max(MAX_EVENT_DATES, `must list at most ${MAX_EVENT_DATES} dates`)
  .superRefine((dates, ctx) => {
    const seen = new Set<string>();
    dates.forEach((date, index) => {
      if (seen.has(date)) ctx.addIssue({ code: 'custom', path: [index], message: `${date} is listed twice` });
      seen.add(date);
    });
  })
  .meta({ uniqueItems: true });

export const MAX_CAPACITY = 1_000_000;

/** Tickets per event date; null (or left out) is unlimited, 0 sells none. */
const eventCapacity = z
  .number()
  .int('must be a whole number')
  .min(0, 'must be 0 or more')
  .max(MAX_CAPACITY, `must be at most ${MAX_CAPACITY}`)
  .nullish();

/** The writable fields of a special event and their rules, for create (all) and update (some). */
export const eventFieldsSchema = z.object({
  name: textField(200),
  location: textField(200),
  eventDescription: textField(5000),
  dates: eventDates,
  price: priceSchema,
  prices: eventPricesSchema.nullish(),
  capacity: eventCapacity,
});

export type EventFields = z.infer<typeof eventFieldsSchema>;

/** Why the museum calls tickets off (an event deleted, dates dropped, a day closed): told to their buyers. */
export const CANCELLATION_REASON_MAX = 500;
export const cancellationReasonSchema = optionalTextField(CANCELLATION_REASON_MAX);

/**
 * A change to an event: any non-empty subset of the writable fields, each with the rules of create, and why
 * the tickets of dates it drops are called off.
 */
export const eventChangesSchema = eventFieldsSchema
  .partial()
  .extend({ cancellationReason: cancellationReasonSchema })
  .refine(
    ({ cancellationReason: _reason, ...changes }) =>
      Object.values(changes).some((value) => value !== undefined),
    { message: 'must give at least one of name, location, eventDescription, dates, price, capacity, prices' },
  )
  .meta({ minProperties: 1 });

export type EventChanges = z.infer<typeof eventChangesSchema>;

export const listEventsArgsSchema = paginationSchema
  .extend({
    startDate: z.iso.date().nullish(),
    endDate: z.iso.date().nullish(),
  })
  .refine((args) => !args.startDate || !args.endDate || args.endDate >= args.startDate, {
    path: ['endDate'],
    message: 'must not be before startDate',
  });

/** Days after startDate that a list covers when endDate is not given. */
export const DEFAULT_EVENT_RANGE_DAYS = 7;
