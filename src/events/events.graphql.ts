import { z } from 'zod';
import { versionTag } from '../common/entity-tags.ts';
import { MAX_PRICE, toAmount } from '../common/money.ts';
import { pageOf } from '../common/pagination.ts';
import { saidOrNull } from '../common/text.ts';
import { builder } from '../graphql/builder.ts';
import { connectionArgsSchema, keysetConnection, TOTAL_COUNT } from '../graphql/connections.ts';
import { operationSelects, selects } from '../graphql/look-ahead.ts';
import { globalId, NodeInterface } from '../graphql/node.ts';
import { pageArgs, pageType } from '../graphql/pagination.ts';
import { CATEGORY_DESCRIPTION } from '../prices/prices.graphql.ts';
import { MAX_CATEGORIES } from '../prices/prices.rules.ts';
import { eventKeySchema, eventRangeScope, readEventWindow } from './event-connection.ts';
import { countEventsInRange, listEvents, resolveRange } from './event-list.ts';
import { loadEventPrices, loadOwnPrices } from './event-prices.ts';
import type { EventPriceView } from './events.queries.ts';
import {
  CANCELLATION_REASON_MAX,
  cancellationReasonSchema,
  type EventChanges,
  eventChangesSchema,
  eventFieldsSchema,
  listEventsArgsSchema,
} from './events.rules.ts';
import { createEvent, deleteEvent, type EventView, getEvent, updateEvent } from './events.service.ts';

const EventPriceType = builder.objectRef<EventPriceView>('EventPrice').implement({
  description: 'What one visitor category pays for an event.',
  fields: (t) => ({
    category: t.exposeString('category', { description: CATEGORY_DESCRIPTION }),
    price: t.float({
      description: 'Price of a ticket in this category, in the currency of the price list.',
      resolve: (entry) => toAmount(entry.price),
    }),
  }),
});

const EventPriceInput = builder.inputType('EventPriceInput', {
  description: 'What one category of the price list pays for the event instead of its price.',
  fields: (t) => ({
    category: t.string({ description: CATEGORY_DESCRIPTION }),
    price: t.float({ description: `0 to ${MAX_PRICE}, at most 2 decimals.` }),
  }),
});

// query-cost.ts counts a typical price list's categories (adult, reduced, child); there may be 20.
const TYPICAL_CATEGORIES = 3;

const PRICES_INPUT_DESCRIPTION = `Prices of some categories (each once, at most ${MAX_CATEGORIES}), the others paying price. They replace all of the event's category prices; [] removes them.`;

export const SpecialEventType = builder.objectRef<EventView>('SpecialEvent').implement({
  description: 'A special event hosted by the museum.',
  interfaces: [NodeInterface],
  fields: (t) => ({
    id: t.id({
      description: 'Global id (Node).',
      resolve: (event) => globalId('SpecialEvent', event.eventId),
    }),
    eventId: t.expose('eventId', { type: 'UUID', description: 'Identifier for a special event.' }),
    name: t.exposeString('name', { description: 'Name of the special event.' }),
    location: t.exposeString('location', { description: 'Location where the special event is held.' }),
    eventDescription: t.exposeString('eventDescription', {
      description: 'Description of the special event.',
    }),
    dates: t.expose('dates', { type: ['Date'], description: 'Planned dates of the event, ascending.' }),
    price: t.exposeFloat('price', { description: 'Price of a ticket, with at most 2 decimals.' }),
    capacity: t.exposeInt('capacity', {
      nullable: true,
      description: 'Tickets per event date; null: unlimited.',
    }),
    prices: t.field({
      type: [EventPriceType],
      extensions: { listSize: TYPICAL_CATEGORIES },
      description:
        "Every category of the price list with what it pays: its own price for the event, or the event's price.",
      resolve: (event, _args, { deps, shared }) => loadEventPrices(deps.db.sql, shared, event.eventId),
    }),
    ownPrices: t.field({
      type: [EventPriceType],
      nullable: true,
      extensions: { listSize: TYPICAL_CATEGORIES },
      description:
        'The categories given a price of their own for this event (`prices` as last set), by category; null when every category pays price. REST answers it as `prices`, as it was sent.',
      resolve: (event, _args, { deps, shared }) =>
        event.ownPrices !== undefined ? event.ownPrices : loadOwnPrices(deps.db.sql, shared, event.eventId),
    }),
    version: t.string({
      description:
        'Changes with every change of the event: the value of its REST `ETag` (without the quotes). Pass it as `ifMatch` to change the event only if nobody else has since.',
      resolve: (event) => versionTag(event.version),
    }),
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
    capacity: t.int({
      required: false,
      description: 'Tickets per event date, 0 to 1000000; left out or null: unlimited.',
    }),
    prices: t.field({ type: [EventPriceInput], required: false, description: PRICES_INPUT_DESCRIPTION }),
  }),
  validate: eventFieldsSchema,
});

