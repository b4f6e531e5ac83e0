// Relay cursor connections (issue 41): specialEventsConnection, myTicketsConnection and
// Account.ordersConnection page their lists by keyset, as the Relay spec says: walked by Apollo Client's
// relayStylePagination forwards and backwards, each row seen once in the page lists' order, also while rows
// are added between pages; cursors only work in the list and range they came from.
import { ApolloClient, type DocumentNode, gql, HttpLink, InMemoryCache } from '@apollo/client';
import { relayStylePagination } from '@apollo/client/utilities';
import { parse } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../src/common/dates.ts';
import { schema } from '../../src/graph/schema.ts';
import { measureQuery } from '../../src/graphql/query-limits.ts';
import { boughtTicket, createdEvent, placedOrder } from '../support/actions.ts';
import { errorPaths } from '../support/assertions.ts';
import { codeBlocks } from '../support/docs.ts';
import { basic, type Caller, farWindow, upcomingOpenDay, VISITOR } from '../support/museum.ts';
import { useMuseum } from '../support/use-museum.ts';
import { general } from '../support/visit.ts';

const museum = useMuseum();

const RANGE = { startDate: farWindow(0), endDate: addDays(farWindow(0), 9) };
const EVENT_COUNT = 95;

const EVENTS = gql`
  query Events($startDate: Date, $endDate: Date, $first: Int, $after: String, $last: Int, $before: String) {
    specialEventsConnection(
      startDate: $startDate
      endDate: $endDate
      first: $first
      after: $after
      last: $last
      before: $before
    ) {
      totalCount
      edges { cursor node { id eventId name } }
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    }
  }
`;
const EVENTS_TEXT = EVENTS.loc!.source.body;

interface Page<Node = { eventId: string }> {
  totalCount: number;
  edges: { cursor: string; node: Node }[];
  pageInfo: {
    hasNextPage: boolean;
    hasPreviousPage: boolean;
    startCursor: string | null;
    endCursor: string | null;
  };
}

/** Events named so that several share a first date and a name (then eventId decides), some of them with a date before the range. */
const eventInRange = (i: number) =>
  createdEvent(museum, {
    name: `Walk ${i % 7}`,
    dates:
      i % 19 === 0
        ? [addDays(RANGE.startDate, -3), addDays(RANGE.startDate, i % 10)]
        : [addDays(RANGE.startDate, i % 10)],
  });

/** The range's events in specialEvents' order, read through the page list. */
async function listedIds(): Promise<string[]> {
  const ids: string[] = [];
  for (let page = 1; ; page++) {
    const response = await museum.graphql(
      'query($startDate: Date, $endDate: Date, $page: Int) { specialEvents(startDate: $startDate, endDate: $endDate, page: $page, limit: 30) { eventId } }',
      { ...RANGE, page },
    );
    const items = response.body.data.specialEvents as { eventId: string }[];
    if (items.length === 0) return ids;
    ids.push(...items.map((item) => item.eventId));
  }
}

const apolloClient = () =>
  new ApolloClient({
    cache: new InMemoryCache({
      typePolicies: {
        Query: { fields: { specialEventsConnection: relayStylePagination(['startDate', 'endDate']) } },
      },
    }),
    link: new HttpLink({
      uri: 'http://museum.test/graphql',
      headers: { authorization: basic(VISITOR.name, VISITOR.password) },
      fetch: (input, init) => museum.fetch(String(input), init as RequestInit),
    }),
  });

/**
 * Walks `query` with Apollo Client as a front-end does: the first page, then fetchMore with the cursor `next`
 * picks from each page until it gives none, `between` running before each fetchMore. Answers each page as
 * the server sent it, and the list as the cache merged it.
 */
async function walk(
  query: DocumentNode,
  variables: Record<string, unknown>,
  next: (page: Page) => Record<string, unknown> | null,
  between: () => Promise<void> = async () => {},
) {
  const client = apolloClient();
  const observable = client.watchQuery({ query, variables });
  const pages: Page[] = [];
  const first = await new Promise<Page>((resolve, reject) => {
    const subscription = observable.subscribe({
      next: (result) => {
        if (result.dataState !== 'complete') return;
        subscription.unsubscribe();
        resolve((result.data as { specialEventsConnection: Page }).specialEventsConnection);
      },
      error: reject,
    });
  });
  pages.push(first);
  for (let more = next(first); more; more = next(pages.at(-1)!)) {
    await between();
    const fetched = await observable.fetchMore({ variables: more });
    pages.push((fetched.data as { specialEventsConnection: Page }).specialEventsConnection);
  }
  const merged = client.readQuery({ query, variables }) as { specialEventsConnection: Page };
  client.stop();
  return { pages, merged: merged.specialEventsConnection };
}

