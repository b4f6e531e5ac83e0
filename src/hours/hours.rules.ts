import { z } from 'zod';
import { isLocalTime } from '../common/dates.ts';
import { optionalTextField } from '../common/text.ts';

/** Weekdays as the API spells them; ISO weekday = index + 1 (monday = 1 … sunday = 7). */
export const WEEKDAYS = [
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'friday',
  'saturday',
  'sunday',
] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export const isoWeekdayOf = (weekday: Weekday) => WEEKDAYS.indexOf(weekday) + 1;
export const weekdayOf = (isoWeekday: number): Weekday => WEEKDAYS[isoWeekday - 1]!;

/** A time of day as the API speaks it: 24-hour HH:MM. */
export const localTime = z
  .string()
  .refine(isLocalTime, 'must be a time HH:MM (00:00 to 23:59)')
  .meta({ pattern: '^([01]\\d|2[0-3]):[0-5]\\d$', maxLength: 5 });

/** Hours of one day: both times (open before close), or `closed: true` and no times. */
interface DayTimes {
  timeOpen?: string | null | undefined;
  timeClose?: string | null | undefined;
  closed?: boolean | null | undefined;
}

function checkTimes(day: DayTimes, ctx: z.RefinementCtx, closedAlternative: string) {
  if (day.closed) {
    for (const key of ['timeOpen', 'timeClose'] as const) {
      if (day[key] != null) {
        ctx.addIssue({ code: 'custom', path: [key], message: 'must not be given when closed is true' });
      }
    }
    return;
  }
  for (const key of ['timeOpen', 'timeClose'] as const) {
    if (day[key] == null) {
      ctx.addIssue({ code: 'custom', path: [key], message: `is required unless ${closedAlternative}` });
    }
  }
  if (day.timeOpen != null && day.timeClose != null && day.timeOpen >= day.timeClose) {
    ctx.addIssue({
      code: 'custom',
      path: ['timeClose'],
      message: `must be after timeOpen (${day.timeOpen})`,
    });
  }
}

const dayTimesShape = {
  timeOpen: localTime.nullish(),
  timeClose: localTime.nullish(),
  closed: z.boolean().nullish(),
};

/** One weekday of the regular schedule. */
export const weekdayHoursSchema = z
  .object({ weekday: z.enum(WEEKDAYS), ...dayTimesShape })
  .superRefine((day, ctx) => checkTimes(day, ctx, 'closed is true'));

/** A reason is told to the buyers of the tickets a change calls off: it comes only with `cancelTickets`. */
function reasonOnlyWithCancelTickets(
  change: { reason?: string | null; cancelTickets?: boolean | null },
  ctx: z.RefinementCtx,
) {
  if (change.reason && !change.cancelTickets)
    ctx.addIssue({
      code: 'custom',
      path: ['reason'],
      message: 'is told to the buyers of tickets called off: give it with cancelTickets: true',
    });
}

/**
 * Changes to the regular schedule: 1 to 7 distinct weekdays; the others keep their hours. Hours that no longer
 * admit tickets sold are refused unless `cancelTickets` calls those tickets off, told `reason`.
 */
export const weeklyHoursSchema = z
  .object({
    days: z
      .array(weekdayHoursSchema)
      .min(1, 'must list at least one weekday')
      .max(7, 'must list at most 7 weekdays')
      .superRefine((days, ctx) => {
        const seen = new Set<string>();
        days.forEach((day, index) => {
          if (seen.has(day.weekday)) {
            ctx.addIssue({
              code: 'custom',
              path: [index, 'weekday'],
              message: `${day.weekday} is listed twice`,
            });
          }
          seen.add(day.weekday);
        });
      }),
    cancelTickets: z.boolean().nullish(),
    reason: optionalTextField(500),
  })
  .superRefine(reasonOnlyWithCancelTickets);

export type WeeklyHoursInput = z.infer<typeof weeklyHoursSchema>;

/**
 * Hours of one date, overriding the weekly schedule: special hours (both times), `closed: true` (a holiday),
 * or `regular: true`, which removes the override so the weekly schedule applies again.
 */
export const dayHoursSchema = z
  .object({
    date: z.iso.date('must be a calendar date YYYY-MM-DD that exists'),
    ...dayTimesShape,
    regular: z.boolean().nullish(),
    cancelTickets: z.boolean().nullish(),
    reason: optionalTextField(500),
  })
  .superRefine((day, ctx) => {
    if (day.regular) {
      for (const key of ['timeOpen', 'timeClose', 'closed'] as const) {
        if (day[key] != null && day[key] !== false) {
          ctx.addIssue({ code: 'custom', path: [key], message: 'must not be given when regular is true' });
        }
      }
      return;
    }
    checkTimes(day, ctx, 'closed or regular is true');
  })
  .superRefine(reasonOnlyWithCancelTickets);

export type DayHoursInput = z.infer<typeof dayHoursSchema>;
