import { describe, expect, it } from 'vitest';
import { addDays, isoWeekday } from '../../src/common/dates.ts';
import { HOURS_QUERY } from '../support/documents.ts';
import { todayUtc, upcoming } from '../support/museum.ts';
import { useMuseum } from '../support/use-museum.ts';

const museum = useMuseum();

describe('GET /museum-hours', () => {
  it('lists open days only, ascending, from today by default, with the regular schedule', async () => {
    const { status, body, headers } = await museum.rest('GET', '/museum-hours');
    expect(status).toBe(200);
    expect(headers.get('content-type')).toMatch(/^application\/json/);
    expect(body).toHaveLength(10);
    expect(body[0].date >= todayUtc()).toBe(true);
    for (const [index, day] of body.entries()) {
      const weekday = isoWeekday(day.date);
      expect(weekday).toBeLessThanOrEqual(5);
      expect(day).toEqual(
        weekday === 5
          ? { date: day.date, timeOpen: '10:00', timeClose: '16:00' }
          : { date: day.date, timeOpen: '09:00', timeClose: '18:00' },
      );
      if (index > 0) expect(day.date > body[index - 1].date).toBe(true);
    }
  });

  it('starts at startDate and skips the weekend', async () => {
    const friday = upcoming([5]);
    const { body } = await museum.rest('GET', `/museum-hours?startDate=${friday}&limit=2`);
    expect(body).toEqual([
      { date: friday, timeOpen: '10:00', timeClose: '16:00' },
      { date: addDays(friday, 3), timeOpen: '09:00', timeClose: '18:00' },
    ]);
  });

  it('answers GraphQL with the same data as REST', async () => {
    const start = upcoming([1]);
    const rest = await museum.rest('GET', `/museum-hours?startDate=${start}&page=2&limit=7`);
    const gql = await museum.graphql(HOURS_QUERY, { startDate: start, page: 2, limit: 7 });
    expect(gql.status).toBe(200);
    expect(gql.body.data.museumHours).toEqual(rest.body);
    expect(rest.body).toHaveLength(7);
  });

  it('pages: limit 30 is the most, pages follow on, and a page past the end is empty', async () => {
    const start = upcoming([1]);
    const all = await museum.rest('GET', `/museum-hours?startDate=${start}&limit=30`);
    expect(all.status).toBe(200);
    expect(all.body).toHaveLength(30);
    const second = await museum.rest('GET', `/museum-hours?startDate=${start}&limit=15&page=2`);
    expect(second.body).toEqual(all.body.slice(15, 30));
    const past = await museum.rest('GET', `/museum-hours?startDate=${start}&limit=30&page=1000`);
    expect(past.status).toBe(200);
    expect(past.body).toEqual([]);
  });

  it('ends with the last date a YYYY-MM-DD string can name', async () => {
    // 9999-12-27 is a Monday: the week's open days up to 9999-12-31, a Friday, and nothing after it.
    const { status, body } = await museum.rest('GET', '/museum-hours?startDate=9999-12-27&limit=30');
    expect(status).toBe(200);
    expect(body.map((day: { date: string }) => day.date)).toEqual([
      '9999-12-27',
      '9999-12-28',
      '9999-12-29',
      '9999-12-30',
      '9999-12-31',
    ]);
    const leapDay = await museum.rest('GET', '/museum-hours?startDate=2028-02-28&limit=2');
    expect(leapDay.body.map((day: { date: string }) => day.date)).toEqual(['2028-02-28', '2028-02-29']);
  });

  it('links the first, previous and next pages (RFC 8288)', async () => {
    const start = upcoming([1]);
    const { headers } = await museum.rest('GET', `/museum-hours?startDate=${start}&page=2&limit=5`);
    expect(headers.get('link')).toBe(
      [
        `</museum-hours?startDate=${start}&page=1&limit=5>; rel="first"`,
        `</museum-hours?startDate=${start}&page=1&limit=5>; rel="prev"`,
        `</museum-hours?startDate=${start}&page=3&limit=5>; rel="next"`,
      ].join(', '),
    );
    const busted = await museum.rest(
      'GET',
      `/museum-hours?_=${'x'.repeat(2000)}&startDate=${start}&page=2&limit=5`,
    );
    expect(busted.headers.get('link')).toBe(headers.get('link'));
    const past = await museum.rest('GET', `/museum-hours?startDate=${start}&page=1000&limit=5`);
    expect(past.headers.get('link')).not.toContain('rel="next"');
    expect(past.headers.get('x-total-count')).toBeNull();
  });

  it.each([
    ['limit=31', 'limit'],
    ['limit=0', 'limit'],
    ['limit=-1', 'limit'],
    ['limit=abc', 'limit'],
    ['limit=1.5', 'limit'],
    ['page=0', 'page'],
    ['page=x', 'page'],
    ['page=99999999999', 'page'],
    ['startDate=2023-02-30', 'startDate'],
    ['startDate=tomorrow', 'startDate'],
    ['startDate=2024-1-01', 'startDate'],
    ['page=1&page=2', 'page'],
  ])('rejects %s with 400 naming %s', async (query, field) => {
    const { status, body, headers } = await museum.rest('GET', `/museum-hours?${query}`);
    expect(status).toBe(400);
    expect(headers.get('content-type')).toBe('application/problem+json');
    expect(body).toMatchObject({ title: 'Validation failed', status: 400 });
    expect(body.errors.map((e: { path: string }) => e.path)).toContain(field);
  });

  it('rejects bad GraphQL arguments with BAD_USER_INPUT naming the argument', async () => {
    const { body } = await museum.graphql(HOURS_QUERY, { limit: 31, page: 0 });
    expect(body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(body.errors[0].extensions.errors.map((e: { path: string }) => e.path).sort()).toEqual([
      'limit',
      'page',
    ]);
    const literal = await museum.graphql('{ museumHours(startDate: "2023-02-30") { date } }');
    expect(literal.body.errors[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      errors: [{ path: 'startDate' }],
    });
  });

  it('needs credentials', async () => {
    const { status, headers, body } = await museum.rest('GET', '/museum-hours', { as: 'anonymous' });
    expect(status).toBe(401);
    expect(headers.get('www-authenticate')).toBe('Basic realm="Museum API", charset="UTF-8"');
    expect(body.title).toBe('Unauthorized');
    const gql = await museum.graphql(HOURS_QUERY, {}, { as: 'anonymous' });
    expect(gql.status).toBe(401);
    expect(gql.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });
});
