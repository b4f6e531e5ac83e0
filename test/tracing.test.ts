// Tracing (issue 12): with OTEL_EXPORTER_OTLP_ENDPOINT set, the server exports OTLP/HTTP JSON spans for the
// HTTP request, the GraphQL operation and each SQL statement, nested, with the standard attributes. A
// receiver on 127.0.0.1 stands in for the collector.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, STAFF, startMuseum, type TestMuseum } from './support/museum.ts';
import { type RunningServer, spawnServerFor } from './support/server.ts';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: Record<string, unknown> }[];
  status?: { code?: number };
  events?: { name: string; attributes: { key: string; value: Record<string, unknown> }[] }[];
}

/** An attribute's value, of a span or of one of its events. */
const attribute = (holder: Pick<OtlpSpan, 'attributes'>, key: string) => {
  const value = holder.attributes.find((a) => a.key === key)?.value;
  return value ? Object.values(value)[0] : undefined;
};

describe('with OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  let museum: TestMuseum;
  let server: RunningServer;
  let collector: Server;
  const spans: OtlpSpan[] = [];

  beforeAll(async () => {
    collector = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => {
        body += chunk;
      });
      req.on('end', () => {
        if (req.url === '/v1/traces') {
          const exported = JSON.parse(body) as {
            resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[];
          };
          for (const resource of exported.resourceSpans)
            for (const scope of resource.scopeSpans) spans.push(...scope.spans);
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    const { port } = collector.address() as { port: number };
    museum = await startMuseum();
    server = await spawnServerFor(museum, { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` });
  });
  afterAll(async () => {
    await server?.stop();
    await museum?.close();
    collector?.close();
  });

  it('exports the request, its operation and its SQL statements as one trace', async () => {
    const response = await fetch(`${server.url}/museum-hours?limit=2`, {
      headers: { authorization: basic(STAFF.name, STAFF.password) },
    });
    expect(response.status).toBe(200);
    const deadline = Date.now() + 10_000;
    const request = () => spans.find((s) => s.name === 'GET /museum-hours');
    while (!request() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));

    const http = request()!;
    expect(http, JSON.stringify(spans.map((s) => s.name))).toBeDefined();
    expect(http.kind).toBe(2); // SERVER
    expect(attribute(http, 'http.request.method')).toBe('GET');
    expect(attribute(http, 'http.route')).toBe('/museum-hours');
    expect(Number(attribute(http, 'http.response.status_code'))).toBe(200);

    const operation = spans.find((s) => s.name === 'query.getMuseumHours' && s.traceId === http.traceId)!;
    expect(operation).toBeDefined();
    expect(operation.parentSpanId).toBe(http.spanId);
    expect(operation.kind).toBe(1); // INTERNAL
    expect(attribute(operation, 'graphql.execute.operationName')).toBe('getMuseumHours');
    expect(attribute(operation, 'graphql.execute.operationType')).toBe('query');

    // The operation's own statement (the password check's statements belong to the request itself).
    const statements = spans.filter(
      (s) => s.parentSpanId === operation.spanId && attribute(s, 'db.system.name'),
    );
    expect(statements).toHaveLength(1);
    expect(statements[0]!.kind).toBe(3); // CLIENT
    expect(statements[0]!.name).toBe('hours_of_horizon');
    expect(attribute(statements[0]!, 'db.operation.name')).toBe('SELECT');
    expect(String(attribute(statements[0]!, 'db.query.text'))).toMatch(/from weekly_hours/);
  });

  it('marks an operation span whose result has errors, recording them as the client sees them', async () => {
    const response = await fetch(`${server.url}/museum-hours?limit=31`, {
      headers: { authorization: basic(STAFF.name, STAFF.password) },
    });
    expect(response.status).toBe(400);
    const refused = () =>
      spans.find((s) => s.name === 'query.getMuseumHours' && s.status?.code === 2 /* ERROR */);
    const deadline = Date.now() + 10_000;
    while (!refused() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
    const span = refused()!;
    expect(span, JSON.stringify(spans.map((s) => [s.name, s.status]))).toBeDefined();
    const recorded = span.events?.find((event) => event.name === 'exception');
    expect(JSON.parse(String(attribute(recorded!, 'exception.message')))).toEqual([
      expect.objectContaining({ message: expect.stringContaining('limit: must be an integer from 1 to 30') }),
    ]);
  });

  it('exports an operation span for a subscription and for a @defer query, as for every operation', async () => {
    const headers = {
      authorization: basic(STAFF.name, STAFF.password),
      'content-type': 'application/json',
    };
    const listening = new AbortController();
    const live = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      signal: listening.signal,
      headers: { ...headers, accept: 'text/event-stream' },
      body: JSON.stringify({ query: 'subscription TracedLive { specialEventPublished { eventId } }' }),
    });
    expect(live.status).toBe(200);
    const deferred = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { ...headers, accept: 'multipart/mixed' },
      body: JSON.stringify({ query: 'query TracedDefer { me { name ... @defer { role } } }' }),
    });
    expect(deferred.headers.get('content-type')).toMatch(/^multipart\/mixed/);
    expect(await deferred.text()).toContain('"role":"staff"');
    listening.abort();

    const named = (name: string) => spans.find((s) => s.name === name);
    const deadline = Date.now() + 10_000;
    while (!(named('subscription.TracedLive') && named('query.TracedDefer')) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 200));
    const subscription = named('subscription.TracedLive')!;
    expect(subscription, JSON.stringify(spans.map((s) => s.name))).toBeDefined();
    expect(attribute(subscription, 'graphql.execute.operationType')).toBe('subscription');
    expect(attribute(subscription, 'graphql.execute.operationName')).toBe('TracedLive');
    const query = named('query.TracedDefer')!;
    expect(query).toBeDefined();
    expect(spans.find((s) => s.spanId === query.parentSpanId)?.name).toBe('POST /graphql');
  });
});