export const UpdateSpecialEventInput = builder.inputType('UpdateSpecialEventInput', {
  description:
    'A change to a special event: at least one field, each with the rules of create; fields left out keep their value.',
  fields: (t) => ({
    name: t.string({ required: false, description: 'Not blank, at most 200 characters.' }),
    location: t.string({ required: false, description: 'Not blank, at most 200 characters.' }),
    eventDescription: t.string({ required: false, description: 'Not blank, at most 5000 characters.' }),
    dates: t.field({
      type: ['Date'],
      required: false,
      description: '1 to 366 distinct dates; they replace all of the dates.',
    }),
    price: t.float({ required: false, description: '0 to 1000000, at most 2 decimals.' }),
    capacity: t.int({
      required: false,
      description:
        'Tickets per event date; null: unlimited. Lower than the tickets sold for a date: CONFLICT.',
    }),
    prices: t.field({ type: [EventPriceInput], required: false, description: PRICES_INPUT_DESCRIPTION }),
    cancellationReason: t.string({
      required: false,
      description: `Why the tickets of the dates that \`dates\` drops are called off (at most ${CANCELLATION_REASON_MAX} characters): told to their buyers, who are refunded. Not a change of its own.`,
    }),
  }),
  validate: eventChangesSchema,
});

export const SpecialEventPageType = pageType('SpecialEventPage', SpecialEventType, {
  type: 'One page of the events with a date in a range, and how many there are over all pages.',
  items: 'Ordered by their first date in the range, then name, then eventId.',
  total: 'Events in the range over all pages.',
});

/** The date range of an event list; its rules live in listEventsArgsSchema and listEvents. */
const rangeArgs = builder.args((t) => ({
  startDate: t.field({ type: 'Date', required: false, description: 'Defaults to today (museum time zone).' }),
  endDate: t.field({ type: 'Date', required: false, description: 'Defaults to 7 days after startDate.' }),
}));

// A list that selects its events' availability reads it with the events, in one statement.
const AVAILABILITY = ['availability'];
const ITEMS_AVAILABILITY = ['items', 'availability'];

builder.queryFields((t) => ({
  specialEvents: t.field({
    type: [SpecialEventType],
    description:
      'Events with at least one date in [startDate, endDate], ordered by their first date in the range, then name, then eventId.',
    authScopes: { visitor: true },
    args: { ...rangeArgs, ...pageArgs },
    validate: listEventsArgsSchema,
    resolve: async (_root, args, { deps, shared }, info) =>
      (
        await listEvents(deps.db.sql, shared, deps.clock.today(), args, pageOf(args), {
          availability: selects(info, AVAILABILITY),
          // With specialEventsCount beside it, the page also reads the total that the count then answers.
          total: operationSelects(info, 'specialEventsCount'),
        })
      ).items,
  }),
  specialEventsCount: t.int({
    description: 'How many events specialEvents lists over all its pages for the same range.',
    authScopes: { visitor: true },
    args: rangeArgs,
    resolve: (_root, args, { deps, shared }) =>
      countEventsInRange(deps.db.sql, shared, deps.clock.today(), args),
  }),
  specialEventPage: t.field({
    type: SpecialEventPageType,
    description:
      'One page of specialEvents for [startDate, endDate] with the total over all pages (what specialEventsCount answers), in one read.',
    authScopes: { visitor: true },
    args: { ...rangeArgs, ...pageArgs },
    validate: listEventsArgsSchema,
    resolve: async (_root, args, { deps, shared }, info) => {
      const { items, total } = await listEvents(deps.db.sql, shared, deps.clock.today(), args, pageOf(args), {
        availability: selects(info, ITEMS_AVAILABILITY),
        total: true,
      });
      return { items, total: total ?? 0 };
    },
  }),
  specialEventsConnection: t.connection(
    {
      type: SpecialEventType,
      description:
        'specialEvents as a Relay cursor connection: the events with at least one date in [startDate, endDate], in the same order, paged by cursor (first/after forwards, last/before backwards). A cursor holds its range: give the same startDate and endDate with it (leave startDate out only for a walk that ends today).',
      authScopes: { visitor: true },
      args: rangeArgs,
      validate: connectionArgsSchema({ startDate: z.iso.date().nullish(), endDate: z.iso.date().nullish() }),
      resolve: (_root, args, { deps }) => {
        const range = resolveRange(deps.clock.today(), args);
        return keysetConnection(args, {
          scope: eventRangeScope(range),
          key: eventKeySchema,
          read: (window) => readEventWindow(deps.db.sql, range, window),
        });
      },
    },
    {
      name: 'SpecialEventConnection',
      description: 'A page of the events with a date in a range, by cursor (Relay cursor connection).',
      fields: (t) => ({
        totalCount: t.int({ description: TOTAL_COUNT, resolve: (page) => page.totalCount }),
      }),
    },
    { name: 'SpecialEventEdge', description: 'An event of a page, and its cursor.' },
  ),
  specialEvent: t.field({
    type: SpecialEventType,
    nullable: true,
    description: 'One event, or null when there is no such event (or it was deleted).',
    authScopes: { visitor: true },
    args: { eventId: t.arg({ type: 'UUID', description: 'Identifier of the special event.' }) },
    resolve: (_root, { eventId }, { deps }) => getEvent(deps.db.sql, eventId),
  }),
}));

