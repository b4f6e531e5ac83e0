import type { EntityManager } from '@mikro-orm/postgresql';
import { fromEpochDay, isoWeekday, LAST_DATE, toEpochDay, toLocalTime } from '../common/dates.ts';
import { invalidField } from '../common/errors.ts';
import { offsetOf, type Page } from '../common/pagination.ts';
import { retryOnDeadlock, statementsIn } from '../db/database.ts';
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
  /** General admission left (null: unlimited); read with the list when the query selects it. */
  remaining?: number | null;
}

/** Hours are published this many days ahead of the start date; pages beyond that are empty. */
export const HOURS_HORIZON_DAYS = 366;

interface HoursRow {
  weekday: number | null;
  dayOffset: number | null;
  timeOpen: string | null;
  timeClose: string | null;
}

// What decides the hours of the days from $1 on: the weekly schedule (7 rows) and the dates of the horizon
// that have hours of their own (usually none), each as its offset from $1. The days are walked here rather
// than in SQL: a generate_series over the horizon with two joins per day cost PostgreSQL six times the CPU
// of these two small scans, and walking a year of days in JavaScript costs a few microseconds.
const HOURS_OF_HORIZON = statement<HoursRow, [startDate: string]>(
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

/** Open days from `startDate` on, ascending: the weekly schedule, overridden by per-date hours. */
export async function listOpenDays(sql: Queryable, startDate: string, page: Page): Promise<MuseumDay[]> {
  const rows = await sql.query(HOURS_OF_HORIZON, [startDate]);
  const weekly: (HoursRow | undefined)[] = [];
  const ownHours = new Map<number, HoursRow>();
  for (const row of rows) {
    if (row.dayOffset === null) weekly[row.weekday!] = row;
    else ownHours.set(row.dayOffset, row);
  }
  const startDay = toEpochDay(startDate);
  const days = Math.min(HOURS_HORIZON_DAYS, toEpochDay(LAST_DATE) - startDay + 1);
  const skip = offsetOf(page);
  const wanted = skip + page.limit;
  const openDays: MuseumDay[] = [];
  let open = 0;
  for (let day = 0, weekday = isoWeekday(startDate); day < days && open < wanted; day++) {
    const hours = ownHours.get(day) ?? weekly[weekday];
    weekday = weekday === 7 ? 1 : weekday + 1;
    if (!hours?.timeOpen || !hours.timeClose) continue;
    if (open++ >= skip)
      openDays.push({
        date: fromEpochDay(startDay + day),
        timeOpen: hours.timeOpen,
        timeClose: hours.timeClose,
      });
  }
  return openDays;
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

/** A date's hours as they are once a change applies: closed, or open from `timeOpen` to `timeClose`. */
export interface HoursOfDate {
  timeOpen: string | null;
  timeClose: string | null;
}

/**
 * Sets special hours or closes one date, or (`regular`) lets the weekly schedule apply to it again. In the
 * same transaction, `changed` is told the date's hours as they now are: it calls off the tickets they no
 * longer admit, or refuses (and so undoes) the change (src/tickets/call-off.ts, which hours cannot import).
 * A date before `today` cannot be closed: its visits happened.
 */
export async function setDayHours<T>(
  em: EntityManager,
  input: DayHoursInput,
  today: string,
  changed: (tx: Queryable, hours: HoursOfDate) => Promise<T>,
): Promise<{ schedule: DaySchedule; changed: T }> {
  if (input.closed && input.date < today)
    throw invalidField(
      'input.date',
      `${input.date} is in the past (today is ${today}): only today or a later date can be closed`,
    );
  return retryOnDeadlock(() =>
    em.transactional(async (tx) => {
      if (input.regular) {
        await tx.nativeDelete(DayHours, { date: input.date });
      } else {
        await tx.upsert(DayHours, {
          date: input.date,
          timeOpen: input.closed ? null : input.timeOpen!,
          timeClose: input.closed ? null : input.timeClose!,
        });
      }
      const schedule = await scheduleOn(tx, input.date);
      return { schedule, changed: await changed(statementsIn(tx), schedule) };
    }),
  );
}
