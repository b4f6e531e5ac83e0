import { z } from 'zod';

// Calendar dates travel as 'YYYY-MM-DD' strings end to end. Arithmetic happens on UTC midnights,
// where every day has 24 hours, so no time zone or daylight-saving change can shift a day.

const LOCAL_TIME = /^([01]\d|2[0-3]):([0-5]\d)$/;

const ISO_DATE = z.iso.date();

/** True for a 'YYYY-MM-DD' string naming a day that exists (2023-02-30 does not), years 1 to 9999 (zod). */
export function isCalendarDate(value: string): boolean {
  return ISO_DATE.safeParse(value).success && !value.startsWith('0000');
}

/** True for 24-hour 'HH:MM'. */
export function isLocalTime(value: string): boolean {
  return LOCAL_TIME.test(value);
}

// Days since 1970-01-01 and back, by the proleptic Gregorian calendar's arithmetic (H. Hinnant's
// days_from_civil and civil_from_days): no Date object, exact for every year from 1 to 9999, and cheap
// enough for the hours' walk over a page of days.
/** Days from 1970-01-01 to `date` (negative before it). */
export function toEpochDay(date: string): number {
  const month = Number(date.slice(5, 7));
  const year = Number(date.slice(0, 4)) - (month <= 2 ? 1 : 0);
  const era = Math.floor(year / 400);
  const yearOfEra = year - era * 400;
  const dayOfYear =
    Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + Number(date.slice(8, 10)) - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/** The date `epochDay` days after 1970-01-01, as YYYY-MM-DD. */
export function fromEpochDay(epochDay: number): string {
  const days = epochDay + 719_468;
  const era = Math.floor(days / 146_097);
  const dayOfEra = days - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra -
      Math.floor(dayOfEra / 1_460) +
      Math.floor(dayOfEra / 36_524) -
      Math.floor(dayOfEra / 146_096)) /
      365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const shiftedMonth = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * shiftedMonth + 2) / 5) + 1;
  const month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  return `${String(year).padStart(4, '0')}-${month < 10 ? '0' : ''}${month}-${day < 10 ? '0' : ''}${day}`;
}

/** The first and last dates a 'YYYY-MM-DD' string can name. */
export const FIRST_DATE = '0001-01-01';
export const LAST_DATE = '9999-12-31';
const FIRST_EPOCH_DAY = toEpochDay(FIRST_DATE);
const LAST_EPOCH_DAY = toEpochDay(LAST_DATE);

/**
 * `days` after `date`, held within FIRST_DATE…LAST_DATE: every date this service computes can be written
 * as YYYY-MM-DD, and such strings compare in calendar order.
 */
export function addDays(date: string, days: number): string {
  return fromEpochDay(Math.min(LAST_EPOCH_DAY, Math.max(FIRST_EPOCH_DAY, toEpochDay(date) + days)));
}

/** Whole days from `from` to `to` (negative when `to` is earlier). */
export function daysBetween(from: string, to: string): number {
  return toEpochDay(to) - toEpochDay(from);
}

/** ISO weekday: 1 = Monday … 7 = Sunday. */
export function isoWeekday(date: string): number {
  // 1970-01-01 was a Thursday (4).
  return ((((toEpochDay(date) + 3) % 7) + 7) % 7) + 1;
}

export interface Clock {
  /** Today's calendar date in the museum's time zone. */
  today(): string;
  /** Today and the time of day (minutes since midnight, 0 to 1439) in the museum's time zone, read together. */
  now(): MuseumTime;
}

export interface MuseumTime {
  today: string;
  minuteOfDay: number;
}

export function museumClock(timeZone: string): Clock {
  const format = wallClockOf(timeZone);
  // Every zone's offset is a whole number of minutes, so the local date and minute can only change when a
  // UTC minute begins: formatting once a minute is exact.
  let minute = -1;
  let date = '';
  let minuteOfDay = 0;
  const read = () => {
    const now = Math.floor(Date.now() / 60_000);
    if (now !== minute) {
      minute = now;
      const parts = Object.fromEntries(
        format.formatToParts(new Date(now * 60_000)).map((part) => [part.type, part.value]),
      );
      date = `${parts.year}-${parts.month}-${parts.day}`;
      minuteOfDay = Number(parts.hour) * 60 + Number(parts.minute);
    }
  };
  return {
    today: () => {
      read();
      return date;
    },
    now: () => {
      read();
      return { today: date, minuteOfDay };
    },
  };
}

/** Postgres returns `time` as 'HH:MM:SS'; the API speaks 'HH:MM'. */
export function toLocalTime(pgTime: string): string {
  return pgTime.slice(0, 5);
}

// The wall clock of a zone (en-CA formats as YYYY-MM-DD), one formatter per zone made once: making one costs
// a millisecond.
const wallClocks = new Map<string, Intl.DateTimeFormat>();
function wallClockOf(timeZone: string): Intl.DateTimeFormat {
  let format = wallClocks.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    wallClocks.set(timeZone, format);
  }
  return format;
}

/**
 * The instant at which the clocks of `timeZone` read `time` ('HH:MM') on `date`. A wall time skipped by a
 * daylight-saving change reads as the hour after; one that happens twice, as its first occurrence.
 */
export function instantIn(timeZone: string, date: string, time: string): Date {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const [hour, minute] = time.split(':').map(Number) as [number, number];
  const wall = Date.UTC(year, month - 1, day, hour, minute);
  const format = wallClockOf(timeZone);
  // The zone's offset at an instant: how far its wall clock is ahead of UTC then.
  const offsetAt = (instant: number) => {
    const parts = Object.fromEntries(format.formatToParts(instant).map((part) => [part.type, part.value]));
    const read = Date.UTC(+parts.year!, +parts.month! - 1, +parts.day!, +parts.hour!, +parts.minute!);
    return read - instant;
  };
  const first = wall - offsetAt(wall);
  return new Date(wall - offsetAt(first));
}
