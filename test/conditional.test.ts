// Conditional requests (issue 14): every read carries a strong ETag derived from its representation, and
// If-None-Match answers 304 without a body.
import { beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../src/common/dates.ts';
import { eventBody, todayUtc, upcomingOpenDay } from './support/museum.ts';
import { useMuseum } from './support/use-museum.ts';

let event: { eventId: string; dates: string[] };
// Dates of their own, far ahead, so no other event falls into this file's lists.
const day = addDays(todayUtc(), 4000);

const museum = useMuseum();
beforeAll(async () => {
  event = (await museum.rest('POST', '/special-events', { as: 'staff', body: eventBody({ dates: [day] }) }))
    .body;
});

// A digest of the representation, or (for an event) its version.
const STRONG_TAG = /^"([A-Za-z0-9_-]{27}|v\d+)"$/;

describe('validators on reads', () => {
  it.each([
    ['GET /museum-hours', () => '/museum-hours?limit=3'],
    ['GET /special-events', () => `/special-events?startDate=${day}&endDate=${day}`],
    ['GET /special-events/{eventId}', () => `/special-events/${event.eventId}`],
  ])(
    '%s: a strong ETag, stable while nothing changes; If-None-Match gives 304 without a body',
    async (_, path) => {
      const first = await museum.rest('GET', path());
      expect(first.status).toBe(200);
      const tag = first.headers.get('etag')!;
      expect(tag).toMatch(STRONG_TAG);
      expect(first.headers.get('cache-control')).toBe('private, no-cache');
      expect(first.headers.get('vary')).toBe('Authorization');
      expect((await museum.rest('GET', path())).headers.get('etag')).toBe(tag);

      for (const header of [tag, `W/${tag}`, `"other", ${tag}`, '*']) {
        const again = await museum.rest('GET', path(), { headers: { 'if-none-match': header } });
        expect(again.status, header).toBe(304);
        expect(again.text).toBe('');
        expect(again.headers.get('etag')).toBe(tag);
        expect(again.headers.get('cache-control')).toBe('private, no-cache');
        expect(again.headers.get('content-length')).toBeNull();
      }
      const other = await museum.rest('GET', path(), { headers: { 'if-none-match': '"other"' } });
      expect(other.status).toBe(200);
      expect(other.text).toBe(first.text);
      const head = await museum.rest('HEAD', path(), { headers: { 'if-none-match': tag } });
      expect(head.status).toBe(304);
    },
  );

  it("an event patch changes that event's tag and the list's", async () => {
    const one = `/special-events/${event.eventId}`;
    const list = `/special-events?startDate=${day}&endDate=${day}`;
    const before = [
      (await museum.rest('GET', one)).headers.get('etag'),
      (await museum.rest('GET', list)).headers.get('etag'),
    ];
    const patched = await museum.rest('PATCH', one, { as: 'staff', body: { price: 31 } });
    expect(patched.status).toBe(200);
    const after = [
      (await museum.rest('GET', one)).headers.get('etag'),
      (await museum.rest('GET', list)).headers.get('etag'),
    ];
    expect(after[0]).not.toBe(before[0]);
    expect(after[1]).not.toBe(before[1]);
    expect((await museum.rest('GET', one, { headers: { 'if-none-match': before[0]! } })).status).toBe(200);
  });

  it("a list's tag changes with its total, even when its page does not", async () => {
    const list = `/special-events?startDate=${day}&endDate=${day}&limit=1`;
    const before = await museum.rest('GET', list);
    // Sorted after the first by name, so page 1 keeps its one item.
    await museum.rest('POST', '/special-events', {
      as: 'staff',
      body: eventBody({ name: 'Zz later', dates: [day] }),
    });
    const after = await museum.rest('GET', list);
    expect(after.text).toBe(before.text);
    expect(after.headers.get('x-total-count')).not.toBe(before.headers.get('x-total-count'));
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
  });

  it('GET /tickets/{ticketId}: validated too, and never stored (it admits its holder)', async () => {
    const bought = await museum.rest('POST', '/tickets', {
      body: { ticketType: 'general', ticketDate: upcomingOpenDay(2), email: 'todd@example.com' },
    });
    expect(bought.headers.get('etag')).toBeNull();
    expect(bought.headers.get('cache-control')).toBe('no-store');
    const read = await museum.rest('GET', `/tickets/${bought.body.ticketId}`);
    expect(read.headers.get('etag')).toMatch(STRONG_TAG);
    expect(read.headers.get('cache-control')).toBe('no-store');
    const again = await museum.rest('GET', `/tickets/${bought.body.ticketId}`, {
      headers: { 'if-none-match': read.headers.get('etag')! },
    });
    expect(again.status).toBe(304);
  });

  it('errors carry no validator', async () => {
    const missing = await museum.rest('GET', '/special-events/00000000-0000-4000-8000-000000000000', {
      headers: { 'if-none-match': '*' },
    });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('etag')).toBeNull();
    expect(missing.headers.get('cache-control')).toBe('no-store');
  });
});

