import { loadBatched } from '../common/batch.ts';
import { invalidField } from '../common/errors.ts';
import { type Queryable, type Sql, statement } from '../db/sql.ts';
import {
  type DayEntrySlotsInput,
  type EntrySlotsInput,
  minutesOf,
  type SlotTimes,
  slotSetting,
  slotsOf,
} from './entry-slots.rules.ts';
import { listOpenDays, type MuseumDay } from './hours.service.ts';

/** Timed entry as set: slots of `minutes`, `capacity` tickets each; null minutes: none. */
export interface SlotSettings {
  minutes: number | null;
  capacity: number | null;
}

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

const MUSEUM_SLOTS = statement<SlotSettings>('entry_slots', 'select minutes, capacity from entry_slots');

export async function museumSlotSettings(sql: Queryable): Promise<SlotSettings> {
  const [settings] = await sql.query(MUSEUM_SLOTS, []);
  return settings!;
}

const SET_MUSEUM_SLOTS = statement<
  SlotSettings,
  [minutes: number | null | undefined, capacity: number | null]
>('set_entry_slots', 'update entry_slots set minutes = $1, capacity = $2 returning minutes, capacity');

/** Switches timed entry on (or off, with minutes null) for every date that has nothing of its own. */
export async function setMuseumSlots(sql: Queryable, input: EntrySlotsInput): Promise<SlotSettings> {
  const [settings] = await sql.query(SET_MUSEUM_SLOTS, [input.minutes, input.capacity ?? null]);
  return settings!;
}

// The date's own settings if it has some, else the museum's.
const DAY_SLOTS = statement<SlotSettings & { regular: boolean }, [date: string]>(
  'day_entry_slots',
  `select ${slotSetting('minutes')} as minutes, ${slotSetting('capacity')} as capacity,
          d.date is null as regular
   from entry_slots m left join day_entry_slots d on d.date = $1::date`,
);

export async function daySlotSettings(sql: Queryable, date: string): Promise<DaySlotSettings> {
  const [row] = await sql.query(DAY_SLOTS, [date]);
  return { date, ...row! };
}

const SET_DAY_SLOTS = statement<never, [date: string, minutes: number | null, capacity: number | null]>(
  'set_day_entry_slots',
  `insert into day_entry_slots (date, minutes, capacity) values ($1::date, $2, $3)
   on conflict (date) do update set minutes = excluded.minutes, capacity = excluded.capacity`,
);
const REGULAR_DAY_SLOTS = statement<never, [date: string]>(
  'regular_day_entry_slots',
  'delete from day_entry_slots where date = $1::date',
);

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

interface DaySlotsRow extends SlotSettings {
  date: string;
  sold: Record<string, number> | null;
}

// Each date of $1 with its slot settings and the tickets of each entry time sold and not cancelled.
const SLOTS_OF_DAYS = statement<DaySlotsRow, [dates: string[]]>(
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