builder.mutationField('createSpecialEvent', (t) =>
  t.field({
    type: SpecialEventType,
    description: 'Creates a special event (staff only).',
    authScopes: { staff: true },
    args: { input: t.arg({ type: CreateSpecialEventInput, description: 'The new event.' }) },
    resolve: (_root, { input }, { deps }) => createEvent(deps.db.sql, input, deps.feed),
  }),
);

builder.subscriptionField('specialEventPublished', (t) =>
  t.field({
    type: SpecialEventType,
    description:
      'Each special event as it is created or changed, on any instance of the service, for as long as the subscription is open (server-sent events: POST or GET /graphql with `Accept: text/event-stream`). An account may hold a few at once; one more is TOO_MANY_REQUESTS.',
    authScopes: { visitor: true },
    subscribe: (_root, _args, { deps, principal, signal }) => deps.feed.subscribe(principal!.name, signal),
    resolve: (event) => event,
  }),
);

const IF_MATCH_DESCRIPTION =
  "The event's `version` as last read: the change is made only if it is still current, else PRECONDITION_FAILED and nothing changes. Left out: no check.";

builder.mutationFields((t) => ({
  updateSpecialEvent: t.field({
    type: SpecialEventType,
    description:
      'Changes some fields of a special event (staff only) and returns the whole event. An unknown or deleted event is a NOT_FOUND error.',
    authScopes: { staff: true },
    args: {
      eventId: t.arg({ type: 'UUID', description: 'Identifier of the event to change.' }),
      input: t.arg({
        type: UpdateSpecialEventInput,
        description: 'The fields to change and their new values.',
      }),
      ifMatch: t.arg.string({ required: false, description: IF_MATCH_DESCRIPTION }),
    },
    // The validation plugin has checked input against eventChangesSchema: no field is null.
    resolve: async (_root, { eventId, input, ifMatch }, { deps }) => {
      const { cancellationReason, ...changes } = input as EventChanges;
      const { event, dropped } = await updateEvent(
        deps.db.sql,
        eventId,
        changes,
        ifMatch,
        deps.feed,
        (tx, dates) =>
          deps.callOff.eventTickets(tx, eventId, dates, {
            reason: cancellationReason,
            today: deps.clock.today(),
          }),
      );
      if (dropped) deps.callOff.committed(dropped);
      return event;
    },
  }),
  deleteSpecialEvent: t.boolean({
    description:
      "Deletes a special event (staff only): it disappears from every read, and the museum calls off its tickets not used yet: each becomes cancelled (cancelledBy museum, with the reason), what was paid for it is refunded once, a pending order's payment page is replaced or expired, and each buyer is mailed once per order. Webhook subscribers get the event once more, with `cancelled: true`. Returns true; an unknown or already deleted event is a NOT_FOUND error.",
    authScopes: { staff: true },
    args: {
      eventId: t.arg({ type: 'UUID', description: 'Identifier of the event to delete.' }),
      ifMatch: t.arg.string({ required: false, description: IF_MATCH_DESCRIPTION }),
      reason: t.arg.string({
        required: false,
        description: `Why the event is called off (at most ${CANCELLATION_REASON_MAX} characters): told to every buyer, and shown on their tickets.`,
      }),
    },
    // Loose: the other arguments pass through as they are.
    validate: z.looseObject({ reason: cancellationReasonSchema }),
    resolve: async (_root, { eventId, ifMatch, reason }, { deps }) => {
      const said = saidOrNull(reason);
      const dropped = await deleteEvent(deps.db.sql, eventId, ifMatch, said, (tx, dates) =>
        deps.callOff.eventTickets(tx, eventId, dates, { reason: said, today: deps.clock.today() }),
      );
      deps.callOff.committed(dropped);
      deps.webhooks?.wake();
      return true;
    },
  }),
}));
