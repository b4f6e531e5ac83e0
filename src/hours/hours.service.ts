import type { EntityManager } from '@mikro-orm/postgresql';
import { isoWeekday, LAST_DATE, toLocalTime } from '../common/dates.ts';
import { offsetOf, type Page } from '../common/pagination.ts';
import { type Queryable, statement } from '../db/sql.ts';
import { DayHours, WeeklyHours } from './hours.entity.ts';
import {
  type DayHoursInput,
  isoWeekdayOf,
  type Weekday,
  type WeeklyHoursInput,
  weekdayOf,
} from './hours.rules.ts';

export interface MuseumDay {
  date: string;
  timeOpen: string;
  timeClose: string;
}

/** Hours are published this many days ahead of the start date; pages beyond that are empty. */
export const HOURS_HORIZON_DAYS = 366;

// Days from $1, each with its date's own hours if it has some, else its weekday's; one page ($2, $3) of the
// open ones. Only as many days are walked as the page can need: m whole weeks hold k·m open weekdays (k open
// per week), at most c of them closed by the c dates with hours of their own, so 7·ceil((offset + limit + c)
// / k) days hold the page; never more than the horizon, nor past the calendar's last date.
const OPEN_DAYS = statement(
  'hours_open_days',
  `with walk as (
     select least(
              ${HOURS_HORIZON_DAYS},
              date '${LAST_DATE}' - $1::date + 1,
              case when weekly.open_weekdays = 0 then ${HOURS_HORIZON_DAYS}
                   else 7 * ceil(($2::int + $3::bigint + own.dates)::numeric / weekly.open_weekdays) end
            )::int as days
     from (select count(*) filter (where time_open is not null)::int as open_weekdays from weekly_hours) weekly,
          (select count(*)::int as dates from day_hours
           where date between $1::date and $1::date + ${HOURS_HORIZON_DAYS - 1}) own)
   select to_char(d.day, 'YYYY-MM-DD') as date,
          to_char(h.time_open, 'HH24:MI') as "timeOpen",
          to_char(h.time_close, 'HH24:MI') as "timeClose"
   from walk
   cross join generate_series(0, walk.days - 1) as i
   cross join lateral (select $1::date + i as day) d
   left join day_hours o on o.date = d.day
   left join weekly_hours w on w.weekday = extract(isodow from d.day)
   cross join lateral (
     select case when o.date is null then w.time_open else o.time_open end as time_open,
            case when o.date is null then w.time_close else o.time_close end as time_close
   ) h
   where h.time_open is not null
   order by d.day
   limit $2::int offset $3::bigint`,
  { mayBeStale: true },
);

/** Open days from `startDate` on, ascending: the weekly schedule, overridden by per-date hours. */
export async function listOpenDays(sql: Queryable, startDate: string, page: Page): Promise<MuseumDay[]> {
  return sql.query<MuseumDay>(OPEN_DAYS, [startDate, page.limit, offsetOf(page)]);
}

/** One weekday of the regular schedule, as staff see it; a closed day has null times. */
export interface WeekdayHours {
  weekday: Weekday;
  timeOpen: string | null;
  timeClose: string | null;
  closed: boolean;
}

/** The hours that apply on one date, and whether they are the weekly schedule's (no override for the date). */
export interface DaySchedule {
  date: string;
  timeOpen: string | null;
  timeClose: string | null;
  closed: boolean;
  regular: boolean;
}

type Times = { timeOpen?: string | null; timeClose?: string | null };

function scheduleTimes(times: Times | null | undefined) {
  const open = times?.timeOpen && times.timeClose;
  return {
    timeOpen: open ? toLocalTime(times.timeOpen!) : null,
    timeClose: open ? toLocalTime(times.timeClose!) : null,
    closed: !open,
  };
}

/** The regular schedule, Monday to Sunday. */
export async function weeklySchedule(em: EntityManager): Promise<WeekdayHours[]> {
  const rows = await em.find(WeeklyHours, {});
  const byWeekday = new Map(rows.map((row) => [row.weekday, row]));
  return [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({
    weekday: weekdayOf(weekday),
    ...scheduleTimes(byWeekday.get(weekday)),
  }));
}

/** Changes the hours of the weekdays given (the others keep theirs); answers the whole new schedule. */
export async function setWeeklyHours(em: EntityManager, input: WeeklyHoursInput): Promise<WeekdayHours[]> {
  return em.transactional(async (tx) => {
    for (const day of input.days) {
      await tx.upsert(WeeklyHours, {
        weekday: isoWeekdayOf(day.weekday),
        timeOpen: day.closed ? null : day.timeOpen!,
        timeClose: day.closed ? null : day.timeClose!,
      });
    }
    return weeklySchedule(tx);
  });
}

/** The hours that apply on one date: its override if it has one, else its weekday's. */
export async function scheduleOn(em: EntityManager, date: string): Promise<DaySchedule> {
  const override = await em.findOne(DayHours, { date });
  if (override) return { date, ...scheduleTimes(override), regular: false };
  const weekly = await em.findOne(WeeklyHours, { weekday: isoWeekday(date) });
  return { date, ...scheduleTimes(weekly), regular: true };
}

/** Sets special hours or closes one date, or (`regular`) lets the weekly schedule apply to it again. */
export async function setDayHours(em: EntityManager, input: DayHoursInput): Promise<DaySchedule> {
  return em.transactional(async (tx) => {
    if (input.regular) {
      await tx.nativeDelete(DayHours, { date: input.date });
    } else {
      await tx.upsert(DayHours, {
        date: input.date,
        timeOpen: input.closed ? null : input.timeOpen!,
        timeClose: input.closed ? null : input.timeClose!,
      });
    }
    return scheduleOn(tx, input.date);
  });
}
