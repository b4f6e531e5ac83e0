import type { EntityManager } from '@mikro-orm/postgresql';
import { addDays, isoWeekday, toLocalTime } from '../common/dates.ts';
import { offsetOf, type Page } from '../common/pagination.ts';
import { DayHours, WeeklyHours } from './hours.entity.ts';

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
  for (let date = startDate; date <= lastDate && days.length < page.limit; date = addDays(date, 1)) {
    const day = openDay(date, byDate.get(date) ?? byWeekday.get(isoWeekday(date)));
    if (day && seen++ >= skip) days.push(day);
  }
  return days;
}

/** The museum's hours on one date, or null when it is closed. */
export async function hoursOn(em: EntityManager, date: string): Promise<MuseumDay | null> {
  const override = await em.findOne(DayHours, { date });
  if (override) return openDay(date, override);
  return openDay(date, (await em.findOne(WeeklyHours, { weekday: isoWeekday(date) })) ?? undefined);
}
