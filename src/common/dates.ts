// Calendar dates travel as 'YYYY-MM-DD' strings end to end. Arithmetic happens on UTC midnights,
// where every day has 24 hours, so no time zone or daylight-saving change can shift a day.

const LOCAL_TIME = /^([01]\d|2[0-3]):([0-5]\d)$/;

/**
 * True for a 'YYYY-MM-DD' string naming a day that exists (2023-02-30 does not). Read digit by digit, with
 * no regular expression or Date: every date a request carries is checked here (the Date scalar).
 */
export function isCalendarDate(value: string): boolean {
  if (value.length !== 10 || value.charCodeAt(4) !== DASH || value.charCodeAt(7) !== DASH) return false;
  const year = digitsAt(value, 0, 4);
  const month = digitsAt(value, 5, 7);
  const day = digitsAt(value, 8, 10);
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  return day <= (month === 2 && isLeapYear(year) ? 29 : DAYS_IN_MONTH[month - 1]!);
}

const DASH = 0x2d;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const isLeapYear = (year: number) => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);

/** The number the ASCII digits of text[from, to) spell, or -1 when one of them is not a digit. */
function digitsAt(text: string, from: number, to: number): number {
  let value = 0;
  for (let i = from; i < to; i++) {
    const digit = text.charCodeAt(i) - 0x30;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

/** True for 24-hour 'HH:MM'. */
export function isLocalTime(value: string): boolean {
  return LOCAL_TIME.test(value);
}

// Days since 1970-01-01 and back, by the proleptic Gregorian calendar's arithmetic (H. Hinnant's
// days_from_civil and civil_from_days): no Date object, exact for every year from 1 to 9999, and cheap
// enough for the hours' walk over a page of days.
function toEpochDay(date: string): number {
  const month = Number(date.slice(5, 7));
  const year = Number(date.slice(0, 4)) - (month <= 2 ? 1 : 0);
  const era = Math.floor(year / 400);
  const yearOfEra = year - era * 400;
  const dayOfYear =
    Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + Number(date.slice(8, 10)) - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

function fromEpochDay(epochDay: number): string {
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

const TWO_DIGITS = Array.from({ length: 32 }, (_, n) => String(n).padStart(2, '0'));
const daysInMonth = (year: number, month: number) =>
  month === 2 && isLeapYear(year) ? 29 : DAYS_IN_MONTH[month - 1]!;

/**
 * A walk over consecutive days from a 'YYYY-MM-DD' date: `next` steps one day on, `date` writes the current
 * one. A step is a day's increment rather than a conversion both ways (the hours' walk takes a step per day
 * and writes only the open ones). The walker must not pass LAST_DATE: its caller bounds the walk.
 */
export class CalendarWalk {
  #year: number;
  #month: number;
  #day: number;
  #yearMonth: string;

  constructor(date: string) {
    this.#year = Number(date.slice(0, 4));
    this.#month = Number(date.slice(5, 7));
    this.#day = Number(date.slice(8, 10));
    this.#yearMonth = date.slice(0, 8);
  }

  get date(): string {
    return this.#yearMonth + TWO_DIGITS[this.#day];
  }

  next(): void {
    if (++this.#day <= daysInMonth(this.#year, this.#month)) return;
    this.#day = 1;
    if (++this.#month > 12) {
      this.#month = 1;
      this.#year++;
    }
    this.#yearMonth = `${String(this.#year).padStart(4, '0')}-${TWO_DIGITS[this.#month]}-`;
  }
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
