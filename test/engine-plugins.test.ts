// One engine for every transport: an envelop plugin given to the app (as a maintainer would add a library's)
// sees each operation whatever brought it — a REST route, GraphQL over POST and GET, @defer over multipart,
// a subscription over server-sent events, a query and a subscription over WebSocket (graphql-ws's client, on
// a node:http server listening as npm start's does) — and may answer in the operation's place, which every
// transport then shows in its own shape.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Plugin } from '@envelop/core';
import { type ExecutionArgs, GraphQLError, getOperationAST } from 'graphql';
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { openEventStream } from './support/event-stream.ts';
import { basic, eventBody, STAFF, VISITOR } from './support/museum.ts';
import { makeEventUntilHeard } from './support/server.ts';
import { useMuseum } from './support/use-museum.ts';

/** What the plugin saw: each operation's type and name, in order. */
const seen: string[] = [];
const describeOperation = (args: ExecutionArgs) => {
  const operation = getOperationAST(args.document, args.operationName);
  return `${operation?.operation} ${operation?.name?.value ?? '(anonymous)'}`;
};
/** The documents the engine parsed and validated for the operations above, in order. */
const checked: string[] = [];
/** While set, the plugin answers every operation itself, as a cache or a guard would. */
let refuseAll = false;

const watching: Plugin = {
  onParse() {
    checked.push('parse');
  },
  onValidate() {
    checked.push('validate');
  },
  onExecute({ args, setResultAndStopExecution }) {
    seen.push(describeOperation(args));
    if (refuseAll)
      setResultAndStopExecution({
        errors: [new GraphQLError('Refused by a plugin', { extensions: { code: 'FORBIDDEN' } })],
      });
  },
  onSubscribe({ args }) {
    seen.push(describeOperation(args));
  },
};

const museum = useMuseum({}, { plugins: [watching] });
const STAFF_AUTH = basic(STAFF.name, STAFF.password);
const VISITOR_AUTH = basic(VISITOR.name, VISITOR.password);
let eventId: string;
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  eventId = (await museum.rest('POST', '/special-events', { as: 'staff', body: eventBody() })).body.eventId;
  server = createServer((req, res) => museum.app.handleNode(req, res));
  server.on('upgrade', (req, socket, head) => museum.app.websockets.handleUpgrade(req, socket, head));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await museum.app.websockets.close();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  seen.length = 0;
  checked.length = 0;
  refuseAll = false;
});

describe('an engine plugin', () => {
  it('sees a REST route as the operation it runs', async () => {
    const answer = await fetch(`${baseUrl}/special-events/${eventId}`, {
      headers: { authorization: VISITOR_AUTH },
    });
    expect(answer.status).toBe(200);
    expect(seen).toEqual(['query getSpecialEvent']);
  });

  it("runs a REST route's start-up document without parsing or validating it again, as SOFA does", async () => {
    for (let run = 0; run < 2; run++) {
      const answer = await fetch(`${baseUrl}/special-events/${eventId}`, {
        headers: { authorization: VISITOR_AUTH },
      });
      expect(answer.status).toBe(200);
    }
    expect(seen).toEqual(['query getSpecialEvent', 'query getSpecialEvent']);
    expect(checked).toEqual([]);
    const posted = await fetch(`${baseUrl}/graphql`, {
      method: 'POST',
      headers: { authorization: VISITOR_AUTH, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'query Mine { me { name } }' }),
    });
    expect(posted.status).toBe(200);
    expect(checked).toEqual(['parse', 'validate']);
  });

  it('sees GraphQL over POST and over GET', async () => {
    const query = 'query Mine { me { name } }';
    const posted = await fetch(`${baseUrl}/graphql`, {
      method: 'POST',
      headers: { authorization: VISITOR_AUTH, 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    });
    expect(posted.status).toBe(200);
    const got = await fetch(`${baseUrl}/graphql?query=${encodeURIComponent(query)}`, {
      headers: { authorization: VISITOR_AUTH, accept: 'application/graphql-response+json' },
    });
    expect(got.status).toBe(200);
    expect(seen).toEqual(['query Mine', 'query Mine']);
  });

  it('sees a @defer query delivered over multipart/mixed', async () => {
    const answer = await fetch(`${baseUrl}/graphql`, {
      method: 'POST',
      headers: {
        authorization: STAFF_AUTH,
        'content-type': 'application/json',
        accept: 'multipart/mixed;deferSpec=20220824',
      },
      body: JSON.stringify({
        query: 'query Deferred($id: UUID!) { specialEvent(eventId: $id) { name ... @defer { price } } }',
        variables: { id: eventId },
      }),
    });
    expect(answer.headers.get('content-type')).toMatch(/^multipart\/mixed/);
    await answer.text();
    expect(seen).toEqual(['query Deferred']);
  });

  it('sees a subscription over server-sent events', async () => {
    const stream = await openEventStream(
      fetch,
      baseUrl,
      'subscription Published { specialEventPublished { name } }',
      STAFF_AUTH,
    );
    try {
      expect(stream.status).toBe(200);
      expect(seen).toEqual(['subscription Published']);
    } finally {
      stream.close();
    }
  });

  it('sees a query and a subscription over WebSocket', async () => {
    const client = createClient({
      url: `${baseUrl.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      connectionParams: { authorization: STAFF_AUTH },
    });
    try {
      const query = client.iterate({ query: 'query OverSocket { me { name } }' });
      expect((await query.next()).value).toEqual({ data: { me: { name: STAFF.name } } });
      await query.return?.();
      const subscription = client.iterate({
        query: 'subscription Live { specialEventPublished { eventId } }',
      });
      let heard: string | undefined;
      const hearing = (async () => {
        for await (const result of subscription) {
          heard = (result.data as { specialEventPublished: { eventId: string } }).specialEventPublished
            .eventId;
          return;
        }
      })();
      // Made until one is heard: the subscription (and on PostgreSQL its LISTEN) is set up in the background,
      // so an event made at once can pass it by.
      expect(await makeEventUntilHeard(museum, () => heard)).toBe(heard);
      await hearing;
      expect(seen).toContain('query OverSocket');
      expect(seen).toContain('subscription Live');
    } finally {
      await client.dispose();
    }
  });

  it("answers in the operation's place: each transport shows the plugin's answer in its shape", async () => {
    refuseAll = true;
    const rest = await fetch(`${baseUrl}/special-events/${eventId}`, {
      headers: { authorization: VISITOR_AUTH },
    });
    expect(rest.status).toBe(403);
    expect(rest.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await rest.json()).toMatchObject({ status: 403, detail: 'Refused by a plugin' });
    const graphql = await fetch(`${baseUrl}/graphql`, {
      method: 'POST',
      headers: { authorization: VISITOR_AUTH, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'query Mine { me { name } }' }),
    });
    expect(await graphql.json()).toEqual({
      errors: [{ message: 'Refused by a plugin', extensions: { code: 'FORBIDDEN' } }],
    });
    expect(seen).toEqual(['query getSpecialEvent', 'query Mine']);
  });
});
