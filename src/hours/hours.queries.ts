import { statement } from '../db/sql.ts';

// The hours' SQL: the weekly schedule, the dates with hours of their own, and what the hours page reads.

/** Hours are published this many days ahead of the start date; pages beyond that are empty. */
export const HOURS_HORIZON_DAYS = 366;

export interface HoursRow {
  weekday: number | null;
  dayOffset: number | null;
  timeOpen: string | null;
  timeClose: string | null;
}

// What decides the hours of the days from $1 on: the weekly schedule (7 rows) and the dates of the horizon
// that have hours of their own (usually none), each as its offset from $1. The days are walked here rather
// than in SQL: a generate_series over the horizon with two joins per day cost PostgreSQL six times the CPU
// of these two small scans, and walking a year of days in JavaScript costs a few microseconds.
export const HOURS_OF_HORIZON = statement<HoursRow, [startDate: string]>(
  'hours_of_horizon',
  `select weekday::int as weekday, null::int as "dayOffset",
          to_char(time_open, 'HH24:MI') as "timeOpen", to_char(time_close, 'HH24:MI') as "timeClose"
   from weekly_hours
   union all
   select null, date - $1::date,
          to_char(time_open, 'HH24:MI'), to_char(time_close, 'HH24:MI')
   from day_hours
   where date between $1::date and $1::date + ${HOURS_HORIZON_DAYS - 1}`,
  { mayBeStale: true },
);

/** A weekday's or a date's hours as stored: null times, closed. */
export interface StoredHours {
  timeOpen: string | null;
  timeClose: string | null;
}

export const WEEKLY_HOURS = statement<StoredHours & { weekday: number }>(
  'hours_weekly',
  'select weekday::int as weekday, time_open::text as "timeOpen", time_close::text as "timeClose" from weekly_hours',
);

export const WEEKDAY_HOURS = statement<StoredHours, [weekday: number]>(
  'hours_weekday',
  'select time_open::text as "timeOpen", time_close::text as "timeClose" from weekly_hours where weekday = $1::int',
);

export const UPSERT_WEEKDAY_HOURS = statement<
  never,
  [weekday: number, timeOpen: string | null, timeClose: string | null]
>(
  'hours_upsert_weekday',
  `insert into weekly_hours (weekday, time_open, time_close) values ($1::int, $2::time, $3::time)
   on conflict (weekday) do update set time_open = excluded.time_open, time_close = excluded.time_close`,
);

export const DATE_HOURS = statement<StoredHours, [date: string]>(
  'hours_of_date',
  'select time_open::text as "timeOpen", time_close::text as "timeClose" from day_hours where date = $1::date',
);

export const UPSERT_DATE_HOURS = statement<
  never,
  [date: string, timeOpen: string | null, timeClose: string | null]
>(
  'hours_upsert_date',
  `insert into day_hours (date, time_open, time_close) values ($1::date, $2::time, $3::time)
   on conflict (date) do update set time_open = excluded.time_open, time_close = excluded.time_close`,
);

export const DELETE_DATE_HOURS = statement<never, [date: string]>(
  'hours_delete_date',
  'delete from day_hours where date = $1::date',
);
