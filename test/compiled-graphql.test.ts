// The compiled lane (src/http/compiled-graphql.ts): a GraphQL query yoga has seen once is answered off
// yoga's pipeline the next time. Each test sends a request twice, the first answered by yoga and the second
// by the lane, and checks the two answers are the same, and which of them yoga handled.
import { RequestCache } from '@pothos/plugin-scope-auth';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { RequestContext } from '../src/context.ts';
import { basic, eventBody, STAFF, type TestResponse } from './support/museum.ts';
import { useMuseum } from './support/use-museum.ts';

let event: { eventId: string; dates: string[] };

const museum = useMuseum();
beforeAll(async () => {
  event = (await museum.rest('POST', '/special-events', { as: 'staff', body: eventBody() })).body;
});

let queryNumber = 0;
/** A query text no earlier test has sent (the lane remembers texts across tests). */
const fresh = (query: string) => `${query} # ${++queryNumber}`;

/** Sends the request, and says whether yoga answered it (or the compiled lane). */
async function viaYoga(
  send: () => Promise<TestResponse>,
): Promise<{ response: TestResponse; yoga: boolean }> {
  const spy = vi.spyOn(museum.app.compiledGraphQL, 'run');
  try {
    const response = await send();
    const outcomes = await Promise.all(spy.mock.results.map((result) => result.value));
    return { response, yoga: !outcomes.some((outcome) => 'answer' in outcome) };
  } finally {
    spy.mockRestore();
  }
}

const post = (body: unknown, headers: Record<string, string> = {}, as: 'staff' | 'visitor' = 'visitor') =>
  museum.request('POST', '/graphql', { as, body, headers });

/** What two answers must share: status, the headers a client reads, and the body. */
const shape = (response: TestResponse) => ({
  status: response.status,
  contentType: response.headers.get('content-type'),
  cacheControl: response.headers.get('cache-control'),
  securityPolicy: response.headers.get('content-security-policy'),
  body: response.text,
});

