// A front-end's calls to the Museum API, typed from the repository's schema files alone: the week's events
// with what is left of each date (GraphQL, urql), a ticket bought (REST, openapi-fetch) and "my tickets"
// (GraphQL). `npm run examples:types` generates the types; `node examples/client.ts` runs it (README.md).
import { Client, fetchExchange } from '@urql/core';
import { initGraphQLTada, type ResultOf } from 'gql.tada';
import createFetchClient from 'openapi-fetch';
import type { introspection } from './generated/graphql-env.d.ts';
import type { paths } from './generated/openapi.d.ts';

/** Documents typed by the introspection of schema/schema.graphql; its custom scalars travel as strings. */
export const graphql = initGraphQLTada<{
  introspection: introspection;
  scalars: { Date: string; DateTime: string; EmailAddress: string; LocalTime: string; UUID: string };
}>();

export interface Museum {
  graphql: Client;
  rest: ReturnType<typeof createFetchClient<paths>>;
}

/**
 * Both clients of one account: every data operation needs HTTP Basic credentials. urql without its cache
 * exchange asks the server every time, so a list read again shows what a purchase changed.
 */
export function connect(url: string, user: string, password: string): Museum {
  const authorization = `Basic ${btoa(`${user}:${password}`)}`;
  return {
    graphql: new Client({
      url: new URL('/graphql', url).href,
      exchanges: [fetchExchange],
      fetchOptions: { headers: { authorization } },
    }),
    rest: createFetchClient<paths>({ baseUrl: url, headers: { authorization } }),
  };
}

const EventsBetween = graphql(`
  query EventsBetween($startDate: Date!, $endDate: Date!, $page: Int!) {
    specialEventPage(startDate: $startDate, endDate: $endDate, page: $page, limit: 30) {
      total
      items {
        eventId
        name
        location
        price
        availability {
          date
          remaining
        }
      }
    }
  }
`);

export type ListedEvent = ResultOf<typeof EventsBetween>['specialEventPage']['items'][number];

/**
 * The events with a date in [startDate, endDate], every page of them, each with only the dates in that
 * range (`remaining` null: unlimited).
 */
export async function eventsBetween(
  museum: Museum,
  startDate: string,
  endDate: string,
): Promise<ListedEvent[]> {
  const events: ListedEvent[] = [];
  for (let page = 1; ; page++) {
    const result = await museum.graphql.query(EventsBetween, { startDate, endDate, page }).toPromise();
    if (result.error || !result.data) throw new Error(`listing events: ${result.error?.message}`);
    const { items, total } = result.data.specialEventPage;
    events.push(...items);
    if (items.length === 0 || events.length >= total) break;
  }
  return events.map((event) => ({
    ...event,
    availability: event.availability.filter(({ date }) => date >= startDate && date <= endDate),
  }));
}

/**
 * Buys a ticket for one of an event's dates (POST /tickets). The Idempotency-Key (a typed header parameter
 * of the operation) makes a retry of this purchase (a phone that lost the answer) return the same ticket
 * instead of selling a second one.
 */
export async function buyEventTicket(
  museum: Museum,
  purchase: { eventId: string; ticketDate: string; email: string },
  idempotencyKey: string,
) {
  const { data, error, response } = await museum.rest.POST('/tickets', {
    params: { header: { 'Idempotency-Key': idempotencyKey } },
    body: { ticketType: 'event', ...purchase },
  });
  if (error) throw new Error(`buying a ticket: ${response.status} ${error.title}: ${error.detail}`);
  return data;
}

const MyTickets = graphql(`
  query MyTickets($startDate: Date) {
    myTickets(startDate: $startDate, limit: 30) {
      total
      items {
        ticketId
        ticketDate
        ticketType
        status
        eventName
      }
    }
  }
`);

export type MyTicket = ResultOf<typeof MyTickets>['myTickets']['items'][number];

/** The account's own tickets from `startDate` on (its first 30). */
export async function myTickets(museum: Museum, startDate: string): Promise<MyTicket[]> {
  const result = await museum.graphql.query(MyTickets, { startDate }).toPromise();
  if (result.error || !result.data) throw new Error(`reading my tickets: ${result.error?.message}`);
  return result.data.myTickets.items;
}

const addDays = (date: string, days: number) =>
  new Date(Date.parse(date) + days * 86_400_000).toISOString().slice(0, 10);

const seatsLeft = (remaining: number | null) => (remaining === null ? 'no limit' : `${remaining} left`);

function printEvents(events: ListedEvent[]) {
  for (const event of events) {
    const dates = event.availability.map(({ date, remaining }) => `${date} ${seatsLeft(remaining)}`);
    console.log(`  ${event.name} (${event.location}, ${event.price}): ${dates.join(', ')}`);
  }
}

/** The page a visitor opens: this week's events, the first date with a seat left bought, their tickets. */
async function main() {
  const { MUSEUM_URL = 'http://127.0.0.1:4000', MUSEUM_USER, MUSEUM_PASSWORD, MUSEUM_EMAIL } = process.env;
  if (!MUSEUM_USER || !MUSEUM_PASSWORD) throw new Error('set MUSEUM_USER and MUSEUM_PASSWORD');
  const museum = connect(MUSEUM_URL, MUSEUM_USER, MUSEUM_PASSWORD);
  // From today to 7 days after, the range the service lists by default (its days are UTC unless the
  // server sets MUSEUM_TIMEZONE).
  const startDate = new Date().toISOString().slice(0, 10);
  const endDate = addDays(startDate, 7);

  const events = await eventsBetween(museum, startDate, endDate);
  console.log(`Events from ${startDate} to ${endDate}: ${events.length}`);
  printEvents(events);

  const choice = events
    .flatMap((event) => event.availability.map((date) => ({ event, ...date })))
    .find(({ remaining }) => remaining !== 0);
  if (choice) {
    const ticket = await buyEventTicket(
      museum,
      {
        eventId: choice.event.eventId,
        ticketDate: choice.date,
        email: MUSEUM_EMAIL ?? 'visitor@example.com',
      },
      crypto.randomUUID(),
    );
    console.log(
      `Bought ticket ${ticket.ticketId} for ${choice.event.name} on ${ticket.ticketDate}: ${ticket.message}`,
    );
    const after = await eventsBetween(museum, choice.date, choice.date);
    const left = after.find(({ eventId }) => eventId === choice.event.eventId)?.availability[0];
    console.log(`Now ${choice.date}: ${left ? seatsLeft(left.remaining) : 'gone'}`);
  } else {
    console.log('No event date this week has a seat left: nothing bought.');
  }

  const tickets = await myTickets(museum, startDate);
  console.log(`My tickets from ${startDate}: ${tickets.length}`);
  for (const ticket of tickets)
    console.log(
      `  ${ticket.ticketId} ${ticket.ticketDate} ${ticket.eventName ?? 'general admission'} ${ticket.status}`,
    );
}

if (import.meta.main) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}