const idsOf = (page: Page) => page.edges.map((edge) => edge.node.eventId);

const eventsPage = (variables: Record<string, unknown>, as: Caller = 'visitor') =>
  museum.graphql(EVENTS_TEXT, { ...RANGE, ...variables }, { as });

/** The argument a refused request names (BAD_USER_INPUT). */
async function refusedArgument(response: Promise<{ body: any }>): Promise<string[]> {
  const { body } = await response;
  expect(body.errors?.[0]?.extensions?.code, JSON.stringify(body)).toBe('BAD_USER_INPUT');
  return errorPaths(body.errors[0].extensions);
}

let listed: string[];

beforeAll(async () => {
  for (let i = 0; i < EVENT_COUNT; i++) await eventInRange(i);
  // Outside the range on either side: never in its pages.
  await createdEvent(museum, { name: 'Before', dates: [addDays(RANGE.startDate, -1)] });
  await createdEvent(museum, { name: 'After', dates: [addDays(RANGE.endDate, 1)] });
  listed = await listedIds();
  expect(listed).toHaveLength(EVENT_COUNT);
}, 120_000);

describe('specialEventsConnection, walked by Apollo Client (relayStylePagination)', () => {
  it('forwards in pages of 30 (first/after): every event once, in the order of specialEvents', async () => {
    const { pages, merged } = await walk(EVENTS, { ...RANGE, first: 30 }, (page) =>
      page.pageInfo.hasNextPage ? { after: page.pageInfo.endCursor } : null,
    );
    expect(pages.map((page) => page.edges.length)).toEqual([30, 30, 30, 5]);
    expect(pages.flatMap(idsOf)).toEqual(listed);
    expect(idsOf(merged)).toEqual(listed);
    expect(pages.map((page) => page.totalCount)).toEqual([95, 95, 95, 95]);
    expect(pages.map((page) => page.pageInfo.hasPreviousPage)).toEqual([false, true, true, true]);
    expect(pages.map((page) => page.pageInfo.hasNextPage)).toEqual([true, true, true, false]);
    for (const page of pages) {
      expect(page.pageInfo.startCursor).toBe(page.edges[0]!.cursor);
      expect(page.pageInfo.endCursor).toBe(page.edges.at(-1)!.cursor);
    }
  });

  it('backwards in pages of 30 (last/before): every event once, the same order', async () => {
    const { pages, merged } = await walk(EVENTS, { ...RANGE, last: 30 }, (page) =>
      page.pageInfo.hasPreviousPage ? { before: page.pageInfo.startCursor } : null,
    );
    expect(pages.map((page) => page.edges.length)).toEqual([30, 30, 30, 5]);
    expect(pages.reverse().flatMap(idsOf)).toEqual(listed);
    expect(idsOf(merged)).toEqual(listed);
    expect(pages.map((page) => page.pageInfo.hasPreviousPage)).toEqual([false, true, true, true]);
    expect(pages.map((page) => page.pageInfo.hasNextPage)).toEqual([true, true, true, false]);
  });

  it('forwards while events are added to the range between pages: each event of the start seen exactly once', async () => {
    let added = 0;
    const { pages } = await walk(
      EVENTS,
      { ...RANGE, first: 30 },
      (page) => (page.pageInfo.hasNextPage ? { after: page.pageInfo.endCursor } : null),
      // Before every position of the walk, and after it: on the range's first and last days.
      async () => {
        for (const day of [0, 9]) {
          await createdEvent(museum, { name: `Walk ${added++ % 7}`, dates: [addDays(RANGE.startDate, day)] });
        }
      },
    );
    const seen = pages.flatMap(idsOf);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.filter((id) => listed.includes(id))).toEqual(listed);
    expect(pages.at(-1)!.totalCount).toBe(EVENT_COUNT + added);
    listed = await listedIds();
  });
});

