// The front-end clients' own WebSocket set-ups against started servers: Apollo Client 4 (split: HTTP for
// queries, GraphQLWsLink for subscriptions) and urql (subscriptionExchange over graphql-ws), each receiving an
// event made through another instance (over PostgreSQL; one instance on the embedded database); and a
// graphql-ws client that reconnects to the other instance when its own drains (1001), resubscribed.
import { ApolloClient, gql, HttpLink, InMemoryCache, split } from '@apollo/client';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { getMainDefinition } from '@apollo/client/utilities';
import {
  cacheExchange,
  createClient as createUrqlClient,
  fetchExchange,
  subscriptionExchange,
} from '@urql/core';
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { basic, STAFF } from './support/museum.ts';
import {
  makeEventUntilHeard,
  type RunningServer,
  spawnServerFor,
  whenSubscribed,
  wsUrl,
} from './support/server.ts';
import { useMuseum } from './support/use-museum.ts';

vi.setConfig({ testTimeout: 120_000 });

const museum = useMuseum();
const STAFF_AUTH = basic(STAFF.name, STAFF.password);
const PUBLISHED = 'subscription Published { specialEventPublished { eventId name } }';
const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

describe('front-end clients over WebSocket', () => {
  // The subscriber's instance, and the one the event is made through (the same one on the embedded database).
  let subscriber: RunningServer;
  let maker: RunningServer;
  beforeAll(async () => {
    subscriber = await spawnServerFor(museum);
    maker = onPostgres ? await spawnServerFor(museum) : subscriber;
  });
  afterAll(async () => {
    await subscriber?.stop();
    await maker?.stop();
  });

  it('Apollo Client 4: queries over HTTP, a subscription over GraphQLWsLink hears an event made elsewhere', async () => {
    const wsClient = createClient({
      url: wsUrl(subscriber),
      webSocketImpl: WebSocket,
      connectionParams: { authorization: STAFF_AUTH },
    });
    const client = new ApolloClient({
      cache: new InMemoryCache(),
      link: split(
        ({ query }) => {
          const definition = getMainDefinition(query);
          return definition.kind === 'OperationDefinition' && definition.operation === 'subscription';
        },
        new GraphQLWsLink(wsClient),
        new HttpLink({ uri: `${subscriber.url}/graphql`, headers: { authorization: STAFF_AUTH } }),
      ),
    });
    try {
      const me = await client.query({ query: gql`query Me { me { name } }` });
      expect(me.data).toEqual({ me: { __typename: 'Account', name: STAFF.name } });
      let heard: string | undefined;
      const subscription = client.subscribe({ query: gql(PUBLISHED) }).subscribe(({ data }) => {
        heard = (data as { specialEventPublished: { eventId: string } }).specialEventPublished.eventId;
      });
      await whenSubscribed(subscriber, 1);
      expect(await makeEventUntilHeard(maker, () => heard)).toBe(heard);
      subscription.unsubscribe();
    } finally {
      client.stop();
      await wsClient.dispose();
    }
  });

  it('urql: subscriptionExchange over graphql-ws hears an event made elsewhere', async () => {
    const wsClient = createClient({
      url: wsUrl(subscriber),
      webSocketImpl: WebSocket,
      connectionParams: { authorization: STAFF_AUTH },
    });
    const client = createUrqlClient({
      url: `${subscriber.url}/graphql`,
      fetchOptions: { headers: { authorization: STAFF_AUTH } },
      exchanges: [
        cacheExchange,
        fetchExchange,
        subscriptionExchange({
          forwardSubscription(request) {
            const input = { ...request, query: request.query || '' };
            return {
              subscribe: (sink) => ({ unsubscribe: wsClient.subscribe(input, sink) }),
            };
          },
        }),
      ],
    });
    try {
      let heard: string | undefined;
      const { unsubscribe } = client.subscription(PUBLISHED, {}).subscribe((result) => {
        const published = (result.data as { specialEventPublished?: { eventId: string } } | undefined)
          ?.specialEventPublished;
        if (published) heard = published.eventId;
      });
      await whenSubscribed(subscriber, 1);
      expect(await makeEventUntilHeard(maker, () => heard)).toBe(heard);
      unsubscribe();
    } finally {
      await wsClient.dispose();
    }
  });
});

describe('a drained instance', () => {
  it("closes its sockets with 1001; graphql-ws's client reconnects to the other and resubscribes", async () => {
    const servers = [await spawnServerFor(museum), await spawnServerFor(museum)];
    const closes: number[] = [];
    let attempt = 0;
    const client = createClient({
      // The first instance, then the other: what a load balancer does when one leaves.
      url: () => wsUrl(servers[Math.min(attempt++, 1)]!),
      webSocketImpl: WebSocket,
      connectionParams: { authorization: STAFF_AUTH },
      retryAttempts: 5,
      retryWait: () => new Promise((resolve) => setTimeout(resolve, 100)),
      shouldRetry: () => true,
      on: { closed: (event) => closes.push((event as { code: number }).code) },
    });
    const received: string[] = [];
    const dispose = client.subscribe(
      { query: PUBLISHED },
      {
        next: ({ data }) =>
          received.push(
            (data as { specialEventPublished: { eventId: string } }).specialEventPublished.eventId,
          ),
        error: () => {},
        complete: () => {},
      },
    );
    try {
      await whenSubscribed(servers[0]!, 1);
      expect(await servers[0]!.stop()).toBe(0);
      expect(closes[0]).toBe(1001);
      // Reconnected and subscribed again, on the other instance: it hears what is made there.
      await whenSubscribed(servers[1]!, 1);
      // Made there until one is heard: its LISTEN connection may still be opening (makeEventUntilHeard).
      await makeEventUntilHeard(servers[1]!, () => received.at(-1));
    } finally {
      dispose();
      await client.dispose();
      await Promise.all(servers.map((server) => server.stop()));
    }
  });
});
