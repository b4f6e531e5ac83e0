// GraphQL over HTTP as its audit suite sees it: graphql-http's serverAudits (the spec's MUST and SHOULD
// clauses) against a started server, through src/http/graphql-endpoint.ts and the one operation runner.
import { serverAudits } from 'graphql-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, STAFF, startMuseum, type TestMuseum } from './support/museum.ts';
import { type RunningServer, spawnServerFor } from './support/server.ts';

let museum: TestMuseum;
let server: RunningServer;

beforeAll(async () => {
  museum = await startMuseum();
  server = await spawnServerFor(museum);
});
afterAll(async () => {
  await server?.stop();
  await museum?.close();
});

describe("graphql-http's server audits", () => {
  it('pass every MUST and SHOULD clause of GraphQL over HTTP', async () => {
    const audits = serverAudits({
      url: `${server.url}/graphql`,
      // Every operation needs credentials of an account (C2); the audits send their requests as staff.
      fetchFn: (input: RequestInfo | URL, init?: RequestInit) => {
        const headers = new Headers(init?.headers);
        headers.set('authorization', basic(STAFF.name, STAFF.password));
        return fetch(input, { ...init, headers });
      },
    });
    const failed: string[] = [];
    for (const audit of audits) {
      const result = await audit.fn();
      if (result.status !== 'ok') failed.push(`${audit.name}: ${result.reason}`);
    }
    expect(audits.length).toBeGreaterThan(30);
    expect(failed).toEqual([]);
  });
});
