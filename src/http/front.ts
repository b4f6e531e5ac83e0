import type { IncomingMessage, ServerResponse } from 'node:http';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { YogaServerInstance } from 'graphql-yoga';
import { ERROR_KINDS, type ErrorKind, type FieldIssue } from '../common/errors.ts';
import type { RequestContext } from '../context.ts';
import type { Database } from '../db/database.ts';
import type { Logger } from '../logger.ts';
import {
  BODY_LIMIT_BYTES,
  problem,
  type RestHandler,
  type RestRequest,
  type RestResponse,
} from '../rest/adapter.ts';
import { inSpan, tracing } from '../tracing.ts';
import { addressOf, clientAddress, type TrustedProxies } from './client-address.ts';
import type { CompiledGraphQL } from './compiled-graphql.ts';
import { addEdgeHeaders, isPageScript, preflight } from './edge-headers.ts';
import { frontPage } from './front-page.ts';
import { parseJsonBody } from './json-body.ts';
import { type Metrics, type Observation, observationOf } from './observe.ts';

export interface FrontOptions {
  yoga: YogaServerInstance<Record<string, unknown>, RequestContext>;
  graphqlEndpoint: string;
  rest: RestHandler;
  /** The compiled lane for remembered GraphQL queries (src/http/compiled-graphql.ts). */
  compiledGraphQL?: CompiledGraphQL;
  db: Database;
  isDraining: () => boolean;
  /** Paths yoga answers: GraphQL (and GraphiQL) and the documentation. */
  servedByYoga: (pathname: string) => boolean;
  corsOrigins: string[];
  trustProxy: TrustedProxies;
  /** Prometheus metrics, served at /metrics; absent when MUSEUM_METRICS=off. */
  metrics?: Metrics;
  logger: Logger;
}

/** What node's server context looks like to yoga, and what the tests hand `fetch` for a client address. */
export interface ServerContext {
  req?: { socket?: { remoteAddress?: string }; observation?: Observation; prepared?: RequestContext };
  observation?: Observation;
  /** The request's context when the compiled lane already made it (credentials are checked once). */
  prepared?: RequestContext;
}

export interface Front {
  /** The node:http request listener (behind src/http/listener.ts). */
  handleNode(req: IncomingMessage, res: ServerResponse): void;
  /** The same application through the fetch API, as the tests call it. */
  fetch(input: string | Request, init?: RequestInit, serverContext?: ServerContext): Promise<Response>;
}

const HEALTH_PATHS = new Set(['/health/live', '/health/ready']);
const METRICS_PATH = '/metrics';

/** Yoga is to answer; `json` and `bytes` are a GraphQL POST's body, already read and checked. */
interface ToYoga {
  yoga: true;
  json?: unknown;
  bytes?: Uint8Array;
  prepared?: RequestContext;
}

