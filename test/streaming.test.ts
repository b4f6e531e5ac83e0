// One lane for every streaming media type (src/http/graphql-endpoint.ts): the same @defer query and the same
// subscription, over server-sent events and over multipart/mixed, come in the same parts; a client that
// accepts JSON only gets the deferred query whole, and its subscription refused with 406.
import { beforeAll, describe, expect, it } from 'vitest';
import { basic, eventBody, VISITOR } from './support/museum.ts';
import { eventually } from './support/receiver.ts';
import { useMuseum } from './support/use-museum.ts';

const museum = useMuseum();
const VISITOR_AUTH = basic(VISITOR.name, VISITOR.password);
const DEFERRED = `query Deferred($id: UUID!) {
  specialEvent(eventId: $id) { eventId name ... @defer(label: "details") { eventDescription price } }
}`;
const PUBLISHED = 'subscription Published { specialEventPublished { eventId name } }';
const STREAM_TYPES = ['text/event-stream', 'multipart/mixed'] as const;
type StreamType = (typeof STREAM_TYPES)[number];

let eventId: string;
beforeAll(async () => {
  eventId = (await museum.rest('POST', '/special-events', { as: 'staff', body: eventBody() })).body.eventId;
});

/** The JSON parts of a stream in either media type, read as they come; `done` once the server ended it. */
function readParts(type: StreamType, body: ReadableStream<Uint8Array>) {
  const parts: Record<string, unknown>[] = [];
  let completed = false;
  let done = false;
  const reading = (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    const reader = body.getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      buffer += decoder.decode(read.value, { stream: true });
      if (type === 'text/event-stream') {
        for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (block.startsWith('event: complete')) completed = true;
          const data = /^data: (.+)$/m.exec(block)?.[1];
          if (block.startsWith('event: next') && data) parts.push(JSON.parse(data));
        }
      } else {
        // Each part: headers, a blank line, the JSON, then the next boundary (`\r\n---`).
        for (let end = buffer.indexOf('\r\n---', 1); end !== -1; end = buffer.indexOf('\r\n---', 1)) {
          const json = buffer.slice(0, end).split('\r\n\r\n')[1];
          buffer = buffer.slice(end);
          if (json?.trim()) parts.push(JSON.parse(json));
        }
        if (buffer === '\r\n-----\r\n') completed = true;
      }
    }
    done = true;
  })();
  return { parts, reading, completed: () => completed, done: () => done };
}

const post = (accept: string, query: string, variables?: Record<string, unknown>, signal?: AbortSignal) =>
  museum.fetch('http://museum.test/graphql', {
    method: 'POST',
    headers: { authorization: VISITOR_AUTH, 'content-type': 'application/json', accept },
    body: JSON.stringify({ query, variables }),
    signal,
  });

describe('one lane, each streaming media type', () => {
  it.each(STREAM_TYPES)('@defer over %s: the initial result, then the deferred part', async (type) => {
    const response = await post(type, DEFERRED, { id: eventId });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(new RegExp(`^${type}`));
    const stream = readParts(type, response.body!);
    await stream.reading;
    expect(stream.completed()).toBe(true);
    expect(stream.parts[0]).toEqual({
      data: { specialEvent: { eventId, name: expect.any(String) } },
      hasNext: true,
    });
    expect(stream.parts.at(-1)).toMatchObject({ hasNext: false });
    expect(stream.parts.slice(1)).toContainEqual(
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

  it.each(STREAM_TYPES)('a subscription over %s: an event made over REST reaches it', async (type) => {
    const closed = new AbortController();
    const response = await post(type, PUBLISHED, undefined, closed.signal);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(new RegExp(`^${type}`));
    const stream = readParts(type, response.body!);
    void stream.reading.catch(() => {});
    try {
      const heard = () =>
        (stream.parts.at(-1) as { data?: { specialEventPublished?: { eventId: string } } } | undefined)?.data
          ?.specialEventPublished?.eventId;
      // Made until one is heard (one every half second): the subscription is set up as the answer's head
      // goes out, and on PostgreSQL its LISTEN a moment later.
      const made: string[] = [];
      let madeAt = 0;
      const first = await eventually(async () => {
        const id = heard();
        if (id !== undefined && made.includes(id)) return id;
        if (Date.now() - madeAt > 500) {
          madeAt = Date.now();
          made.push(
            (await museum.rest('POST', '/special-events', { as: 'staff', body: eventBody() })).body.eventId,
          );
        }
        return undefined;
      }, 30_000);
      expect(made).toContain(first);
      expect(stream.completed()).toBe(false);
    } finally {
      closed.abort();
    }
  });

  it('a query with @defer for a JSON-only client comes whole; its subscription is refused with 406', async () => {
    const whole = await post('application/json', DEFERRED, { id: eventId });
    expect(whole.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await whole.json()).toEqual({
      data: {
        specialEvent: {
          eventId,
          name: expect.any(String),
          eventDescription: expect.any(String),
          price: expect.any(Number),
        },
      },
    });
    const refused = await post('application/json', PUBLISHED);
    expect(refused.status).toBe(406);
    expect(await refused.json()).toMatchObject({ errors: [{ extensions: { code: 'NOT_ACCEPTABLE' } }] });
  });

  it('a refusal before the stream opens comes in the asked media type with its status', async () => {
    const stranger = await museum.fetch('http://museum.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'multipart/mixed' },
      body: JSON.stringify({ query: PUBLISHED }),
    });
    expect(stranger.status).toBe(401);
    expect(stranger.headers.get('www-authenticate')).toMatch(/^Basic/);
    const stream = readParts('multipart/mixed', stranger.body!);
    await stream.reading;
    expect(stream.parts).toEqual([
      {
        errors: [
          expect.objectContaining({ extensions: expect.objectContaining({ code: 'UNAUTHENTICATED' }) }),
        ],
      },
    ]);
  });
});
