// A normalised client cache with no configuration (issue 24): Apollo Client's InMemoryCache keys each
// SpecialEvent and Ticket by `__typename` and `id` on its own (no typePolicies, no keyFields), so an event
// read on one page and reached through a ticket on another is one object, and a change to it shows on both.
import { ApolloClient, gql, HttpLink, InMemoryCache } from '@apollo/client';
import { beforeAll, describe, expect, it } from 'vitest';
import { basic, eventBody, STAFF, upcomingOpenDay, VISITOR } from '../support/museum.ts';
import { useMuseum } from '../support/use-museum.ts';

const museum = useMuseum();

const EVENTS = gql`
  query Events($startDate: Date!) {
    specialEventPage(startDate: $startDate, endDate: $startDate, limit: 30) {
      total
      items { id eventId name availability { date remaining } }
    }
  }
`;
const MY_TICKETS = gql`
  query MyTickets {
    me { id name tickets(limit: 30) { total items { id ticketId status event { id name } } } }
  }
`;
const RENAME = gql`
  mutation Rename($eventId: UUID!, $name: String!) {
    updateSpecialEvent(eventId: $eventId, input: { name: $name }) { id name }
  }
`;

const clientAs = (name: string, password: string) =>
  new ApolloClient({
    cache: new InMemoryCache(),
    link: new HttpLink({
      uri: 'http://museum.test/graphql',
      headers: { authorization: basic(name, password) },
      fetch: (input, init) => museum.fetch(String(input), init as RequestInit),
    }),
  });

const day = upcomingOpenDay(12);
let eventId: string;

beforeAll(async () => {
  const created = await museum.rest('POST', '/special-events', {
    as: 'staff',
    body: eventBody({ name: 'Cached', dates: [day], capacity: 20 }),
  });
  eventId = created.body.eventId;
  await museum.rest('POST', '/tickets', {
    as: 'visitor',
    body: { ticketType: 'event', eventId, ticketDate: day, email: 'a@example.com' },
  });
});

describe("Apollo Client's InMemoryCache, with no typePolicies", () => {
  it('normalises events and tickets by id: one event object behind both pages', async () => {
    const client = clientAs(VISITOR.name, VISITOR.password);
    const events = await client.query({ query: EVENTS, variables: { startDate: day } });
    const [event] = (events.data as any).specialEventPage.items;
    expect(event).toMatchObject({ eventId, name: 'Cached', availability: [{ date: day, remaining: 19 }] });
    const mine = await client.query({ query: MY_TICKETS });
    const [ticket] = (mine.data as any).me.tickets.items;
    expect(ticket.event).toEqual({ __typename: 'SpecialEvent', id: event.id, name: 'Cached' });

    const cached = client.cache.extract() as Record<string, Record<string, unknown>>;
    expect(Object.keys(cached)).toEqual(
      expect.arrayContaining([
        `SpecialEvent:${event.id}`,
        `Ticket:${ticket.id}`,
        `Account:${(mine.data as any).me.id}`,
      ]),
    );
    // Nothing was stored unkeyed: the page objects hold references, not copies, of events and tickets.
    const root = cached.ROOT_QUERY as Record<string, any>;
    const page = Object.entries(root).find(([key]) => key.startsWith('specialEventPage'))![1];
    expect(page.items).toEqual([{ __ref: `SpecialEvent:${event.id}` }]);
  });

  it('a change read back by id updates every query that holds the object', async () => {
    const client = clientAs(STAFF.name, STAFF.password);
    await client.query({ query: EVENTS, variables: { startDate: day } });
    await client.mutate({ mutation: RENAME, variables: { eventId, name: 'Renamed' } });
    const again = client.readQuery({ query: EVENTS, variables: { startDate: day } }) as any;
    expect(again.specialEventPage.items[0].name).toBe('Renamed');
  });
});