/** An edge refusal on /graphql: a GraphQL error with the kind's status and code. */
function graphqlRefusal(
  kind: ErrorKind,
  detail: string,
  issues: FieldIssue[] = [],
  headers: Record<string, string> = {},
): RestResponse {
  const { code, status } = ERROR_KINDS[kind];
  const extensions = kind === 'validation' ? { code, errors: issues } : { code };
  return {
    status,
    headers: { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', ...headers },
    body: JSON.stringify({ errors: [{ message: detail, extensions }] }),
  };
}

/**
 * The front door of every request. The REST routes, the health checks and unknown paths are answered here,
 * straight off node:http — no fetch Request or Response, no yoga request pipeline — while GraphQL and the
 * documentation go to yoga. Both transports (node:http, and fetch for the tests) share this one dispatch.
 */
export function createFront(options: FrontOptions): Front {
  const allowedOrigins = new Set(options.corsOrigins);
  const { yoga, rest, metrics, logger } = options;

  async function prometheus(method: string): Promise<RestResponse> {
    if (method !== 'GET' && method !== 'HEAD')
      return problem('methodNotAllowed', `${method} is not supported here; use GET`, [], {
        Allow: 'GET, HEAD',
      });
    return {
      status: 200,
      headers: { 'Content-Type': metrics!.registry.contentType, 'Cache-Control': 'no-store' },
      body: await metrics!.registry.metrics(),
    };
  }

  /** One line per request, and its metrics, once its answer is done (or the client has gone). */
  function finished(method: string, observation: Observation, status: number, started: number) {
    const seconds = (performance.now() - started) / 1000;
    metrics?.request(method, observation.route, status, seconds);
    logger.info('request', {
      method,
      route: observation.route,
      status,
      durationMs: Math.round(seconds * 10_000) / 10,
      requestId: observation.requestId,
      account: observation.account,
    });
  }

  /**
   * A 5xx problem names the request id, so an operator can find its log line; a 401 to a script of one of
   * this service's pages carries no Basic challenge (src/http/edge-headers.ts).
   */
  function finalAnswer(response: RestResponse, request: RestRequest): RestResponse {
    const { observation } = request;
    if (response.status === 401 && isPageScript(request.header)) delete response.headers['WWW-Authenticate'];
    response.headers['X-Request-Id'] = observation.requestId;
    if (response.status >= 500 && typeof response.body === 'string' && response.body.startsWith('{"type"'))
      response.body = JSON.stringify({ ...JSON.parse(response.body), requestId: observation.requestId });
    return response;
  }

  async function health(pathname: string, method: string): Promise<RestResponse> {
    if (method !== 'GET' && method !== 'HEAD')
      return problem('methodNotAllowed', `${method} is not supported here; use GET`, [], {
        Allow: 'GET, HEAD',
      });
    const ok: RestResponse = {
      status: 200,
      headers: { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' },
      body: '{"status":"ok"}',
    };
    if (pathname === '/health/live') return ok;
    if (options.isDraining()) return problem('unavailable', 'The service is shutting down');
    try {
      await options.db.fork().execute('select 1');
      return ok;
    } catch {
      return problem('unavailable', 'The database is unreachable', [], { 'Retry-After': '5' });
    }
  }

  /**
   * The answer for a request this front serves itself, or what yoga is to be handed: GraphQL (with its
   * JSON body already read and checked here) and the documentation.
   */
  async function answer(request: RestRequest): Promise<RestResponse | ToYoga> {
    const { pathname, method, observation } = request;
    const origin = request.header('origin');
    const corsPreflight = preflight(
      method,
      origin,
      request.header('access-control-request-method'),
      allowedOrigins,
    );
    if (corsPreflight) return { ...corsPreflight, body: null };
    if (options.servedByYoga(pathname)) {
      observation.route = pathname;
      if (method === 'OPTIONS') {
        const allow = pathname === options.graphqlEndpoint ? 'GET, POST, OPTIONS' : 'GET, HEAD, OPTIONS';
        return { status: 204, headers: { Allow: allow }, body: null };
      }
      if (method === 'POST' && pathname === options.graphqlEndpoint) return graphqlBody(request);
      return { yoga: true };
    }
    if (metrics && pathname === METRICS_PATH) {
      observation.route = pathname;
      return prometheus(method);
    }
    // Browsers ask for it on every page; there is none, and "no content" keeps their consoles clean.
    if (pathname === '/favicon.ico') {
      observation.route = pathname;
      return { status: 204, headers: { 'Cache-Control': 'public, max-age=86400' }, body: null };
    }
    if (pathname === '/') {
      observation.route = pathname;
      return method === 'OPTIONS'
        ? { status: 204, headers: { Allow: 'GET, HEAD, OPTIONS' }, body: null }
        : frontPage(method, request.header('accept'));
    }
    if (HEALTH_PATHS.has(pathname)) {
      observation.route = pathname;
      return method === 'OPTIONS'
        ? { status: 204, headers: { Allow: 'GET, HEAD, OPTIONS' }, body: null }
        : health(pathname, method);
    }
    return rest.handle(request);
  }

  /**
   * A GraphQL POST's body, read whole here: at most 64 KiB (413), JSON (415: a form or text/plain post, which
   * any web page may send across sites without a preflight, is refused), and strict JSON (400).
   */
  async function graphqlBody(request: RestRequest): Promise<RestResponse | ToYoga> {
    const mediaType = request.header('content-type')?.split(';')[0]?.trim().toLowerCase();
    if (mediaType !== 'application/json')
      return graphqlRefusal('unsupportedMediaType', 'A GraphQL request body must be application/json');
    const bytes = await request.body();
    if (bytes === null)
      return graphqlRefusal(
        'payloadTooLarge',
        `The request body is larger than ${BODY_LIMIT_BYTES / 1024} KiB`,
        [],
        {
          Connection: 'close',
        },
      );
    const parsed = parseJsonBody(bytes);
    if (!parsed.ok) return graphqlRefusal('validation', parsed.detail, [parsed.issue]);
    const lane = tracing.enabled ? undefined : options.compiledGraphQL;
    const outcome = lane ? await lane.run(request, parsed.value) : {};
    if ('answer' in outcome) return outcome.answer;
    return { yoga: true, json: parsed.value, bytes, prepared: outcome.context };
  }

  return {
    handleNode(req, res) {
      const target = req.url ?? '/';
      const queryAt = target.indexOf('?');
      const pathname = queryAt === -1 ? target : target.slice(0, queryAt);
      const headers = req.headers;
      const request: RestRequest = {
        method: req.method ?? 'GET',
        pathname,
        search: queryAt === -1 ? '' : target.slice(queryAt + 1),
        header: (name) => {
          const value = headers[name];
          return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
        },
        address: addressOf(req.socket.remoteAddress, headers['x-forwarded-for'], options.trustProxy),
        body: () => readNodeBody(req),
        observation: observationOf(firstValue(headers['x-request-id'])),
      };
      const { observation } = request;
      const started = performance.now();
      res.setHeader('X-Request-Id', observation.requestId);
      // A client that went away before any answer: 499, as proxies log it.
      const status = () => (res.headersSent ? res.statusCode : 499);
      res.once('close', () => finished(request.method, observation, status(), started));
      const dispatch = () =>
        answer(request).then(
          (response) => {
            if ('yoga' in response) {
              // Yoga writes its own answer; the edge headers go on first (a page may set its own CSP),
              // and a body read here is handed over parsed, so yoga neither reads nor parses it again.
              const edge = addEdgeHeaders({}, request.header('origin'), allowedOrigins);
              for (const name in edge) res.setHeader(name, edge[name]!);
              const handedOver = req as IncomingMessage & ServerContext['req'] & { body?: unknown };
              if (response.json !== undefined) handedOver.body = response.json;
              handedOver.observation = observation;
              handedOver.prepared = response.prepared;
              yoga(req, res);
              return;
            }
            addEdgeHeaders(response.headers, request.header('origin'), allowedOrigins);
            send(res, finalAnswer(response, request), request.method === 'HEAD');
          },
          (error) => {
            logger.error('request failed', { error: String(error), requestId: observation.requestId });
            if (!res.headersSent)
              send(res, finalAnswer(problem('internal', 'Internal server error'), request), false);
          },
        );
      if (!tracing.enabled) {
        void dispatch();
        return;
      }
      // The request's span lasts until its answer is done; the operation and SQL spans are its children.
      void inSpan(
        request.method,
        SpanKind.SERVER,
        {
          'http.request.method': request.method,
          'url.path': pathname,
          'url.scheme': 'http',
          'client.address': request.address,
          'user_agent.original': request.header('user-agent') ?? '',
        },
        (span) =>
          new Promise<void>((resolve) => {
            res.once('close', () => {
              span.updateName(`${request.method} ${observation.route}`);
              span.setAttributes({ 'http.route': observation.route, 'http.response.status_code': status() });
              if (status() >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
              resolve();
            });
            void dispatch();
          }),
      );
    },

    async fetch(input, init, serverContext = {}) {
      const fetchRequest = typeof input === 'string' ? new Request(input, init) : input;
      const url = new URL(fetchRequest.url);
      const request: RestRequest = {
        method: fetchRequest.method,
        pathname: url.pathname,
        search: url.search.slice(1),
        header: (name) => fetchRequest.headers.get(name),
        address: clientAddress(serverContext, fetchRequest, options.trustProxy),
        body: async () => {
          if (fetchRequest.body === null) return new Uint8Array();
          const declared = fetchRequest.headers.get('content-length');
          if (declared !== null && Number(declared) > BODY_LIMIT_BYTES) return null;
          return readLimited(fetchRequest.body, BODY_LIMIT_BYTES).catch(() => null);
        },
        observation: observationOf(fetchRequest.headers.get('x-request-id')),
      };
      const { observation } = request;
      const started = performance.now();
      const response = await answer(request);
      const origin = request.header('origin');
      if ('yoga' in response) {
        const forwarded = response.bytes
          ? new Request(fetchRequest.url, {
              method: fetchRequest.method,
              headers: fetchRequest.headers,
              body: response.bytes as Uint8Array<ArrayBuffer>,
            })
          : fetchRequest;
        const answered = await yoga.handleRequest(forwarded, {
          ...serverContext,
          observation,
          prepared: response.prepared,
        } as never);
        finished(request.method, observation, answered.status, started);
        const headers = new Headers(answered.headers);
        headers.set('X-Request-Id', observation.requestId);
        const edge = addEdgeHeaders({}, origin, allowedOrigins);
        for (const name in edge) {
          if (!headers.has(name)) headers.set(name, edge[name]!);
          else if (name === 'Vary') headers.append(name, edge[name]!);
        }
        return new Response(answered.body, { status: answered.status, headers });
      }
      addEdgeHeaders(response.headers, origin, allowedOrigins);
      finalAnswer(response, request);
      finished(request.method, observation, response.status, started);
      return new Response(request.method === 'HEAD' ? null : (response.body as BodyInit | null), {
        status: response.status,
        headers: response.headers,
      });
    },
  };
}

/** Reads a body stream to its end; null as soon as it passes `limit` (the rest is not read). */
export async function readLimited(
  body: ReadableStream<Uint8Array>,
  limit: number,
): Promise<Uint8Array | null> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

const firstValue = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/** The whole body of a node request, or null as soon as it passes BODY_LIMIT_BYTES (it is not read on). */
function readNodeBody(req: IncomingMessage): Promise<Uint8Array | null> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > BODY_LIMIT_BYTES) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > BODY_LIMIT_BYTES) {
        req.off('data', onData);
        req.pause();
        resolve(null);
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    req.once('error', reject);
    // A client that goes away mid-body: nobody is left to answer.
    req.once('aborted', () => reject(new Error('request aborted')));
  });
}

function send(res: ServerResponse, response: RestResponse, head: boolean) {
  const body = response.body;
  // 204 and 304 carry no Content-Length (RFC 9110 §8.6).
  if (response.status !== 204 && response.status !== 304) {
    const length = body === null ? 0 : typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
    response.headers['Content-Length'] = String(length);
  }
  res.writeHead(response.status, response.headers);
  res.end(head || body === null ? undefined : body);
}
