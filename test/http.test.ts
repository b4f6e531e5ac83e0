import { describe, expect, it } from 'vitest';
import { expectProblem } from './support/assertions.ts';
import { basic, eventBody, STAFF } from './support/museum.ts';
import { useMuseum } from './support/use-museum.ts';

const museum = useMuseum();

describe('health', () => {
  it('is open: live and ready answer 200 without credentials', async () => {
    expect((await museum.request('GET', '/health/live')).body).toEqual({ status: 'ok' });
    const ready = await museum.request('GET', '/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ok' });
  });
});

describe('the front door, GET /', () => {
  it('shows a browser a page linking the reference, GraphiQL, the OpenAPI document and the health checks', async () => {
    const page = await museum.request('GET', '/', {
      headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
    });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toMatch(/^default-src 'none'; style-src 'sha256-/);
    for (const href of ['/docs', '/graphql', '/openapi.json', '/health/live', '/health/ready'])
      expect(page.text).toContain(`<a href="${href}">`);
    expect(page.text).not.toMatch(/<script/);
  });

  it('gives a client that asks for JSON (or anything) the same links as JSON', async () => {
    for (const accept of ['application/json', '*/*', undefined]) {
      const links = await museum.request('GET', '/', { headers: accept ? { accept } : {} });
      expect(links.status).toBe(200);
      expect(links.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(links.body.links.docs).toEqual({ href: '/docs', title: expect.any(String) });
      expect(Object.values(links.body.links).map((link: any) => link.href)).toEqual([
        '/docs',
        '/graphql',
        '/openapi.json',
        '/health/live',
        '/health/ready',
      ]);
    }
    expect((await museum.request('HEAD', '/')).status).toBe(200);
    const post = await museum.request('POST', '/', { body: {} });
    expectProblem(post, 405, 'Method not allowed');
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });
});

describe('HTTP edges', () => {
  it('answers an unknown path with 404 problem+json', async () => {
    expectProblem(await museum.rest('GET', '/no-such-thing'), 404, 'Not found');
    expectProblem(await museum.rest('GET', '/special-events/x/y'), 404, 'Not found');
  });

  it('answers a known path with another method with 405 and Allow', async () => {
    const response = await museum.rest('PUT', '/museum-hours');
    expectProblem(response, 405, 'Method not allowed');
    expect(response.headers.get('allow')).toBe('GET');
    const tickets = await museum.rest('PUT', '/tickets');
    expectProblem(tickets, 405, 'Method not allowed');
    expect(tickets.headers.get('allow')).toBe('GET, POST');
    expect((await museum.rest('DELETE', '/special-events')).headers.get('allow')).toBe('GET, POST');
  });

  it('rejects malformed JSON with 400 "Validation failed"', async () => {
    const response = await museum.rest('POST', '/special-events', {
      as: 'staff',
      rawBody: '{"name": ',
      headers: { 'content-type': 'application/json' },
    });
    expectProblem(response, 400, 'Validation failed');
    expect(response.body.errors).toEqual([{ path: '', message: 'must be valid JSON' }]);
  });

  it('rejects a body that is not JSON with 415', async () => {
    const response = await museum.rest('POST', '/tickets', {
      rawBody: 'ticketType=general',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expectProblem(response, 415, 'Unsupported media type');
  });

  it('accepts application/json with a charset parameter', async () => {
    const response = await museum.rest('POST', '/special-events', {
      as: 'staff',
      rawBody: JSON.stringify(eventBody()),
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(response.status).toBe(201);
  });
});

describe('authentication (C2)', () => {
  const challenge = 'Basic realm="Museum API", charset="UTF-8"';

  it.each([
    ['no credentials', undefined],
    ['a wrong password', basic(STAFF.name, 'wrong')],
    ['an unknown account', basic('nobody', 'whatever')],
    ['a garbled header', 'Basic %%%'],
    ['another scheme', 'Bearer abc.def'],
    ['credentials without a colon', `Basic ${Buffer.from('curator').toString('base64')}`],
  ])('answers %s with 401 and the Basic challenge, REST and GraphQL', async (_label, authorization) => {
    const as = authorization ? { authorization } : 'anonymous';
    const rest = await museum.rest('GET', '/special-events', { as });
    expectProblem(rest, 401, 'Unauthorized');
    expect(rest.headers.get('www-authenticate')).toBe(challenge);
    const gql = await museum.graphql('{ specialEvents { eventId } }', {}, { as });
    expect(gql.status).toBe(401);
    expect(gql.headers.get('www-authenticate')).toBe(challenge);
    expect(gql.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    expect(gql.body.data).toBeUndefined();
  });

  it('sends no Basic challenge to a script of its own pages, so a browser shows no credentials dialog', async () => {
    const pageScript = {
      'sec-fetch-site': 'same-origin',
      'sec-fetch-dest': 'empty',
      'sec-fetch-mode': 'cors',
    };
    for (const authorization of [undefined, basic(STAFF.name, 'wrong')]) {
      const as = authorization ? { authorization } : 'anonymous';
      const rest = await museum.rest('GET', '/special-events', { as, headers: pageScript });
      expectProblem(rest, 401, 'Unauthorized');
      expect(rest.headers.get('www-authenticate')).toBeNull();
      const gql = await museum.request('POST', '/graphql', {
        as,
        body: { query: '{ specialEvents { eventId } }' },
        headers: pageScript,
      });
      expect(gql.status).toBe(401);
      expect(gql.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
      expect(gql.headers.get('www-authenticate')).toBeNull();
    }
    // A page of another site, or a browser opening the URL itself, still gets the challenge.
    for (const headers of [
      { ...pageScript, 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'none', 'sec-fetch-dest': 'document', 'sec-fetch-mode': 'navigate' },
    ]) {
      const rest = await museum.rest('GET', '/special-events', { as: 'anonymous', headers });
      expect(rest.headers.get('www-authenticate')).toBe(challenge);
    }
  });

  it('checks credentials before input, so an anonymous caller learns nothing about it', async () => {
    const rest = await museum.rest('GET', '/special-events/not-a-uuid', { as: 'anonymous' });
    expect(rest.status).toBe(401);
    const body = await museum.rest('POST', '/special-events', { as: 'anonymous', body: { nonsense: true } });
    expect(body.status).toBe(401);
  });

  it('answers a visitor on a staff operation with 403, before looking at the input', async () => {
    const rest = await museum.rest('POST', '/special-events', { as: 'visitor', body: { name: '' } });
    expectProblem(rest, 403, 'Forbidden');
    const gql = await museum.graphql(
      'mutation($input: CreateSpecialEventInput!) { createSpecialEvent(input: $input) { eventId } }',
      { input: { ...eventBody(), name: '' } },
    );
    expect(gql.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });

  it('lets anyone load the schema by introspection, for GraphiQL', async () => {
    const response = await museum.graphql('{ __schema { queryType { name } } }', {}, { as: 'anonymous' });
    expect(response.status).toBe(200);
    expect(response.body.data.__schema.queryType.name).toBe('Query');
  });

  it('serves the GraphiQL page without credentials', async () => {
    const response = await museum.request('GET', '/graphql', { headers: { accept: 'text/html' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/text\/html/);
    expect(response.text).toContain('GraphiQL');
  });
});

describe('errors never leak internals', () => {
  it('answers a GraphQL syntax error as a client error (400 for graphql-response+json clients)', async () => {
    const response = await museum.request('POST', '/graphql', {
      as: 'visitor',
      body: { query: '{ museumHours( }' },
      headers: { accept: 'application/graphql-response+json' },
    });
    expect(response.status).toBe(400);
    expect(response.body.errors[0].message).toMatch(/Syntax Error/);
    expect(response.body.errors[0].extensions.code).toBe('GRAPHQL_PARSE_FAILED');
  });
});
