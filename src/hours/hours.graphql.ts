import { z } from 'zod';
import { paginationSchema } from '../common/pagination.ts';
import { builder } from '../graphql/builder.ts';
import {
  type DayHoursInput,
  dayHoursSchema,
  type Weekday,
  type WeeklyHoursInput,
  weeklyHoursSchema,
} from './hours.rules.ts';
import {
  type DaySchedule,
  type MuseumDay,
  setDayHours,
  setWeeklyHours,
  type WeekdayHours,
} from './hours.service.ts';

export const MuseumDayType = builder.objectRef<MuseumDay>('MuseumDay').implement({
  description: 'Daily operating hours for the museum.',
  fields: (t) => ({
    date: t.expose('date', { type: 'Date', description: 'Date the operating hours apply to.' }),
    timeOpen: t.expose('timeOpen', { type: 'LocalTime', description: 'Time the museum opens (HH:MM).' }),
    timeClose: t.expose('timeClose', { type: 'LocalTime', description: 'Time the museum closes (HH:MM).' }),
  }),
});

export const museumHoursArgsSchema = paginationSchema.extend({ startDate: z.iso.date().nullish() });

// Hours management (staff): GraphQL only, the reference document has no REST path for it.

export const WeekdayEnum = builder.enumType('Weekday', {
  description: 'A day of the week.',
  values: {
    monday: { value: 'monday', description: 'Monday (ISO weekday 1).' },
    tuesday: { value: 'tuesday', description: 'Tuesday (ISO weekday 2).' },
    wednesday: { value: 'wednesday', description: 'Wednesday (ISO weekday 3).' },
    thursday: { value: 'thursday', description: 'Thursday (ISO weekday 4).' },
    friday: { value: 'friday', description: 'Friday (ISO weekday 5).' },
    saturday: { value: 'saturday', description: 'Saturday (ISO weekday 6).' },
    sunday: { value: 'sunday', description: 'Sunday (ISO weekday 7).' },
  } as const satisfies Record<Weekday, { value: Weekday; description: string }>,
});

const TIME_OPEN_INPUT = "Opening time, HH:MM, in the museum's time zone; before timeClose.";
const TIME_CLOSE_INPUT = "Closing time, HH:MM, in the museum's time zone; after timeOpen.";

export const WeekdayHoursType = builder.objectRef<WeekdayHours>('WeekdayHours').implement({
  description: 'Regular hours of one weekday.',
  fields: (t) => ({
    weekday: t.expose('weekday', { type: WeekdayEnum, description: 'The weekday these hours apply to.' }),
    timeOpen: t.expose('timeOpen', { type: 'LocalTime', nullable: true, description: 'Null when closed.' }),
    timeClose: t.expose('timeClose', { type: 'LocalTime', nullable: true, description: 'Null when closed.' }),
    closed: t.exposeBoolean('closed', {
      description: 'True when the museum is closed all day on this weekday; the times are then null.',
    }),
  }),
});

export const DayScheduleType = builder.objectRef<DaySchedule>('DaySchedule').implement({
  description: 'The hours that apply on one date.',
  fields: (t) => ({
    date: t.expose('date', { type: 'Date', description: 'The date the hours apply to, YYYY-MM-DD.' }),
    timeOpen: t.expose('timeOpen', { type: 'LocalTime', nullable: true, description: 'Null when closed.' }),
    timeClose: t.expose('timeClose', { type: 'LocalTime', nullable: true, description: 'Null when closed.' }),
    closed: t.exposeBoolean('closed', {
      description: 'True when the museum is closed all day on this date; the times are then null.',
    }),
    regular: t.exposeBoolean('regular', {
      description: "True when the weekday's regular hours apply; false when the date has hours of its own.",
    }),
  }),
});

const WeekdayHoursInput = builder.inputType('WeekdayHoursInput', {
  description: 'Hours of one weekday: both times (timeOpen before timeClose), or closed: true.',
  fields: (t) => ({
    weekday: t.field({ type: WeekdayEnum, description: 'The weekday to set; each at most once in days.' }),
    timeOpen: t.field({
      type: 'LocalTime',
      required: false,
      description: `${TIME_OPEN_INPUT} Required unless closed is true.`,
    }),
    timeClose: t.field({
      type: 'LocalTime',
      required: false,
      description: `${TIME_CLOSE_INPUT} Required unless closed is true.`,
    }),
    closed: t.boolean({
      required: false,
      description: 'True: the museum is closed all day on this weekday; leave out both times.',
    }),
  }),
});

