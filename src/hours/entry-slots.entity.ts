import { defineEntity, type InferEntity, p } from '@mikro-orm/core';

// Slots of 15 to 240 minutes, each selling up to `capacity` tickets; no minutes (and no capacity): no slots.
const SLOT_RULES = [
  { expression: '("minutes" is null) = ("capacity" is null)', suffix: 'off_check' },
  { expression: '(minutes >= 15) AND (minutes <= 240)', suffix: 'minutes_check' },
  { expression: '(capacity >= 0) AND (capacity <= 1000000)', suffix: 'capacity_check' },
];

/** Timed entry for the whole museum: one row (id 1); null minutes means it is off. */
export const EntrySlots = defineEntity({
  name: 'EntrySlots',
  tableName: 'entry_slots',
  properties: {
    id: p.smallint().primary().autoincrement(false),
    minutes: p.smallint().nullable(),
    capacity: p.integer().nullable(),
  },
  checks: [
    { name: 'entry_slots_id_check', expression: '"id" = 1' },
    ...SLOT_RULES.map(({ expression, suffix }) => ({ name: `entry_slots_${suffix}`, expression })),
  ],
});

export type EntrySlots = InferEntity<typeof EntrySlots>;

/** Timed entry of one date, overriding the museum's: its own slots, or (null minutes) none that day. */
export const DayEntrySlots = defineEntity({
  name: 'DayEntrySlots',
  tableName: 'day_entry_slots',
  properties: {
    date: p.date().primary(),
    minutes: p.smallint().nullable(),
    capacity: p.integer().nullable(),
  },
  checks: SLOT_RULES.map(({ expression, suffix }) => ({ name: `day_entry_slots_${suffix}`, expression })),
});

export type DayEntrySlots = InferEntity<typeof DayEntrySlots>;
