// The hours page joins two domains: the open days (src/hours/) and the general admission left on each
// (src/tickets/), read together in one statement when selected, so neither domain imports the other's.
import { pageOf } from '../common/pagination.ts';
import { builder } from '../graphql/builder.ts';
import { selects } from '../graphql/look-ahead.ts';
import { pageArgs } from '../graphql/pagination.ts';
import { MuseumDayType, museumHoursArgsSchema } from '../hours/hours.graphql.ts';
import { listOpenDays } from '../hours/hours.service.ts';
import { generalRemaining } from '../tickets/ticket-loads.ts';

const REMAINING = ['remaining'];

builder.objectFields(MuseumDayType, (t) => ({
  // Read with the list, when selected: a resolver per day cost each day a resolver call, its info object
  // and closures, and a promise.
  remaining: t.exposeInt('remaining', {
    nullable: true,
    description: 'General admission tickets left this day under the daily capacity; null: unlimited.',
  }),
}));

builder.queryField('museumHours', (t) =>
  t.field({
    type: [MuseumDayType],
    description:
      'Upcoming open days with their hours, ascending, from startDate (default today, museum time zone).',
    authScopes: { visitor: true },
    args: {
      startDate: t.arg({
        type: 'Date',
        required: false,
        description: 'First date to list; defaults to today.',
      }),
      ...pageArgs,
    },
    validate: museumHoursArgsSchema,
    resolve: async (_root, args, { deps }, info) => {
      const days = await listOpenDays(deps.db.sql, args.startDate ?? deps.clock.today(), pageOf(args));
      if (selects(info, REMAINING)) {
        const capacity = deps.config.dailyCapacity;
        const left =
          capacity === null || days.length === 0
            ? null
            : await generalRemaining(
                deps.db.sql,
                days.map((day) => day.date),
                capacity,
              );
        for (const day of days) day.remaining = left ? (left.get(day.date) ?? capacity) : null;
      }
      return days;
    },
  }),
);
