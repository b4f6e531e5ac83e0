import { defineEntity, type InferEntity, p } from '@mikro-orm/core';

const OPEN_BEFORE_CLOSE = '("time_open" is null and "time_close" is null) or "time_open" < "time_close"';

/** The regular schedule: one row per ISO weekday (1 = Monday); null times mean closed. */
export const WeeklyHours = defineEntity({
  name: 'WeeklyHours',
  tableName: 'weekly_hours',
  properties: {
    weekday: p.smallint().primary().autoincrement(false),
    timeOpen: p.time(0).nullable(),
    timeClose: p.time(0).nullable(),
  },
  checks: [
    { name: 'weekly_hours_weekday_check', expression: '(weekday >= 1) AND (weekday <= 7)' },
    { name: 'weekly_hours_times_check', expression: OPEN_BEFORE_CLOSE },
  ],
});

export type WeeklyHours = InferEntity<typeof WeeklyHours>;

/** An exception for one date (a holiday, late opening); null times mean closed that day. */
export const DayHours = defineEntity({
  name: 'DayHours',
  tableName: 'day_hours',
  properties: {
    date: p.date().primary(),
    timeOpen: p.time(0).nullable(),
    timeClose: p.time(0).nullable(),
  },
  checks: [{ name: 'day_hours_times_check', expression: OPEN_BEFORE_CLOSE }],
});

export type DayHours = InferEntity<typeof DayHours>;