describe('safe edits: If-Match', () => {
  const create = async () =>
    (await museum.rest('POST', '/special-events', { as: 'staff', body: eventBody({ dates: [day] }) })).body
      .eventId as string;
  const read = (id: string) => museum.rest('GET', `/special-events/${id}`);
  const UPDATE = `mutation($id: UUID!, $price: Float!, $ifMatch: String) {
    updateSpecialEvent(eventId: $id, input: { price: $price }, ifMatch: $ifMatch) { price version } }`;

  it("an event's ETag is its version, the same as GraphQL's version field, and changes with every change", async () => {
    const id = await create();
    const first = await read(id);
    expect(first.headers.get('etag')).toBe('"v1"');
    expect(first.body.version).toBeUndefined();
    const gql = await museum.graphql('query($id: UUID!) { specialEvent(eventId: $id) { version } }', { id });
    expect(gql.body.data.specialEvent.version).toBe('v1');
    const patched = await museum.rest('PATCH', `/special-events/${id}`, { as: 'staff', body: { price: 12 } });
    expect(patched.headers.get('etag')).toBe('"v2"');
    expect((await read(id)).headers.get('etag')).toBe('"v2"');
  });

  it('REST: a stale If-Match is 412 and changes nothing; the current tag or * goes ahead', async () => {
    const id = await create();
    const tag = (await read(id)).headers.get('etag')!;
    await museum.rest('PATCH', `/special-events/${id}`, { as: 'staff', body: { price: 20 } });
    const stale = await museum.rest('PATCH', `/special-events/${id}`, {
      as: 'staff',
      body: { price: 99 },
      headers: { 'if-match': tag },
    });
    expect(stale.status).toBe(412);
    expect(stale.headers.get('content-type')).toBe('application/problem+json');
    expect(stale.body).toMatchObject({ status: 412, title: 'Precondition failed' });
    expect((await read(id)).body.price).toBe(20);

    const current = (await read(id)).headers.get('etag')!;
    const ok = await museum.rest('PATCH', `/special-events/${id}`, {
      as: 'staff',
      body: { price: 21 },
      headers: { 'if-match': `"other", ${current}` },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.price).toBe(21);
    const any = await museum.rest('PATCH', `/special-events/${id}`, {
      as: 'staff',
      body: { price: 22 },
      headers: { 'if-match': '*' },
    });
    expect(any.status).toBe(200);
    // A weak tag never matches If-Match (strong comparison).
    const weak = await museum.rest('PATCH', `/special-events/${id}`, {
      as: 'staff',
      body: { price: 23 },
      headers: { 'if-match': `W/${any.headers.get('etag')}` },
    });
    expect(weak.status).toBe(412);

    const staleDelete = await museum.rest('DELETE', `/special-events/${id}`, {
      as: 'staff',
      headers: { 'if-match': tag },
    });
    expect(staleDelete.status).toBe(412);
    expect((await read(id)).status).toBe(200);
    const deleted = await museum.rest('DELETE', `/special-events/${id}`, {
      as: 'staff',
      headers: { 'if-match': (await read(id)).headers.get('etag')! },
    });
    expect(deleted.status).toBe(204);
    expect((await read(id)).status).toBe(404);
  });

  it('GraphQL: ifMatch with a stale version is PRECONDITION_FAILED and changes nothing', async () => {
    const id = await create();
    const stale = await museum.graphql(UPDATE, { id, price: 5, ifMatch: 'v7' }, { as: 'staff' });
    expect(stale.body.errors[0].extensions.code).toBe('PRECONDITION_FAILED');
    expect(stale.body.data).toBeNull();
    expect((await read(id)).body.price).toBe(30);
    const current = await museum.graphql(UPDATE, { id, price: 6, ifMatch: 'v1' }, { as: 'staff' });
    expect(current.body.data.updateSpecialEvent).toEqual({ price: 6, version: 'v2' });
    const none = await museum.graphql(UPDATE, { id, price: 7 }, { as: 'staff' });
    expect(none.body.data.updateSpecialEvent.version).toBe('v3');
    const staleDelete = await museum.graphql(
      'mutation($id: UUID!) { deleteSpecialEvent(eventId: $id, ifMatch: "v1") }',
      { id },
      { as: 'staff' },
    );
    expect(staleDelete.body.errors[0].extensions.code).toBe('PRECONDITION_FAILED');
  });

  it('two concurrent PATCHes with the same tag: exactly one wins', async () => {
    const id = await create();
    const tag = (await read(id)).headers.get('etag')!;
    const answers = await Promise.all(
      [41, 42, 43, 44].map((price) =>
        museum.rest('PATCH', `/special-events/${id}`, {
          as: 'staff',
          body: { price },
          headers: { 'if-match': tag },
        }),
      ),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([200, 412, 412, 412]);
    const winner = answers.find((answer) => answer.status === 200)!;
    const now = await read(id);
    expect(now.body.price).toBe(winner.body.price);
    expect(now.headers.get('etag')).toBe('"v2"');
  });
});