describe('specialEventsConnection, by the spec', () => {
  it('answers the first 10 when neither first nor last is given', async () => {
    const { body } = await eventsPage({});
    expect(idsOf(body.data.specialEventsConnection)).toEqual(listed.slice(0, 10));
  });

  it('answers an empty page past the end, and an empty range, with hasNextPage false', async () => {
    const last = (await eventsPage({ last: 1 })).body.data.specialEventsConnection as Page;
    const past = (await eventsPage({ first: 5, after: last.pageInfo.endCursor })).body.data
      .specialEventsConnection as Page;
    expect(past.edges).toEqual([]);
    expect(past.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
    const empty = (await eventsPage({ startDate: farWindow(5), endDate: farWindow(5) })).body.data
      .specialEventsConnection as Page;
    expect(empty).toEqual({
      totalCount: 0,
      edges: [],
      pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null },
    });
  });

  it('first with before: the first items before the cursor; last with after: the last items after it', async () => {
    const all = (await eventsPage({ first: 30 })).body.data.specialEventsConnection as Page;
    const tenth = all.edges[9]!.cursor;
    const firstBefore = (await eventsPage({ first: 3, before: tenth })).body.data
      .specialEventsConnection as Page;
    expect(idsOf(firstBefore)).toEqual(listed.slice(0, 3));
    expect(firstBefore.pageInfo).toMatchObject({ hasPreviousPage: false, hasNextPage: true });
    const lastAfter = (await eventsPage({ last: 3, after: tenth })).body.data.specialEventsConnection as Page;
    expect(idsOf(lastAfter)).toEqual(listed.slice(-3));
    const between = (await eventsPage({ first: 30, after: all.edges[2]!.cursor, before: tenth })).body.data
      .specialEventsConnection as Page;
    expect(idsOf(between)).toEqual(listed.slice(3, 9));
  });

  it.each([
    [{ first: 31 }, 'first'],
    [{ first: 0 }, 'first'],
    [{ last: 31 }, 'last'],
    [{ last: 0 }, 'last'],
    [{ first: 5, last: 5 }, 'last'],
  ])('refuses %o naming %s', async (variables, argument) => {
    expect(await refusedArgument(eventsPage(variables))).toEqual([argument]);
  });

  it('refuses a cursor of another range, another list, another version or none at all, naming after or before', async () => {
    const page = (await eventsPage({ first: 2 })).body.data.specialEventsConnection as Page;
    const cursor = page.pageInfo.endCursor!;
    const otherRange = { after: cursor, endDate: addDays(RANGE.endDate, 1) };
    expect(await refusedArgument(eventsPage(otherRange))).toEqual(['after']);
    expect(
      await refusedArgument(eventsPage({ before: cursor, startDate: addDays(RANGE.startDate, 1) })),
    ).toEqual(['before']);
    const [version, scope, ...key] = JSON.parse(Buffer.from(cursor, 'base64url').toString());
    const forged = (payload: unknown[]) => Buffer.from(JSON.stringify(payload)).toString('base64url');
    for (const after of [
      'garbage!',
      forged([version + 1, scope, ...key]),
      forged([version, scope.replace(RANGE.endDate, addDays(RANGE.endDate, 1)), ...key]),
      forged([version, scope, key[0], key[1]]),
      forged([version, scope, 'not-a-date', key[1], key[2]]),
      forged({ v: version } as unknown as unknown[]),
      'x'.repeat(2_000),
    ]) {
      expect(await refusedArgument(eventsPage({ after })), after).toEqual(['after']);
    }
    // A cursor of myTicketsConnection is not one of the events.
    await boughtTicket(museum, { ticketDate: upcomingOpenDay(0) });
    const tickets = await museum.graphql('{ myTicketsConnection(first: 1) { pageInfo { endCursor } } }');
    const ticketCursor = tickets.body.data.myTicketsConnection.pageInfo.endCursor;
    expect(await refusedArgument(eventsPage({ after: ticketCursor }))).toEqual(['after']);
  });

  it('costs its edges times first (or last, or 10), not the whole connection', () => {
    const cost = (args: string) =>
      measureQuery(
        schema,
        parse(`{ specialEventsConnection${args} { totalCount edges { cursor node { name } } } }`),
      ).cost;
    expect(cost('(first: 30)')).toBe(2 + 1 + 2 + 30 * (1 + 2 + 1));
    expect(cost('(last: 2)')).toBe(2 + 1 + 2 + 2 * (1 + 2 + 1));
    expect(cost('')).toBe(2 + 1 + 2 + 10 * (1 + 2 + 1));
  });
});

const TICKETS = `query($first: Int, $after: String, $last: Int, $before: String) {
  myTicketsConnection(first: $first, after: $after, last: $last, before: $before) {
    totalCount
    edges { cursor node { ticketId } }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
  }
}`;

