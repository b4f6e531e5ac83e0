import { fromEpochDay, isoWeekday, LAST_DATE, toEpochDay, toLocalTime } from '../common/dates.ts';
import { invalidField } from '../common/errors.ts';
import { offsetOf, type Page } from '../common/pagination.ts';
import type { Queryable, Sql } from '../db/sql.ts';
import {
  DATE_HOURS,
  DELETE_DATE_HOURS,
  HOURS_HORIZON_DAYS,
  HOURS_OF_HORIZON,
  type HoursRow,
  UPSERT_DATE_HOURS,
  UPSERT_WEEKDAY_HOURS,
  WEEKDAY_HOURS,
  WEEKLY_HOURS,
} from './hours.queries.ts';
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
export async function weeklySchedule(sql: Queryable): Promise<WeekdayHours[]> {
  const rows = await sql.query(WEEKLY_HOURS, []);
  const byWeekday = new Map(rows.map((row) => [row.weekday, row]));
  return [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({
    weekday: weekdayOf(weekday),
    ...scheduleTimes(byWeekday.get(weekday)),
  }));
}

/** A weekday's hours as they are once a change applies, with where the change named it (`days[0]`). */
export interface HoursOfWeekday extends HoursOfDate {
  weekday: number;
  name: Weekday;
  path: string;
}

/**
 * Changes the hours of the weekdays given (the others keep theirs); answers the whole new schedule. In the
 * same transaction, `changed` is told the weekdays' new hours: it calls off the tickets they no longer admit,
 * or refuses (and so undoes) the change, as for `setDayHours`.
 */
export async function setWeeklyHours<T>(
  sql: Sql,
  input: WeeklyHoursInput,
  changed: (tx: Queryable, hours: HoursOfWeekday[]) => Promise<T>,
): Promise<{ schedule: WeekdayHours[]; changed: T }> {
  const hours = input.days.map((day, index) => ({
    weekday: isoWeekdayOf(day.weekday),
    name: day.weekday,
    path: `days[${index}]`,
    timeOpen: day.closed ? null : day.timeOpen!,
    timeClose: day.closed ? null : day.timeClose!,
  }));
  return sql.transaction(async (tx) => {
    for (const day of hours) await tx.query(UPSERT_WEEKDAY_HOURS, [day.weekday, day.timeOpen, day.timeClose]);
    return { schedule: await weeklySchedule(tx), changed: await changed(tx, hours) };
  });
}

/** The hours that apply on one date: its override if it has one, else its weekday's. */
export async function scheduleOn(sql: Queryable, date: string): Promise<DaySchedule> {
  const [override] = await sql.query(DATE_HOURS, [date]);
  if (override) return { date, ...scheduleTimes(override), regular: false };
  const [weekly] = await sql.query(WEEKDAY_HOURS, [isoWeekday(date)]);
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
  sql: Sql,
  input: DayHoursInput,
  today: string,
  changed: (tx: Queryable, hours: HoursOfDate) => Promise<T>,
): Promise<{ schedule: DaySchedule; changed: T }> {
  if (input.closed && input.date < today)
    throw invalidField(
      'input.date',
      `${input.date} is in the past (today is ${today}): only today or a later date can be closed`,
    );
  return sql.transaction(async (tx) => {
    if (input.regular) {
      await tx.query(DELETE_DATE_HOURS, [input.date]);
    } else {
      await tx.query(UPSERT_DATE_HOURS, [
        input.date,
        input.closed ? null : input.timeOpen!,
        input.closed ? null : input.timeClose!,
      ]);
    }
    const schedule = await scheduleOn(tx, input.date);
    return { schedule, changed: await changed(tx, schedule) };
  });
}
