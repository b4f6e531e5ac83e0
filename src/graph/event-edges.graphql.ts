// The edges a page needs between events, days and tickets, each read in batches (src/events/event-loads.ts): a
// page of 30 items costs the statements of a page of one. A day's general admission left is the hours page's
// (museum-hours.graphql.ts).
import { z } from 'zod';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, PAGING_RULES } from '../common/pagination.ts';
import type { ListedEvent } from '../events/event-list.ts';
import { loadAvailability, loadEvent, loadEventsOn, loadSold } from '../events/event-loads.ts';
import { SpecialEventType } from '../events/events.graphql.ts';
import type { EventDateAvailability } from '../events/events.list.queries.ts';
import { builder } from '../graphql/builder.ts';
import { MuseumDayType } from '../hours/hours.graphql.ts';
import { TicketType } from '../tickets/tickets.graphql.ts';

const EventDateAvailabilityType = builder
  .objectRef<EventDateAvailability>('EventDateAvailability')
  .implement({
    description: 'How many tickets one date of an event has left, exact at the time of reading.',
    fields: (t) => ({
      date: t.expose('date', { type: 'Date', description: 'The event date, YYYY-MM-DD.' }),
      capacity: t.exposeInt('capacity', {
        nullable: true,
        description: 'Tickets per event date; null: unlimited.',
      }),
      remaining: t.exposeInt('remaining', {
        nullable: true,
        description: 'Tickets that can still be bought for the date; null: unlimited.',
      }),
      sold: t.int({
        nullable: true,
        description: 'Tickets sold for the date and not cancelled: for staff; null for anyone else.',
        resolve: (date, _args, { principal, deps, shared }) =>
          principal?.role === 'staff' ? loadSold(deps.db.sql, shared, date.eventId, date.date) : null,
      }),
    }),
  });

builder.objectFields(SpecialEventType, (t) => ({
  availability: t.field({
    type: [EventDateAvailabilityType],
    description: 'Each date of the event, ascending, with the tickets it has left.',
    // An event has 1 to 366 dates; query-cost.ts counts a typical 10.
    extensions: { listSize: 10 },
    // A page that selects availability brought it with its events (events.graphql.ts).
    resolve: (event, _args, { deps, shared }) =>
      (event as ListedEvent).availability ?? loadAvailability(deps.db.sql, shared, event.eventId),
  }),
}));

builder.objectFields(TicketType, (t) => ({
  event: t.field({
    type: SpecialEventType,
    nullable: true,
    description:
      'The special event the ticket admits to; null for general tickets and for a deleted event (eventName keeps its name).',
    resolve: (ticket, _args, { deps, shared }) =>
      ticket.eventId ? loadEvent(deps.db.sql, shared, ticket.eventId) : null,
  }),
}));

builder.objectFields(MuseumDayType, (t) => ({
  events: t.field({
    type: [SpecialEventType],
    description: 'The special events on this day, ordered by name, then eventId.',
    args: {
      limit: t.arg.int({
        required: false,
        defaultValue: DEFAULT_PAGE_SIZE,
        description: `At most this many, 1 to ${MAX_PAGE_SIZE}.`,
      }),
    },
    validate: z.object({
      limit: z
        .number()
        .int(PAGING_RULES.limit)
        .min(1, PAGING_RULES.limit)
        .max(MAX_PAGE_SIZE, PAGING_RULES.limit)
        .nullish(),
    }),
    resolve: (day, { limit }, { deps, shared }) =>
      loadEventsOn(deps.db.sql, shared, day.date, limit ?? DEFAULT_PAGE_SIZE),
  }),
}));

builder.queryField('specialEventAvailability', (t) =>
  t.field({
    type: [EventDateAvailabilityType],
    nullable: true,
    description:
      'What specialEvent(eventId) { availability } answers; null when there is no such event (REST: GET /special-events/{eventId}/availability).',
    authScopes: { visitor: true },
    args: { eventId: t.arg({ type: 'UUID', description: 'Identifier of the special event.' }) },
    extensions: { listSize: 10 },
    // Every event has a date: no dates means no such event.
    resolve: async (_root, { eventId }, { deps, shared }) => {
      const dates = await loadAvailability(deps.db.sql, shared, eventId);
      return dates.length > 0 ? dates : null;
    },
  }),
);