describe('myTicketsConnection', () => {
  it("pages a visitor's own tickets in the order of myTickets, and refuses another visitor's cursor", async () => {
    for (let n = 0; n < 6; n++) await boughtTicket(museum, { ticketDate: upcomingOpenDay(n % 3) });
    await boughtTicket(museum, { ticketDate: upcomingOpenDay(0) }, 'other');
    const listedTickets = (await museum.graphql('{ myTickets(limit: 30) { total items { ticketId } } }')).body
      .data.myTickets;

    const seen: string[] = [];
    let after: string | null = null;
    let pages = 0;
    for (let hasNextPage = true; hasNextPage; pages++) {
      const { body } = await museum.graphql(TICKETS, { first: 3, after });
      const page = body.data.myTicketsConnection;
      expect(page.totalCount).toBe(listedTickets.total);
      seen.push(...page.edges.map((edge: { node: { ticketId: string } }) => edge.node.ticketId));
      ({ hasNextPage, endCursor: after } = page.pageInfo);
    }
    expect(seen).toEqual(listedTickets.items.map((ticket: { ticketId: string }) => ticket.ticketId));
    expect(pages).toBe(Math.ceil(listedTickets.total / 3));

    const backwards = (await museum.graphql(TICKETS, { last: 2 })).body.data.myTicketsConnection;
    expect(backwards.edges.map((edge: { node: { ticketId: string } }) => edge.node.ticketId)).toEqual(
      seen.slice(-2),
    );

    const theirs = (await museum.graphql(TICKETS, { first: 1 }, { as: 'other' })).body.data
      .myTicketsConnection;
    expect(theirs.totalCount).toBe(1);
    expect(
      await refusedArgument(museum.graphql(TICKETS, { first: 1, after: theirs.pageInfo.endCursor })),
    ).toEqual(['after']);
    // A cursor of a range is refused in another.
    const ranged = `query($after: String, $startDate: Date) { myTicketsConnection(first: 1, after: $after, startDate: $startDate) { edges { cursor } } }`;
    expect(await refusedArgument(museum.graphql(ranged, { after, startDate: upcomingOpenDay(0) }))).toEqual([
      'after',
    ]);
  });
});

const ORDERS = `query($first: Int, $after: String, $last: Int, $before: String) {
  me { ordersConnection(first: $first, after: $after, last: $last, before: $before) {
    totalCount
    edges { cursor node { orderId } }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
  } }
}`;

describe('Account.ordersConnection', () => {
  it('pages the orders newest first, as orders lists them, forwards and backwards', async () => {
    for (let n = 0; n < 5; n++) {
      await placedOrder(museum, {
        email: 'todd@example.com',
        lines: [general(upcomingOpenDay(n), 1 + (n % 2))],
      });
    }
    const orderIds = (
      await museum.graphql('{ me { orders(limit: 30) { orderId } } }')
    ).body.data.me.orders.map((order: { orderId: string }) => order.orderId);
    expect(orderIds).toHaveLength(5);

    const forwards: string[] = [];
    let after: string | null = null;
    for (let hasNextPage = true; hasNextPage; ) {
      const page: Page<{ orderId: string }> = (await museum.graphql(ORDERS, { first: 2, after })).body.data.me
        .ordersConnection;
      expect(page.totalCount).toBe(5);
      forwards.push(...page.edges.map((edge) => edge.node.orderId));
      ({ hasNextPage, endCursor: after } = page.pageInfo);
    }
    expect(forwards).toEqual(orderIds);

    const backwards: string[] = [];
    let before: string | null = null;
    for (let hasPreviousPage = true; hasPreviousPage; ) {
      const page: Page<{ orderId: string }> = (await museum.graphql(ORDERS, { last: 2, before })).body.data.me
        .ordersConnection;
      backwards.unshift(...page.edges.map((edge) => edge.node.orderId));
      ({ hasPreviousPage, startCursor: before } = page.pageInfo);
    }
    expect(backwards).toEqual(orderIds);

    // Another account's cursor is not one of this list's.
    await placedOrder(museum, { email: 'other@example.com', lines: [general(upcomingOpenDay(0))] }, 'other');
    const theirs = (await museum.graphql(ORDERS, { first: 1 }, { as: 'other' })).body.data.me
      .ordersConnection;
    expect(theirs.totalCount).toBe(1);
    expect(
      await refusedArgument(museum.graphql(ORDERS, { first: 1, after: theirs.pageInfo.endCursor })),
    ).toEqual(['after']);
  });
});

describe('the example of docs/api.md', () => {
  it('runs as written, page after page', async () => {
    const [example] = codeBlocks('docs/api.md', 'Paging by cursor: Relay connections', 'graphql');
    let after: string | null = null;
    for (let pages = 0; pages < 2; pages++) {
      const { body } = await museum.graphql(example!, { after });
      expect(body.errors).toBeUndefined();
      after = body.data.specialEventsConnection.pageInfo.endCursor;
    }
  });
});
