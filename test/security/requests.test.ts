// Attacks through the request itself: Host tricks, header floods, oversized and malformed bodies, JSON
// that two parsers would read differently, dates past the calendar, GraphQL bombs, cross-site requests,
// webhooks pointed inward, and a flood of the heaviest page. A legitimate client is served during and after each.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, spawnServerFor } from '../support/server.ts';
import { useMuseum } from '../support/use-museum.ts';
import { bodyOf, expectServed, portOf, raw, staff, statusOf } from './support.ts';

let server: RunningServer;
const museum = useMuseum();
beforeAll(async () => {
  server = await spawnServerFor(museum);
});
afterAll(async () => {
  await server?.stop();
});

const post = (path: string, body: string | Uint8Array<ArrayBuffer>, headers: Record<string, string> = {}) =>
  fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { authorization: staff, 'content-type': 'application/json', ...headers },
    body,
  });

describe('Host tricks', () => {
  // A Host that is no host: a 400 problem naming Host, no stack, and the server stays up.
  it.each(['[::1', '[', 'a b', 'x/graphql#', 'x/museum-hours?', 'user@host'])(
    'Host %j is refused',
    async (host) => {
      const answer = await raw(server, `GET /docs HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
      expect(statusOf(answer)).toBe(400);
      expect(answer).toMatch(/Content-Type: application\/problem\+json/i);
      expect(bodyOf(answer)).toMatchObject({ title: 'Validation failed', errors: [{ path: 'Host' }] });
      expect(answer).not.toMatch(/node_modules|at .*\.(ts|js)/);
      await expectServed(server);
    },
  );

  // The Host cannot move a request to another route: /docs stays /docs.
  it('cannot turn POST /docs into GraphQL', async () => {
    const body = '{"query":"{__typename}"}';
    const answer = await raw(
      server,
      `POST /docs HTTP/1.1\r\nHost: x/graphql#\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
    expect(answer).not.toContain('__typename');
    expect(statusOf(answer)).toBe(400);
  });

  // Ordinary hosts, with and without a port, and an absolute-form target, are served.
  it.each(['museum.example', '127.0.0.1:4000', '[::1]:4000'])('Host %j is served', async (host) => {
    const answer = await raw(
      server,
      `GET /health/live HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
    );
    expect(statusOf(answer)).toBe(200);
  });
});

describe('floods and oversized requests', () => {
  // Headers past 16 KiB: 431, before the application sees them.
  it('a header flood is refused with 431', async () => {
    const headers = Array.from({ length: 200 }, (_, i) => `X-Flood-${i}: ${'y'.repeat(100)}\r\n`).join('');
    const answer = await raw(
      server,
      `GET /health/live HTTP/1.1\r\nHost: a\r\n${headers}Connection: close\r\n\r\n`,
    );
    expect(statusOf(answer)).toBe(431);
    expect(answer).toMatch(/\r\ncontent-type: application\/problem\+json\r\n/i);
    expect(bodyOf(answer)).toMatchObject({ status: 431, title: 'Request Header Fields Too Large' });
    await expectServed(server);
  });

  // A 10 MB Content-Length is refused before a byte of the body is read.
  it('a body announced past 64 KiB is 413 at once', async () => {
    const answer = await raw(
      server,
      `POST /tickets HTTP/1.1\r\nHost: a\r\nAuthorization: ${staff}\r\nContent-Type: application/json\r\nContent-Length: 10000000\r\n\r\n{`,
    );
    expect(statusOf(answer)).toBe(413);
    await expectServed(server);
  });

  // Truncated JSON, a list, a number: 400, never 5xx.
  it.each(['{"ticketType":', '[]', '42', '', '{"a":1}}'])('body %j is a 400', async (body) => {
    const response = await post('/tickets', body);
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
  });
});

describe('JSON that two parsers would read differently', () => {
  // Bytes that are not UTF-8 inside a string: refused, not stored as U+FFFD.
  it('invalid UTF-8 is a 400', async () => {
    const bytes = Buffer.concat([
      Buffer.from('{"ticketType":"general","ticketDate":"2031-01-06","email":"a'),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('@example.com"}'),
    ]);
    for (const path of ['/tickets', '/graphql']) {
      const response = await post(path, bytes);
      expect(response.status, path).toBe(400);
    }
  });

  // A key given twice: refused, naming it (JSON.parse would silently keep the last).
  it('a duplicate key is a 400 naming it, on REST and on GraphQL', async () => {
    const rest = await post(
      '/tickets',
      '{"ticketType":"general","ticketType":"event","ticketDate":"2031-01-06","email":"a@example.com"}',
    );
    expect(rest.status).toBe(400);
    expect(((await rest.json()) as { errors: { path: string }[] }).errors[0]!.path).toBe('ticketType');
    const graphql = await post(
      '/graphql',
      '{"query":"query($d: Date) { museumHours(startDate: $d) { date } }","variables":{"d":"2031-01-06","d":"2031-01-07"}}',
    );
    expect(graphql.status).toBe(400);
    const error = (
      (await graphql.json()) as { errors: { extensions: { code: string; errors: { path: string }[] } }[] }
    ).errors[0]!;
    expect(error.extensions.code).toBe('BAD_USER_INPUT');
    expect(error.extensions.errors[0]!.path).toBe('variables.d');
  });
});

describe('dates at the end of the calendar', () => {
  // Lists near 9999-12-31 stop there; a five-digit year is refused.
  it('never answers a date past 9999-12-31, and refuses one', async () => {
    for (const path of [
      '/special-events?startDate=9999-12-30',
      '/museum-hours?startDate=9999-12-28&limit=30',
    ]) {
      const response = await fetch(`${server.url}${path}`, { headers: { authorization: staff } });
      expect(response.status, path).toBe(200);
      expect(await response.text()).not.toContain('10000');
    }
    const refused = await fetch(`${server.url}/museum-hours?startDate=10000-01-01`, {
      headers: { authorization: staff },
    });
    expect(refused.status).toBe(400);
  });
});

describe('GraphQL bombs', () => {
  const graphql = (query: string) => post('/graphql', JSON.stringify({ query }));

  // Depth, aliases and cost past their limits: refused before running, with their code.
  it('deep, wide and costly queries are refused', async () => {
    const deep = `{ __type(name: "Query") { ${'fields { type { '.repeat(8)} name ${'} } '.repeat(8)} } }`;
    const aliases = `{ ${Array.from({ length: 50 }, (_, i) => `a${i}: me { name }`).join(' ')} }`;
    const costly = `{ ${'specialEvents { eventId name location eventDescription dates price capacity } '.repeat(190)} }`;
    const tokens = `{ ${'__typename '.repeat(3000)} }`;
    for (const [name, query] of [
      ['depth', deep],
      ['aliases', aliases],
      ['cost', costly],
      ['tokens', tokens],
    ] as const) {
      const response = await graphql(query);
      expect(response.status, name).toBe(400);
      const body = (await response.json()) as { errors: { extensions: { code: string } }[] };
      expect(body.errors[0]!.extensions.code, name).toBe('QUERY_LIMIT_EXCEEDED');
    }
    await expectServed(server);
  });
});

describe('cross-site requests', () => {
  // Bodies a web page can send across sites without a preflight: refused.
  it('text/plain and form posts are 415, and a foreign Origin gets no CORS headers', async () => {
    const graphql = await post('/graphql', '{"query":"mutation { deleteAccount(name: \\"x\\") }"}', {
      'content-type': 'text/plain',
    });
    expect(graphql.status).toBe(415);
    const form = await post('/tickets', 'ticketType=general', {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(form.status).toBe(415);
    const foreign = await fetch(`${server.url}/museum-hours`, {
      headers: { authorization: staff, origin: 'https://evil.example' },
    });
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('tickets are kept by no cache', () => {
  it('a purchase, a ticket and its QR code are no-store', async () => {
    const hours = (await (
      await fetch(`${server.url}/museum-hours?limit=1`, { headers: { authorization: staff } })
    ).json()) as { date: string }[];
    const bought = await post(
      '/tickets',
      JSON.stringify({ ticketType: 'general', ticketDate: hours[0]!.date, email: 'a@example.com' }),
    );
    expect(bought.status).toBe(201);
    expect(bought.headers.get('cache-control')).toBe('no-store');
    const { ticketId } = (await bought.json()) as { ticketId: string };
    for (const path of [`/tickets/${ticketId}`, `/tickets/${ticketId}/qr`]) {
      const read = await fetch(`${server.url}${path}`, { headers: { authorization: staff } });
      expect(read.status, path).toBe(200);
      expect(read.headers.get('cache-control'), path).toBe('no-store');
    }
  });
});

describe('webhooks pointed inward (SSRF)', () => {
  it('a subscription to this machine, a private network or the metadata service is refused, naming url', async () => {
    for (const url of [
      `https://127.0.0.1:${portOf(server)}/health/live`,
      'https://localhost/',
      'https://169.254.169.254/latest/meta-data/',
      'https://[::ffff:10.0.0.1]/',
      `http://127.0.0.1:${portOf(server)}/`,
    ]) {
      const refused = await post('/webhook-subscriptions', JSON.stringify({ url }));
      expect(refused.status, url).toBe(400);
      expect(((await refused.json()) as { errors: { path: string }[] }).errors, url).toEqual([
        { path: 'url', message: expect.any(String) },
      ]);
    }
    const list = await fetch(`${server.url}/webhook-subscriptions`, { headers: { authorization: staff } });
    expect(await list.json()).toEqual([]);
    await expectServed(server);
  });
});

describe('the heaviest page, fetched over and over', () => {
  // GraphiQL (a small page whose 1.3 MB script is a hashed file): compressed once, cached, 304 on revalidation; 30 fetches at once (just under the
  // per-client cap of 32) do not stall the server.
  it('is compressed, cacheable and revalidated, and 30 fetches at once leave health answering', async () => {
    const page = await fetch(`${server.url}/graphql`, {
      headers: { accept: 'text/html', 'accept-encoding': 'gzip, br' },
    });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-encoding')).toMatch(/^(br|gzip)$/);
    expect(Number(page.headers.get('content-length'))).toBeLessThan(3 * 1024 * 1024);
    expect(page.headers.get('cache-control')).toMatch(/public, max-age=\d+/);
    const etag = page.headers.get('etag')!;
    expect(etag).toMatch(/^"[^"]+"$/);
    await page.arrayBuffer();
    const again = await fetch(`${server.url}/graphql`, {
      headers: { accept: 'text/html', 'accept-encoding': 'gzip, br', 'if-none-match': etag },
    });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');

    const flood = Array.from({ length: 30 }, () =>
      fetch(`${server.url}/graphql`, { headers: { accept: 'text/html', 'accept-encoding': 'gzip' } }).then(
        (r) => r.arrayBuffer(),
      ),
    );
    expect((await fetch(`${server.url}/health/live`)).status).toBe(200);
    await Promise.all(flood);
    await expectServed(server);

    const docs = await fetch(`${server.url}/docs/assets/scalar-standalone.js`, {
      headers: { 'accept-encoding': 'br' },
    });
    expect(docs.headers.get('content-encoding')).toBe('br');
    const docsAgain = await fetch(`${server.url}/docs/assets/scalar-standalone.js`, {
      headers: { 'accept-encoding': 'br', 'if-none-match': docs.headers.get('etag')! },
    });
    expect(docsAgain.status).toBe(304);
  });
});
