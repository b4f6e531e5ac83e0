// Query cost (issue 24): a nested list multiplies. A field with `limit` (or `ids`) multiplies what lies beneath
// it by that many, a list no argument bounds by the size its field declares; the pages a front-end asks for
// in one query stay within the limit, and the same query over pages of 30 within pages of 30 does not.
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../../src/graph/schema.ts';
import { measureQuery, QUERY_LIMITS } from '../../src/graphql/query-limits.ts';
import { useMuseum } from '../support/use-museum.ts';

const museum = useMuseum();

const cost = (query: string) => measureQuery(schema, parse(query)).cost;

describe('query cost counts list sizes', () => {
  it('multiplies by limit, by the default when it is left out, by the most allowed for a variable', () => {
    const page = (limit: string) => `query($n: Int) { specialEvents${limit} { name price } }`;
    expect(cost(page('(limit: 1)'))).toBe(2 + 1 * 2);
    expect(cost(page('(limit: 30)'))).toBe(2 + 30 * 2);
    expect(cost(page(''))).toBe(2 + 10 * 2);
    expect(cost(page('(limit: $n)'))).toBe(2 + 30 * 2);
    expect(cost('{ nodes(ids: ["a", "b", "c"]) { id } }')).toBe(2 + 3 * 1);
  });

  it('a nested list multiplies: days × events × dates', () => {
    const week = (days: number, events: number) =>
      `{ museumHours(limit: ${days}) { date events(limit: ${events}) { name availability { remaining } } } }`;
    expect(cost(week(1, 1))).toBe(2 + 1 + 2 + 1 + 2 + 10 * 1);
    expect(cost(week(7, 10))).toBe(2 + 7 * (1 + 2 + 10 * (1 + 2 + 10 * 1)));
    expect(cost(week(30, 30))).toBeGreaterThan(QUERY_LIMITS.cost);
  });

  it("a front-end's pages fit in one query each; pages of 30 of pages of 30 are refused before running", async () => {
    const pages = [
      '{ specialEventPage(limit: 30) { total items { id name location price availability { date capacity remaining } } } }',
      '{ me { tickets(limit: 30) { total items { id ticketDate status confirmationCode event { id name location } } } } }',
      '{ museumHours(limit: 7) { date timeOpen timeClose remaining events { id name availability { date remaining } } } }',
    ];
    for (const query of pages) {
      expect(cost(query), query).toBeLessThanOrEqual(QUERY_LIMITS.cost);
      const response = await museum.graphql(query, {}, { as: 'visitor' });
      expect(response.body.errors, query).toBeUndefined();
    }
    const refused = await museum.graphql(
      '{ museumHours(limit: 30) { events(limit: 30) { name availability { date remaining } } } }',
      {},
      { as: 'visitor' },
    );
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].extensions).toMatchObject({ code: 'QUERY_LIMIT_EXCEEDED', limit: 'cost' });
  });

  it('introspection is free, as before', () => {
    expect(cost('{ __schema { types { name fields { name type { name } } } } }')).toBe(0);
  });
});
