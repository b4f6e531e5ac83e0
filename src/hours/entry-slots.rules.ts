import { z } from 'zod';

export const MIN_SLOT_MINUTES = 15;
export const MAX_SLOT_MINUTES = 240;
export const MAX_SLOT_CAPACITY = 1_000_000;

const MINUTES_RULE = `must be a whole number of minutes from ${MIN_SLOT_MINUTES} to ${MAX_SLOT_MINUTES}`;
const CAPACITY_RULE = `must be a whole number from 0 to ${MAX_SLOT_CAPACITY}`;

const slotMinutes = z
  .int(MINUTES_RULE)
  .min(MIN_SLOT_MINUTES, MINUTES_RULE)
  .max(MAX_SLOT_MINUTES, MINUTES_RULE);
const slotCapacity = z.int(CAPACITY_RULE).min(0, CAPACITY_RULE).max(MAX_SLOT_CAPACITY, CAPACITY_RULE);

interface SlotFields {
  minutes?: number | null | undefined;
  capacity?: number | null | undefined;
}

/** Slots need both their length and their capacity; switching them off (minutes null) takes neither. */
function checkSlotFields(fields: SlotFields, ctx: z.RefinementCtx) {
  if (fields.minutes == null && fields.capacity != null)
    ctx.addIssue({ code: 'custom', path: ['capacity'], message: 'must not be given without minutes' });
  if (fields.minutes != null && fields.capacity == null)
    ctx.addIssue({ code: 'custom', path: ['capacity'], message: 'is required with minutes' });
}

/** The museum's timed entry: slots of `minutes` from opening time, `capacity` tickets each; minutes null: off. */
export const entrySlotsSchema = z
  .object({ minutes: slotMinutes.nullish(), capacity: slotCapacity.nullish() })
  .superRefine((fields, ctx) => {
    if (fields.minutes === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['minutes'],
        message: 'is required: the length of a slot, or null to switch timed entry off',
      });
    checkSlotFields(fields, ctx);
  });

export type EntrySlotsInput = z.infer<typeof entrySlotsSchema>;

/**
 * One date's own timed entry: slots (minutes and capacity), none that day (minutes null), or `regular: true`,
 * which removes what was set for the date so that the museum's applies again.
 */
export const dayEntrySlotsSchema = z
  .object({
    date: z.iso.date('must be a calendar date YYYY-MM-DD that exists'),
    minutes: slotMinutes.nullish(),
    capacity: slotCapacity.nullish(),
    regular: z.boolean().nullish(),
  })
  .superRefine((day, ctx) => {
    if (day.regular) {
      for (const key of ['minutes', 'capacity'] as const)
        if (day[key] != null)
          ctx.addIssue({ code: 'custom', path: [key], message: 'must not be given when regular is true' });
      return;
    }
    if (day.minutes === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['minutes'],
        message:
          "is required: the length of the date's slots, null for none that day, or regular: true instead",
      });
    checkSlotFields(day, ctx);
  });

export type DayEntrySlotsInput = z.infer<typeof dayEntrySlotsSchema>;

/** Minutes since midnight of a 'HH:MM' time, and back. */
export const minutesOf = (time: string) => Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));
export const timeOf = (minutes: number) =>
  `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

export interface SlotTimes {
  startTime: string;
  endTime: string;
}

/**
 * A day's slots: one every `minutes` from opening time, the last starting before closing; a slot ends
 * `minutes` after it starts, or at closing time if that comes first.
 */
export function slotsOf(timeOpen: string, timeClose: string, minutes: number): SlotTimes[] {
  const close = minutesOf(timeClose);
  const slots: SlotTimes[] = [];
  for (let start = minutesOf(timeOpen); start < close; start += minutes)
    slots.push({ startTime: timeOf(start), endTime: timeOf(Math.min(start + minutes, close)) });
  return slots;
}

/**
 * A slot setting (`minutes`, `capacity`) of a date: its own (`day_entry_slots d`, joined on the date) if it has
 * a row, else the museum's (`entry_slots m`). A date's own row of nulls is timed entry switched off that day.
 */
export const slotSetting = (column: 'minutes' | 'capacity', day = 'd', museum = 'm') =>
  `coalesce(${day}.${column}, case when ${day}.date is null then ${museum}.${column} end)`;