describe('the compiled lane', () => {
  const EVENT_QUERY = 'query One($id: UUID!) { specialEvent(eventId: $id) { eventId name dates price } }';

  it('answers a query it has seen, exactly as yoga did', async () => {
    const query = fresh(EVENT_QUERY);
    const send = () => post({ query, variables: { id: event.eventId } });
    const first = await viaYoga(send);
    const second = await viaYoga(send);
    expect(first.yoga).toBe(true);
    expect(second.yoga).toBe(false);
    expect(second.response.body.data.specialEvent).toMatchObject({ eventId: event.eventId, price: 30 });
    expect(shape(second.response)).toEqual(shape(first.response));
    expect(second.response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it.each([
    ['no Accept', undefined],
    ['*/*', '*/*'],
    ['application/json', 'application/json'],
    ['application/graphql-response+json', 'application/graphql-response+json'],
    ['a list led by application/json', 'application/json, text/event-stream'],
  ])('negotiates as yoga does: %s', async (_, accept) => {
    const query = fresh('{ museumHours(limit: 1) { date } }');
    const headers: Record<string, string> = accept ? { accept } : {};
    const first = await viaYoga(() => post({ query }, headers));
    const second = await viaYoga(() => post({ query }, headers));
    expect(second.yoga).toBe(false);
    expect(shape(second.response)).toEqual(shape(first.response));
  });

  it('leaves weighted or streaming Accept headers to yoga', async () => {
    const query = fresh('{ museumHours(limit: 1) { date } }');
    await post({ query });
    for (const accept of ['application/json;q=0.9', 'text/event-stream', 'text/html']) {
      const { yoga } = await viaYoga(() => post({ query }, { accept }));
      expect(yoga, accept).toBe(true);
    }
  });

  it('keeps the operation chosen by operationName apart', async () => {
    const query = fresh(`query Hours { museumHours(limit: 1) { date } }
      query Event($id: UUID!) { specialEvent(eventId: $id) { name } }`);
    const hours = { query, operationName: 'Hours' };
    const one = { query, operationName: 'Event', variables: { id: event.eventId } };
    await post(hours);
    await post(one);
    const second = await viaYoga(() => post(one));
    expect(second.yoga).toBe(false);
    expect(second.response.body).toEqual({ data: { specialEvent: { name: eventBody().name } } });
    const unknownName = await viaYoga(() => post({ ...hours, operationName: 'Other' }));
    expect(unknownName.yoga).toBe(true);
    expect(unknownName.response.body.errors[0].message).toMatch(/operation/);
  });

  it('hands yoga a run that ends in an error, which answers it as before', async () => {
    const query = fresh(EVENT_QUERY);
    await post({ query, variables: { id: event.eventId } });
    const bad = { query, variables: { id: 'not-a-uuid' } };
    const second = await viaYoga(() => post(bad));
    expect(second.yoga).toBe(true);
    expect(second.response.body.data).toBeUndefined();
    expect(second.response.body.errors[0].message).toMatch(/eventId/);
    const missing = await viaYoga(() => post({ query, variables: {} }));
    expect(missing.yoga).toBe(true);
    expect(missing.response.body.errors[0].message).toMatch(/eventId: is required/);
  });

  it('refuses as yoga refuses, and checks wrong credentials only once', async () => {
    const query = fresh('{ me { name role } }');
    await post({ query }, {}, 'staff');
    const lane = await viaYoga(() => post({ query }, {}, 'staff'));
    expect(lane.yoga).toBe(false);
    expect(lane.response.body).toEqual({ data: { me: { name: STAFF.name, role: 'staff' } } });

    const anonymous = await viaYoga(() => museum.request('POST', '/graphql', { body: { query } }));
    expect(anonymous.yoga).toBe(true);
    expect(anonymous.response.status).toBe(401);

    const failures = async () => {
      const [row] = await museum.deps.db
        .fork()
        .execute(
          `select coalesce(sum(failures), 0)::int as n from login_throttle where key like 'account:%'`,
        );
      return row!.n as number;
    };
    const before = await failures();
    const wrong = await viaYoga(() =>
      museum.request('POST', '/graphql', {
        body: { query },
        headers: { authorization: basic(STAFF.name, 'not-the-password') },
      }),
    );
    expect(wrong.yoga).toBe(true);
    expect(wrong.response.status).toBe(401);
    expect(wrong.response.headers.get('www-authenticate')).toMatch(/^Basic /);
    expect(await failures()).toBe(before + 1);
  });

  it('is not used for bodies that are more than a plain request', async () => {
    const query = fresh('{ museumHours(limit: 1) { date } }');
    await post({ query });
    for (const body of [
      { query, extensions: { persistedQuery: { version: 1, sha256Hash: 'x' } } },
      { query, variables: [] },
      { query, unexpected: true },
    ]) {
      const { yoga } = await viaYoga(() => post(body));
      expect(yoga, JSON.stringify(body)).toBe(true);
    }
  });

  it('never remembers a mutation', async () => {
    const query = fresh(
      'mutation($id: UUID!) { updateSpecialEvent(eventId: $id, input: { price: 31 }) { price } }',
    );
    const send = () => post({ query, variables: { id: event.eventId } }, {}, 'staff');
    expect((await viaYoga(send)).response.body.data.updateSpecialEvent.price).toBe(31);
    expect((await viaYoga(send)).yoga).toBe(true);
  });

  it('counts its operations in the metrics, under their names', async () => {
    const query = fresh('query LaneCounted { museumHours(limit: 1) { date } }');
    await post({ query });
    await post({ query });
    await post({ query });
    const metrics = await museum.request('GET', '/metrics');
    const line = metrics.text
      .split('\n')
      .find((l) => l.startsWith('graphql_operations_total{operation_name="LaneCounted"'));
    expect(line).toMatch(/ 3$/);
  });
});

describe("an operation's per-request caches", () => {
  // Scope auth keeps its cache in a WeakMap keyed by the context, whose values V8's young collector keeps
  // alive: left there, each request's results were promoted to the old generation (README, Performance).
  it('are released when the operation ends, in every lane: REST, yoga and the compiled lane', async () => {
    const released = vi.spyOn(RequestCache, 'clearForContext');
    const releasedBy = async (send: () => Promise<TestResponse>) => {
      released.mockClear();
      const { response, yoga } = await viaYoga(send);
      expect(response.status).toBe(200);
      return {
        yoga,
        released: released.mock.calls.map(([context]) => (context as RequestContext).principal?.name),
      };
    };
    try {
      const rest = await releasedBy(() => museum.rest('GET', '/museum-hours', { as: 'visitor' }));
      expect(rest.released).toEqual(['visitor']);
      const query = fresh('query Released { museumHours(limit: 1) { date } }');
      expect(await releasedBy(() => post({ query }))).toEqual({ yoga: true, released: ['visitor'] });
      expect(await releasedBy(() => post({ query }))).toEqual({ yoga: false, released: ['visitor'] });
      const mutation =
        'mutation($id: UUID!) { updateSpecialEvent(eventId: $id, input: { price: 32 }) { price } }';
      const send = () => post({ query: mutation, variables: { id: event.eventId } }, {}, 'staff');
      expect(await releasedBy(send)).toEqual({ yoga: true, released: [STAFF.name] });
    } finally {
      released.mockRestore();
    }
  });
});