export const SetWeeklyHoursInput = builder.inputType('SetWeeklyHoursInput', {
  description: 'New regular hours for 1 to 7 distinct weekdays; weekdays not listed keep their hours.',
  fields: (t) => ({
    days: t.field({
      type: [WeekdayHoursInput],
      description: 'The weekdays to change with their new hours: 1 to 7, each weekday at most once.',
    }),
    cancelTickets: t.boolean({
      required: false,
      description:
        "True: call off the tickets the new hours no longer admit, on every date from today on that follows its weekday's hours (a date with hours of its own keeps them): closed, every ticket of those dates, general and event; shorter hours, the timed tickets whose entry slot falls outside them. Each is refunded and its buyer mailed. Left out or false: such a change is refused (CONFLICT naming each weekday, how many tickets it would cancel and their dates).",
    }),
    reason: t.string({
      required: false,
      description:
        'Why the tickets are called off (at most 500 characters; with cancelTickets): told to their buyers and shown on the tickets.',
    }),
  }),
  validate: weeklyHoursSchema,
});

export const SetDayHoursInput = builder.inputType('SetDayHoursInput', {
  description:
    "Hours of one date: both times (special hours), closed: true (e.g. a holiday), or regular: true (remove what was set for the date, so its weekday's hours apply).",
  fields: (t) => ({
    date: t.field({ type: 'Date', description: 'The date to set, YYYY-MM-DD.' }),
    timeOpen: t.field({
      type: 'LocalTime',
      required: false,
      description: `${TIME_OPEN_INPUT} Required unless closed or regular is true.`,
    }),
    timeClose: t.field({
      type: 'LocalTime',
      required: false,
      description: `${TIME_CLOSE_INPUT} Required unless closed or regular is true.`,
    }),
    closed: t.boolean({
      required: false,
      description: 'True: the museum is closed all day on this date (e.g. a holiday); leave out both times.',
    }),
    regular: t.boolean({
      required: false,
      description: "True: its weekday's hours apply to the date again; leave out the times and closed.",
    }),
    cancelTickets: t.boolean({
      required: false,
      description:
        'True: call off the tickets the new hours no longer admit (closed: every ticket of the date, general and event; shorter hours: the timed tickets whose entry slot falls outside them), each refunded and its buyer mailed. Left out or false: such a change is refused (CONFLICT naming the date and how many tickets it would cancel).',
    }),
    reason: t.string({
      required: false,
      description:
        'Why the tickets are called off (at most 500 characters; with cancelTickets): told to their buyers and shown on the tickets.',
    }),
  }),
  validate: dayHoursSchema,
});

builder.mutationFields((t) => ({
  setWeeklyHours: t.field({
    type: [WeekdayHoursType],
    description:
      "Changes the regular weekly hours (staff only); answers the whole week, Monday to Sunday. Applies at once to museumHours and to ticket sales. Hours that no longer admit tickets sold for a date that follows its weekday's hours are refused (CONFLICT) unless cancelTickets is true.",
    authScopes: { staff: true },
    args: {
      input: t.arg({ type: SetWeeklyHoursInput, description: 'The weekdays to change and their new hours.' }),
    },
    // The validation plugin has checked input against weeklyHoursSchema.
    resolve: async (_root, { input }, { deps }) => {
      const week = input as WeeklyHoursInput;
      const { schedule, changed } = await setWeeklyHours(deps.db.sql, week, (tx, hours) =>
        deps.callOff.weekdayTickets(tx, hours, {
          cancelTickets: week.cancelTickets === true,
          reason: week.reason,
          today: deps.clock.today(),
        }),
      );
      deps.callOff.committed(changed);
      return schedule;
    },
  }),
  setDayHours: t.field({
    type: DayScheduleType,
    description:
      "Sets special hours for one date, closes it, or (regular: true) returns it to its weekday's hours (staff only). Applies at once to museumHours and to ticket sales. Hours that no longer admit tickets sold for the date are refused (CONFLICT) unless cancelTickets is true; a date before today cannot be closed (BAD_USER_INPUT).",
    authScopes: { staff: true },
    args: { input: t.arg({ type: SetDayHoursInput, description: 'The date and its new hours.' }) },
    // The validation plugin has checked input against dayHoursSchema.
    resolve: async (_root, { input }, { deps }) => {
      const day = input as DayHoursInput;
      const { schedule, changed } = await setDayHours(deps.db.sql, day, deps.clock.today(), (tx, hours) =>
        deps.callOff.dayTickets(tx, day.date, hours, {
          cancelTickets: day.cancelTickets === true,
          reason: day.reason,
          today: deps.clock.today(),
        }),
      );
      deps.callOff.committed(changed);
      return schedule;
    },
  }),
}));
