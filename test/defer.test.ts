// @defer and @stream (incremental delivery) on the one operation runner: over multipart/mixed the initial
// result comes first and each deferred part after it (as Apollo Client and Relay read them); a plain JSON
// answer carries everything at once; a deferred fragment counts toward the query limits like any other.
import { ApolloClient, gql, HttpLink, InMemoryCache } from '@apollo/client';
import { Defer20220824Handler } from '@apollo/client/incremental';
import { beforeAll, describe, expect, it } from 'vitest';
import { basic, eventBody, STAFF } from './support/museum.ts';
import { type RunningServer, spawnServerFor } from './support/server.ts';
import { useMuseum } from './support/use-museum.ts';

const museum = useMuseum();
const STAFF_AUTH = basic(STAFF.name, STAFF.password);
const DEFERRED = `query Deferred($id: UUID!) {
  specialEvent(eventId: $id) { eventId name ... @defer(label: "details") { eventDescription price } }
}`;

let eventId: string;
beforeAll(async () => {
  eventId = (await museum.rest('POST', '/special-events', { as: 'staff', body: eventBody() })).body.eventId;
});

/** The JSON parts of a multipart/mixed body (boundary "-"), in order. */
function partsOf(body: string): Record<string, unknown>[] {
  return body
    .split('\r\n---')
    .map((part) => part.split('\r\n\r\n')[1])
    .filter((json): json is string => Boolean(json?.trim()))
    .map((json) => JSON.parse(json) as Record<string, unknown>);
}

describe('@defer', () => {
  it('over multipart/mixed: the initial result first, the deferred part after it', async () => {
    const response = await museum.fetch('http://museum.test/graphql', {
      method: 'POST',
      headers: {
        authorization: STAFF_AUTH,
        'content-type': 'application/json',
        accept: 'multipart/mixed;deferSpec=20220824, application/json',
      },
      body: JSON.stringify({ query: DEFERRED, variables: { id: eventId } }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^multipart\/mixed/);
    const parts = partsOf(await response.text());
    expect(parts[0]).toEqual({
      data: { specialEvent: { eventId, name: expect.any(String) } },
      hasNext: true,
    });
    expect(parts.at(-1)).toMatchObject({ hasNext: false });
    expect(parts.slice(1)).toContainEqual(
      expect.objectContaining({
        incremental: [
          {
            data: { eventDescription: expect.any(String), price: expect.any(Number) },
            path: ['specialEvent'],
            label: 'details',
          },
        ],
      }),
    );
  });

  it('asked for JSON: ignored, everything at once', async () => {
    const answer = await museum.graphql(DEFERRED, { id: eventId }, { as: 'staff' });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      data: {
        specialEvent: {
          eventId,
          name: expect.any(String),
          eventDescription: expect.any(String),
          price: expect.any(Number),
        },
      },
    });
  });

  it('counts toward the query limits like any other fragment', async () => {
    // 30 days × 30 events with their availability is over the cost limit, deferred or not.
    const page = (selection: string) =>
      `{ museumHours(limit: 30) { date ${selection} } }`.replace(
        'SELECTION',
        'events(limit: 30) { name availability { date remaining } }',
      );
    const plain = await museum.graphql(page('SELECTION'), {}, { as: 'staff' });
    const deferred = await museum.graphql(page('... @defer { SELECTION }'), {}, { as: 'staff' });
    expect(plain.status).toBe(400);
    expect(deferred.status).toBe(400);
    expect(deferred.body.errors[0].extensions.code).toBe(plain.body.errors[0].extensions.code);
  });
});

describe('Apollo Client 4 with @defer', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await spawnServerFor(museum);
  });

  it('gets the deferred part after the initial one', async () => {
    const made = await fetch(`${server.url}/special-events`, {
      method: 'POST',
      headers: { authorization: STAFF_AUTH, 'content-type': 'application/json' },
      body: JSON.stringify(eventBody()),
    });
    const { eventId: id } = (await made.json()) as { eventId: string };
    const client = new ApolloClient({
      cache: new InMemoryCache(),
      link: new HttpLink({ uri: `${server.url}/graphql`, headers: { authorization: STAFF_AUTH } }),
      incrementalHandler: new Defer20220824Handler(),
    });
    try {
      const seen: { dataState: string; data: unknown }[] = [];
      await new Promise<void>((resolve, reject) => {
        const subscription = client.watchQuery({ query: gql(DEFERRED), variables: { id } }).subscribe({
          next: (result) => {
            seen.push({ dataState: result.dataState, data: result.data });
            if (result.dataState === 'complete') {
              subscription.unsubscribe();
              resolve();
            }
          },
          error: reject,
        });
      });
      const streaming = seen.find((result) => result.dataState === 'streaming');
      expect(streaming?.data).toEqual({
        specialEvent: { __typename: 'SpecialEvent', eventId: id, name: expect.any(String) },
      });
      expect(seen.at(-1)?.data).toEqual({
        specialEvent: {
          __typename: 'SpecialEvent',
          eventId: id,
          name: expect.any(String),
          eventDescription: expect.any(String),
          price: expect.any(Number),
        },
      });
    } finally {
      client.stop();
      await server.stop();
    }
  });
});
