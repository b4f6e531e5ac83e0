// Turning tracing on changes nothing a client sees: the same requests get the same statuses and bodies from
// an app built with tracing off and from one built with it on, over the same database. Tracing adds spans to
// the one request path; it does not switch to another.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.ts';
import { startTracing } from '../src/tracing.ts';
import { stopRecordedTracing } from './support/leak-recording.ts';
import { listen } from './support/listening.ts';
import {
  basic,
  eventBody,
  STAFF,
  startMuseum,
  type TestMuseum,
  upcomingOpenDay,
  VISITOR,
} from './support/museum.ts';

const HOURS = 'query TrustedHours { museumHours(limit: 2) { date timeOpen } }';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

let directory: string;
let museum: TestMuseum;
let collector: Server;
let exported = 0;

beforeAll(async () => {
  // This file turns tracing on and off itself: the leak scan's tracing of this process ends first.
  await stopRecordedTracing();
  directory = mkdtempSync(join(tmpdir(), 'museum-tracing-'));
  const manifest = join(directory, 'persisted-documents.json');
  writeFileSync(manifest, JSON.stringify({ [sha256(HOURS)]: HOURS }));
  museum = await startMuseum({ MUSEUM_TRUSTED_DOCUMENTS: manifest });
  collector = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url === '/v1/traces') exported++;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  await museum?.close();
  collector?.close();
  rmSync(directory, { recursive: true, force: true });
});

type Fetch = (input: string, init?: RequestInit) => Promise<Response>;

const auth = (name: string, password: string) => ({ authorization: basic(name, password) });
const VISITOR_HEADERS = auth(VISITOR.name, VISITOR.password);
const STAFF_HEADERS = auth(STAFF.name, STAFF.password);
const json = { 'content-type': 'application/json' };

/** The requests of the comparison, each a client's whole exchange: REST and GraphQL, answers and refusals. */
function requests(eventId: string): [string, string, RequestInit][] {
  const hours = '{ museumHours(limit: 3) { date timeOpen timeClose } }';
  const page = `{ specialEventPage(startDate: "${upcomingOpenDay(0)}", endDate: "${upcomingOpenDay(3)}") {
    total items { id eventId dates price availability { date capacity remaining } } } }`;
  return [
    ['a REST read', '/museum-hours?limit=3', { headers: VISITOR_HEADERS }],
    [
      'a REST write',
      `/special-events/${eventId}`,
      {
        method: 'PATCH',
        headers: { ...STAFF_HEADERS, ...json },
        body: JSON.stringify({ price: 31 }),
      },
    ],
    ['a REST input error', '/museum-hours?startDate=tomorrow', { headers: VISITOR_HEADERS }],
    [
      'a visitor refused',
      '/special-events',
      {
        method: 'POST',
        headers: { ...VISITOR_HEADERS, ...json },
        body: JSON.stringify(eventBody()),
      },
    ],
    [
      'a GraphQL query',
      '/graphql',
      { method: 'POST', headers: { ...VISITOR_HEADERS, ...json }, body: JSON.stringify({ query: hours }) },
    ],
    [
      'the same query again',
      '/graphql',
      { method: 'POST', headers: { ...VISITOR_HEADERS, ...json }, body: JSON.stringify({ query: hours }) },
    ],
    ['a GraphQL query over GET', `/graphql?query=${encodeURIComponent(hours)}`, { headers: VISITOR_HEADERS }],
    [
      "a page of events with their availability, in the page's statement",
      '/graphql',
      { method: 'POST', headers: { ...VISITOR_HEADERS, ...json }, body: JSON.stringify({ query: page }) },
    ],
    ['a trusted document', `/graphql?documentId=sha256:${sha256(HOURS)}`, { headers: VISITOR_HEADERS }],
    [
      'a limit exceeded',
      '/graphql',
      {
        method: 'POST',
        headers: { ...VISITOR_HEADERS, ...json },
        body: JSON.stringify({
          query: `{ ${Array.from({ length: 20 }, (_, i) => `a${i}: me { name }`).join(' ')} }`,
        }),
      },
    ],
    [
      'a query with @defer, in parts',
      '/graphql',
      {
        method: 'POST',
        headers: {
          ...VISITOR_HEADERS,
          ...json,
          accept: 'multipart/mixed;deferSpec=20220824, application/json',
        },
        body: JSON.stringify({
          query: `{ specialEvent(eventId: "${eventId}") { eventId ... @defer { name price } } }`,
        }),
      },
    ],
    [
      'a GraphQL input error',
      '/graphql',
      {
        method: 'POST',
        headers: { ...VISITOR_HEADERS, ...json },
        body: JSON.stringify({ query: '{ specialEvents(limit: 0) { name } }' }),
      },
    ],
  ];
}

async function exchange(fetch: Fetch, eventId: string) {
  const answers: Record<string, { status: number; body: string }> = {};
  for (const [name, path, init] of requests(eventId)) {
    const response = await fetch(`http://museum.test${path}`, init);
    answers[name] = { status: response.status, body: await response.text() };
  }
  return answers;
}

describe('tracing on and off', () => {
  it('answers the same requests with the same statuses and bodies', async () => {
    const event = (await museum.rest('POST', '/special-events', { as: 'staff', body: eventBody() })).body;
    const untraced = await listen({ deps: museum.deps, app: createApp(museum.deps) });
    const off = await exchange(untraced.fetch, event.eventId);
    await untraced.stop();

    const { port } = collector.address() as { port: number };
    const stop = await startTracing(`http://127.0.0.1:${port}`);
    try {
      const traced = await listen({ deps: museum.deps, app: createApp(museum.deps) });
      const on = await exchange(traced.fetch, event.eventId);
      await traced.stop();
      expect(on).toEqual(off);
    } finally {
      await stop?.();
    }
    // The statuses the comparison covers: answers and refusals alike.
    expect(Object.values(off).map((answer) => answer.status)).toEqual([
      200, 200, 400, 403, 200, 200, 200, 200, 200, 400, 200, 200,
    ]);
    const page = JSON.parse(off["a page of events with their availability, in the page's statement"]!.body);
    expect(page.data.specialEventPage.items[0].availability.length).toBeGreaterThan(0);
    expect(exported).toBeGreaterThan(0);
  });
});
