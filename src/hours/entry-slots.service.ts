import { loadBatched } from '../common/batch.ts';
import { invalidField } from '../common/errors.ts';
import type { Queryable, Sql } from '../db/sql.ts';
import {
  type DayEntrySlotsInput,
  type EntrySlotsInput,
  minutesOf,
  type SlotTimes,
  slotsOf,
} from './entry-slots.rules.ts';
import {
  DAY_SLOTS,
  MUSEUM_SLOTS,
  REGULAR_DAY_SLOTS,
  SET_DAY_SLOTS,
  SET_MUSEUM_SLOTS,
  SLOTS_OF_DAYS,
  type SlotSettings,
} from './hours.queries.ts';
import { listOpenDays, type MuseumDay } from './hours.service.ts';

/** One date's timed entry, and whether it is the museum's (nothing set for the date). */
export interface DaySlotSettings extends SlotSettings {
  date: string;
  regular: boolean;
}

/** An entry slot of one day, with the tickets it has left. */
export interface EntrySlot extends SlotTimes {
  capacity: number;
  remaining: number;
}

export async function museumSlotSettings(sql: Queryable): Promise<SlotSettings> {
  const [settings] = await sql.query(MUSEUM_SLOTS, []);
  return settings!;
}

/** Switches timed entry on (or off, with minutes null) for every date that has nothing of its own. */
export async function setMuseumSlots(sql: Queryable, input: EntrySlotsInput): Promise<SlotSettings> {
  const [settings] = await sql.query(SET_MUSEUM_SLOTS, [input.minutes, input.capacity ?? null]);
  return settings!;
}

export async function daySlotSettings(sql: Queryable, date: string): Promise<DaySlotSettings> {
  const [row] = await sql.query(DAY_SLOTS, [date]);
  return { date, ...row! };
}

/**
 * Gives one date slots of its own (they must fit its opening hours: the museum open, one whole slot between
 * opening and closing), none that day, or (`regular`) the museum's again.
 */
export function setDaySlots(sql: Sql, input: DayEntrySlotsInput): Promise<DaySlotSettings> {
  const { date, minutes = null, capacity = null } = input;
  return sql.transaction(async (tx) => {
    if (input.regular) await tx.query(REGULAR_DAY_SLOTS, [date]);
    else {
      if (minutes !== null) {
        const [day] = await listOpenDays(tx, date, { page: 1, limit: 1 });
        if (day?.date !== date) throw invalidField('date', `the museum is closed on ${date}`);
        const open = minutesOf(day.timeClose) - minutesOf(day.timeOpen);
        if (minutes > open)
          throw invalidField(
            'minutes',
            `must fit between opening and closing on ${date} (${day.timeOpen}–${day.timeClose}: ${open} minutes)`,
          );
      }
      await tx.query(SET_DAY_SLOTS, [date, minutes, capacity]);
    }
    return daySlotSettings(tx, date);
  });
}

/** The entry slots of an open day with what each has left, read with the other days of the same page. */
export async function loadEntrySlots(
  sql: Queryable,
  shared: Map<string, unknown>,
  day: MuseumDay,
): Promise<EntrySlot[]> {
  const row = await loadBatched(shared, 'hours.entrySlots', day.date, async (dates) => {
    const rows = await sql.query(SLOTS_OF_DAYS, [dates]);
    return new Map(rows.map((found) => [found.date, found]));
  });
  if (!row || row.minutes === null || row.capacity === null) return [];
  const { capacity, sold } = row;
  return slotsOf(day.timeOpen, day.timeClose, row.minutes).map((slot) => ({
    ...slot,
    capacity,
    remaining: Math.max(capacity - (sold?.[slot.startTime] ?? 0), 0),
  }));
}

/** The entry slots of `date` (none when the museum is closed that day or timed entry is off). */
export async function entrySlotsOn(
  sql: Queryable,
  shared: Map<string, unknown>,
  date: string,
): Promise<EntrySlot[]> {
  const [day] = await listOpenDays(sql, date, { page: 1, limit: 1 });
  return day?.date === date ? loadEntrySlots(sql, shared, day) : [];
}
