import { statement } from '../db/sql.ts';
import { slotSetting } from './entry-slots.rules.ts';

// The hours' SQL: the weekly schedule, the dates with hours of their own, what the hours page reads, and the
// entry slots (the museum's and each day's).

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

/** An open day's hours, HH:MM. */
export interface OpenDayRow {
  date: string;
  timeOpen: string;
  timeClose: string;
}

// The dates of $1 that are open, with their hours: a date's own hours where it has some (null times: closed),
// else its weekday's.
export const OPEN_DAYS = statement<OpenDayRow, [dates: string[]]>(
  'hours_open_days',
  `select to_char(days.day, 'YYYY-MM-DD') as date,
          to_char(hours.time_open, 'HH24:MI') as "timeOpen", to_char(hours.time_close, 'HH24:MI') as "timeClose"
   from unnest($1::date[]) as days(day)
   left join day_hours d on d.date = days.day
   left join weekly_hours w on w.weekday = extract(isodow from days.day)::int
   cross join lateral (select case when d.date is null then w.time_open else d.time_open end as time_open,
                              case when d.date is null then w.time_close else d.time_close end as time_close) hours
   where hours.time_open is not null and hours.time_close is not null`,
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

/** Timed entry as set: slots of `minutes`, `capacity` tickets each; null minutes: none. */
export interface SlotSettings {
  minutes: number | null;
  capacity: number | null;
}

export const MUSEUM_SLOTS = statement<SlotSettings>(
  'entry_slots',
  'select minutes, capacity from entry_slots',
);

export const SET_MUSEUM_SLOTS = statement<
  SlotSettings,
  [minutes: number | null | undefined, capacity: number | null]
>('set_entry_slots', 'update entry_slots set minutes = $1, capacity = $2 returning minutes, capacity');

// The date's own settings if it has some, else the museum's.
export const DAY_SLOTS = statement<SlotSettings & { regular: boolean }, [date: string]>(
  'day_entry_slots',
  `select ${slotSetting('minutes')} as minutes, ${slotSetting('capacity')} as capacity,
          d.date is null as regular
   from entry_slots m left join day_entry_slots d on d.date = $1::date`,
);

export const SET_DAY_SLOTS = statement<
  never,
  [date: string, minutes: number | null, capacity: number | null]
>(
  'set_day_entry_slots',
  `insert into day_entry_slots (date, minutes, capacity) values ($1::date, $2, $3)
   on conflict (date) do update set minutes = excluded.minutes, capacity = excluded.capacity`,
);
export const REGULAR_DAY_SLOTS = statement<never, [date: string]>(
  'regular_day_entry_slots',
  'delete from day_entry_slots where date = $1::date',
);

interface DaySlotsRow extends SlotSettings {
  date: string;
  sold: Record<string, number> | null;
}

// Each date of $1 with its slot settings and the tickets of each entry time sold and not cancelled.
export const SLOTS_OF_DAYS = statement<DaySlotsRow, [dates: string[]]>(
  'entry_slots_of_days',
  `select to_char(days.day, 'YYYY-MM-DD') as date,
          ${slotSetting('minutes')} as minutes, ${slotSetting('capacity')} as capacity,
          (select json_object_agg(sold.entry, sold.tickets) from (
             select to_char(t.entry_time, 'HH24:MI') as entry, count(*)::int as tickets from ticket t
             where t.ticket_date = days.day and t.entry_time is not null and t.cancelled_at is null
             group by t.entry_time) sold) as sold
   from unnest($1::date[]) as days(day)
   cross join entry_slots m
   left join day_entry_slots d on d.date = days.day`,
  { mayBeStale: true },
);
