import type { EntityManager } from '@mikro-orm/postgresql';
import { addDays, isoWeekday, toLocalTime } from '../common/dates.ts';
import { offsetOf, type Page } from '../common/pagination.ts';
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

type Times = { timeOpen?: string | null; timeClose?: string | null };

function openDay(date: string, times: Times | undefined): MuseumDay | null {
  if (!times?.timeOpen || !times.timeClose) return null;
  return { date, timeOpen: toLocalTime(times.timeOpen), timeClose: toLocalTime(times.timeClose) };
}

/** Open days from `startDate` on, ascending: the weekly schedule, overridden by per-date hours. */
export async function listOpenDays(em: EntityManager, startDate: string, page: Page): Promise<MuseumDay[]> {
  const lastDate = addDays(startDate, HOURS_HORIZON_DAYS - 1);
  const weekly = await em.find(WeeklyHours, {});
  const overrides = await em.find(DayHours, { date: { $gte: startDate, $lte: lastDate } });
  const byWeekday = new Map(weekly.map((row) => [row.weekday, row]));
  const byDate = new Map(overrides.map((row) => [row.date, row]));

  const skip = offsetOf(page);
  const days: MuseumDay[] = [];
  let seen = 0;
  for (let date = startDate; days.length < page.limit; date = addDays(date, 1)) {
    const day = openDay(date, byDate.get(date) ?? byWeekday.get(isoWeekday(date)));
    if (day && seen++ >= skip) days.push(day);
    if (date >= lastDate) break;
  }
  return days;
}

/** The museum's hours on one date, or null when it is closed. */
export async function hoursOn(em: EntityManager, date: string): Promise<MuseumDay | null> {
  const override = await em.findOne(DayHours, { date });
  if (override) return openDay(date, override);
  return openDay(date, (await em.findOne(WeeklyHours, { weekday: isoWeekday(date) })) ?? undefined);
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
