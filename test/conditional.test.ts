// Conditional requests (issue 14): every read carries a strong ETag derived from its representation, and
// If-None-Match answers 304 without a body.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../src/common/dates.ts';
import { eventBody, startMuseum, type TestMuseum, todayUtc, upcomingOpenDay } from './support/museum.ts';

let museum: TestMuseum;
let event: { eventId: string; dates: string[] };
// Dates of their own, far ahead, so no other event falls into this file's lists.
const day = addDays(todayUtc(), 4000);

beforeAll(async () => {
  museum = await startMuseum();
  event = (await museum.rest('POST', '/special-events', { as: 'staff', body: eventBody({ dates: [day] }) }))
    .body;
});
afterAll(() => museum?.close());

const STRONG_TAG = /^"[A-Za-z0-9_-]{27}"$/;

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
