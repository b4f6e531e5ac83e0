import { z } from 'zod';
import { pageOf, paginationSchema } from '../common/pagination.ts';
import { builder } from '../graphql/builder.ts';
import { pageArgs } from '../graphql/pagination.ts';
import { listOpenDays, type MuseumDay } from './hours.service.ts';

export const MuseumDayType = builder.objectRef<MuseumDay>('MuseumDay').implement({
  description: 'Daily operating hours for the museum.',
  fields: (t) => ({
    date: t.expose('date', { type: 'Date', description: 'Date the operating hours apply to.' }),
    timeOpen: t.expose('timeOpen', { type: 'LocalTime', description: 'Time the museum opens (HH:MM).' }),
    timeClose: t.expose('timeClose', { type: 'LocalTime', description: 'Time the museum closes (HH:MM).' }),
  }),
});

export const museumHoursArgsSchema = paginationSchema.extend({ startDate: z.iso.date().nullish() });

builder.queryField('museumHours', (t) =>
  t.field({
    type: [MuseumDayType],
    description:
      'Upcoming open days with their hours, ascending, from startDate (default today, museum time zone).',
    authScopes: { authenticated: true },
    args: {
      startDate: t.arg({
        type: 'Date',
        required: false,
        description: 'First date to list; defaults to today.',
      }),
      ...pageArgs,
    },
    validate: museumHoursArgsSchema,
    resolve: (_root, args, { em, deps }) =>
      listOpenDays(em, args.startDate ?? deps.clock.today(), pageOf(args)),
  }),
);
