import { pageOf } from '../common/pagination.ts';
import { builder } from '../graphql/builder.ts';
import { pageArgs } from '../graphql/pagination.ts';
import { eventFieldsSchema, listEventsArgsSchema } from './events.rules.ts';
import {
  countEvents,
  createEvent,
  type EventView,
  getEvent,
  listEvents,
  resolveRange,
} from './events.service.ts';

export const SpecialEventType = builder.objectRef<EventView>('SpecialEvent').implement({
  description: 'A special event hosted by the museum.',
  fields: (t) => ({
    eventId: t.expose('eventId', { type: 'UUID', description: 'Identifier for a special event.' }),
    name: t.exposeString('name', { description: 'Name of the special event.' }),
    location: t.exposeString('location', { description: 'Location where the special event is held.' }),
    eventDescription: t.exposeString('eventDescription', {
      description: 'Description of the special event.',
    }),
    dates: t.expose('dates', { type: ['Date'], description: 'Planned dates of the event, ascending.' }),
    price: t.exposeFloat('price', { description: 'Price of a ticket, with at most 2 decimals.' }),
  }),
});

export const CreateSpecialEventInput = builder.inputType('CreateSpecialEventInput', {
  description: 'A new special event.',
  fields: (t) => ({
    name: t.string({ description: 'Not blank, at most 200 characters.' }),
    location: t.string({ description: 'Not blank, at most 200 characters.' }),
    eventDescription: t.string({ description: 'Not blank, at most 5000 characters.' }),
    dates: t.field({ type: ['Date'], description: '1 to 366 distinct dates.' }),
    price: t.float({ description: '0 to 1000000, at most 2 decimals.' }),
  }),
  validate: eventFieldsSchema,
});

builder.queryFields((t) => ({
  specialEvents: t.field({
    type: [SpecialEventType],
    description:
      'Events with at least one date in [startDate, endDate], ordered by their first date in the range, then name, then eventId.',
    authScopes: { authenticated: true },
    args: {
      startDate: t.arg({
        type: 'Date',
        required: false,
        description: 'Defaults to today (museum time zone).',
      }),
      endDate: t.arg({ type: 'Date', required: false, description: 'Defaults to 7 days after startDate.' }),
      ...pageArgs,
    },
    validate: listEventsArgsSchema,
    resolve: (_root, args, { em, deps }) =>
      listEvents(em, resolveRange(deps.clock.today(), args.startDate, args.endDate), pageOf(args)),
  }),
  specialEventsCount: t.int({
    description: 'How many events specialEvents lists over all its pages for the same range.',
    authScopes: { authenticated: true },
    args: {
      startDate: t.arg({
        type: 'Date',
        required: false,
        description: 'Defaults to today (museum time zone).',
      }),
      endDate: t.arg({ type: 'Date', required: false, description: 'Defaults to 7 days after startDate.' }),
    },
    resolve: (_root, args, { em, deps }) =>
      countEvents(em, resolveRange(deps.clock.today(), args.startDate, args.endDate)),
  }),
  specialEvent: t.field({
    type: SpecialEventType,
    nullable: true,
    description: 'One event, or null when there is no such event (or it was deleted).',
    authScopes: { authenticated: true },
    args: { eventId: t.arg({ type: 'UUID' }) },
    resolve: (_root, { eventId }, { em }) => getEvent(em, eventId),
  }),
}));

builder.mutationField('createSpecialEvent', (t) =>
  t.field({
    type: SpecialEventType,
    description: 'Creates a special event (staff only).',
    authScopes: { staff: true },
    args: { input: t.arg({ type: CreateSpecialEventInput }) },
    resolve: (_root, { input }, { em }) => createEvent(em, input),
  }),
);
