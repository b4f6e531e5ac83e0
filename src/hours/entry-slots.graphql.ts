import { withinArgument } from '../graphql/argument-errors.ts';
import { builder } from '../graphql/builder.ts';
import {
  type DayEntrySlotsInput,
  dayEntrySlotsSchema,
  type EntrySlotsInput,
  entrySlotsSchema,
  MAX_SLOT_MINUTES,
  MIN_SLOT_MINUTES,
} from './entry-slots.rules.ts';
import {
  type DaySlotSettings,
  type EntrySlot,
  entrySlotsOn,
  loadEntrySlots,
  museumSlotSettings,
  setDaySlots,
  setMuseumSlots,
} from './entry-slots.service.ts';
import { MuseumDayType } from './hours.graphql.ts';
import type { SlotSettings } from './hours.queries.ts';

// A day has at most 96 slots (one every 15 minutes); query-cost.ts counts a typical day's, hourly from 9 to 18.
const TYPICAL_SLOTS_A_DAY = 9;

const EntrySlotType = builder.objectRef<EntrySlot>('EntrySlot').implement({
  description: 'A timed-entry slot of one day: tickets for it admit from its start (less the grace period).',
  fields: (t) => ({
    startTime: t.expose('startTime', {
      type: 'LocalTime',
      description: "When the slot starts: a ticket's entryTime.",
    }),
    endTime: t.expose('endTime', {
      type: 'LocalTime',
      description: 'When the next slot starts, or the museum closes if that comes first.',
    }),
    capacity: t.exposeInt('capacity', { description: 'Tickets the slot sells.' }),
    remaining: t.exposeInt('remaining', {
      description: 'Tickets it has left, as the sales so far leave it.',
    }),
  }),
});

const SLOT_SETTINGS_FIELDS = {
  minutes: `Length of a slot, ${MIN_SLOT_MINUTES} to ${MAX_SLOT_MINUTES} minutes; null: no timed entry.`,
  capacity: 'Tickets each slot sells; null when there is no timed entry.',
};

const EntrySlotSettingsType = builder.objectRef<SlotSettings>('EntrySlotSettings').implement({
  description: "The museum's timed entry, for every date that has none of its own.",
  fields: (t) => ({
    minutes: t.exposeInt('minutes', { nullable: true, description: SLOT_SETTINGS_FIELDS.minutes }),
    capacity: t.exposeInt('capacity', { nullable: true, description: SLOT_SETTINGS_FIELDS.capacity }),
  }),
});

const DayEntrySlotsType = builder.objectRef<DaySlotSettings>('DayEntrySlots').implement({
  description: 'The timed entry that applies on one date.',
  fields: (t) => ({
    date: t.expose('date', { type: 'Date', description: 'The date the timed entry applies to, YYYY-MM-DD.' }),
    minutes: t.exposeInt('minutes', { nullable: true, description: SLOT_SETTINGS_FIELDS.minutes }),
    capacity: t.exposeInt('capacity', { nullable: true, description: SLOT_SETTINGS_FIELDS.capacity }),
    regular: t.exposeBoolean('regular', {
      description: "True when the museum's timed entry applies; false when the date has its own.",
    }),
  }),
});

builder.objectField(MuseumDayType, 'entrySlots', (t) =>
  t.field({
    type: [EntrySlotType],
    extensions: { listSize: TYPICAL_SLOTS_A_DAY },
    description:
      'The timed-entry slots of the day with what each has left; empty when timed entry is off. On a day with slots, a general ticket needs an entryTime.',
    resolve: (day, _args, { deps, shared }) => loadEntrySlots(deps.db.sql, shared, day),
  }),
);

builder.queryFields((t) => ({
  entrySlots: t.field({
    type: [EntrySlotType],
    extensions: { listSize: TYPICAL_SLOTS_A_DAY },
    description:
      "What museumHours answers as a day's entrySlots, for one date (default today); empty when the museum is closed or timed entry is off (REST: GET /entry-slots?date=YYYY-MM-DD).",
    authScopes: { visitor: true },
    args: { date: t.arg({ type: 'Date', required: false, description: 'Defaults to today.' }) },
    resolve: (_root, { date }, { deps, shared }) =>
      entrySlotsOn(deps.db.sql, shared, date ?? deps.clock.today()),
  }),
  entrySlotSettings: t.field({
    type: EntrySlotSettingsType,
    description: "The museum's timed entry as set by setEntrySlots.",
    authScopes: { visitor: true },
    resolve: (_root, _args, { deps }) => museumSlotSettings(deps.db.sql),
  }),
}));

const SetEntrySlotsInput = builder.inputType('SetEntrySlotsInput', {
  description:
    'Timed entry for the museum: slots of `minutes` from opening time, `capacity` tickets each; `minutes: null` switches it off.',
  fields: (t) => ({
    minutes: t.int({
      required: false,
      description: `${MIN_SLOT_MINUTES} to ${MAX_SLOT_MINUTES}; null: off.`,
    }),
    capacity: t.int({
      required: false,
      description: 'Tickets per slot, 0 to 1000000; required with minutes.',
    }),
  }),
  validate: entrySlotsSchema,
});

const SetDayEntrySlotsInput = builder.inputType('SetDayEntrySlotsInput', {
  description:
    "Timed entry for one date: its own slots (minutes and capacity; they must fit the day's opening hours), none that day (minutes: null), or regular: true (the museum's again).",
  fields: (t) => ({
    date: t.field({ type: 'Date', description: 'The date to set, YYYY-MM-DD.' }),
    minutes: t.int({
      required: false,
      description: `${MIN_SLOT_MINUTES} to ${MAX_SLOT_MINUTES}; null: none that day.`,
    }),
    capacity: t.int({
      required: false,
      description: 'Tickets per slot, 0 to 1000000; required with minutes.',
    }),
    regular: t.boolean({
      required: false,
      description:
        "True: the museum's timed entry applies to the date again; leave out minutes and capacity.",
    }),
  }),
  validate: dayEntrySlotsSchema,
});

builder.mutationFields((t) => ({
  setEntrySlots: t.field({
    type: EntrySlotSettingsType,
    description:
      'Switches timed entry on (or off) for the museum (staff only). Tickets sold before keep their entry times.',
    authScopes: { staff: true },
    args: { input: t.arg({ type: SetEntrySlotsInput, description: "The museum's new timed entry." }) },
    resolve: (_root, { input }, { deps }) => setMuseumSlots(deps.db.sql, input as EntrySlotsInput),
  }),
  setDayEntrySlots: t.field({
    type: DayEntrySlotsType,
    description: "Gives one date its own timed entry, none, or the museum's again (staff only).",
    authScopes: { staff: true },
    args: {
      input: t.arg({ type: SetDayEntrySlotsInput, description: 'The date and its new timed entry.' }),
    },
    resolve: (_root, { input }, { deps }) =>
      withinArgument('input', () => setDaySlots(deps.db.sql, input as DayEntrySlotsInput)),
  }),
}));
