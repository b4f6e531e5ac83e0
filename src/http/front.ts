import type { IncomingMessage, ServerResponse } from 'node:http';
import type { YogaServerInstance } from 'graphql-yoga';
import type { RequestContext } from '../context.ts';
import type { Database } from '../db/database.ts';
import { addressOf, clientAddress } from './client-address.ts';
import { addEdgeHeaders, preflight } from './edge-headers.ts';
import { BODY_LIMIT_BYTES, problem, type RestHandler, type RestRequest, type RestResponse } from './rest.ts';
import { readLimited } from './use-edges.ts';

export interface FrontOptions {
  yoga: YogaServerInstance<Record<string, unknown>, RequestContext>;
  rest: RestHandler;
  db: Database;
  isDraining: () => boolean;
  /** Paths yoga answers: GraphQL (and GraphiQL) and the documentation. */
  servedByYoga: (pathname: string) => boolean;
  corsOrigins: string[];
  trustProxy: boolean;
}

/** What node's server context looks like to yoga, and what the tests hand `fetch` for a client address. */
interface ServerContext {
  req?: { socket?: { remoteAddress?: string } };
}

export interface Front {
  /** The node:http request listener (behind src/http/listener.ts). */
  handleNode(req: IncomingMessage, res: ServerResponse): void;
  /** The same application through the fetch API, as the tests call it. */
  fetch(input: string | Request, init?: RequestInit, serverContext?: ServerContext): Promise<Response>;
}

const HEALTH_PATHS = new Set(['/health/live', '/health/ready']);

/**
 * The front door of every request. The REST routes, the health checks and unknown paths are answered here,
 * straight off node:http — no fetch Request or Response, no yoga request pipeline — while GraphQL and the
 * documentation go to yoga. Both transports (node:http, and fetch for the tests) share this one dispatch.
 */
export function createFront(options: FrontOptions): Front {
  const allowedOrigins = new Set(options.corsOrigins);
  const { yoga, rest } = options;

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

  /** The answer for a path this front serves itself; null for yoga's paths. */
  async function answer(request: RestRequest, origin: string | null, corsMethod: string | null) {
    const { pathname, method } = request;
    if (options.servedByYoga(pathname)) return null;
    const corsPreflight = preflight(method, origin, corsMethod, allowedOrigins);
    let response: RestResponse;
    if (corsPreflight) response = { ...corsPreflight, body: null };
    else if (HEALTH_PATHS.has(pathname)) {
      response =
        method === 'OPTIONS'
          ? { status: 204, headers: { Allow: 'GET, HEAD, OPTIONS' }, body: null }
          : await health(pathname, method);
    } else response = await rest.handle(request);
    addEdgeHeaders(response.headers, origin, allowedOrigins);
    return response;
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
      };
      answer(request, request.header('origin'), request.header('access-control-request-method')).then(
        (response) => {
          if (response === null) {
            yoga(req, res);
            return;
          }
          send(res, response, request.method === 'HEAD');
        },
        () => {
          if (!res.headersSent) send(res, problem('internal', 'Internal server error'), false);
        },
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
      };
      const response = await answer(
        request,
        request.header('origin'),
        request.header('access-control-request-method'),
      );
      if (response === null) return yoga.handleRequest(fetchRequest, serverContext as never);
      return new Response(request.method === 'HEAD' ? null : (response.body as BodyInit | null), {
        status: response.status,
        headers: response.headers,
      });
    },
  };
}

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
