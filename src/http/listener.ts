import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { ERROR_KINDS, type ErrorKind } from '../common/errors.ts';
import type { Logger } from '../logger.ts';
import { addressOf, type TrustedProxies } from '../protocol/client-address.ts';
import { PROBLEM_CONTENT_TYPE, problemOf } from '../protocol/problem.ts';
import { rateLimitHeaders } from '../protocol/rate-limit.ts';

export interface ListenerOptions {
  /** Requests in progress on this instance at once; beyond, 503 with Retry-After. */
  maxConcurrentRequests: number;
  /** Requests in progress from one client address at once; beyond, 429 with Retry-After. */
  maxConcurrentRequestsPerClient: number;
  trustProxy: TrustedProxies;
  logger: Logger;
}

// RFC 9110 §7.2: Host is uri-host [":" port]; a reg-name, an IPv4 address or a bracketed IPv6 literal.
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9\-._~%!$&'()*+,;=]+)(?::\d{1,5})?$/;

/**
 * What must hold before a request reaches the application, on the raw node:http request:
 * - the Host header is a host and an optional port, nothing else (400), so that the URL the application
 *   routes by is built from the request line's path alone: `Host: x/graphql#` cannot turn `/docs` into
 *   `/graphql`;
 * - the request target is a path (an absolute-form target is reduced to its path);
 * - a slot of the instance's and of the client's in-flight budgets is held from the request's arrival to
 *   the moment its response is closed: finished, failed, aborted or timed out, node's `close` event
 *   covers every path, so no slot can leak.
 */
export function guardedListener(app: RequestListener, options: ListenerOptions): RequestListener {
  let active = 0;
  const perClient = new Map<string, number>();

  return (req: IncomingMessage, res: ServerResponse) => {
    const host = req.headers.host;
    if (host === undefined || !HOST.test(host)) {
      refuse(res, 'validation', 'The Host header must be a host name or address with an optional port', {
        errors: [{ path: 'Host', message: 'must be a host name or address with an optional port' }],
      });
      return;
    }
    const target = req.url ?? '';
    if (!target.startsWith('/')) {
      const path = originForm(target);
      if (path === null) {
        refuse(res, 'validation', 'The request target must be a path', {
          errors: [{ path: 'target', message: 'must be a path such as /museum-hours' }],
        });
        return;
      }
      req.url = path;
    }

    const client = addressOf(req.socket.remoteAddress, req.headers['x-forwarded-for'], options.trustProxy);
    if (active >= options.maxConcurrentRequests) {
      refuse(
        res,
        'unavailable',
        'Too many requests in progress; try again shortly',
        {},
        { 'Retry-After': '1' },
      );
      return;
    }
    const fromClient = perClient.get(client) ?? 0;
    if (fromClient >= options.maxConcurrentRequestsPerClient) {
      options.logger.info('client over its concurrent request limit', { address: client });
      refuse(
        res,
        'tooManyRequests',
        'Too many requests in progress from this client; try again shortly',
        {},
        rateLimitHeaders(
          { name: 'requests-in-progress', quota: options.maxConcurrentRequestsPerClient, window: 1 },
          1,
        ),
      );
      return;
    }
    active++;
    perClient.set(client, fromClient + 1);
    res.once('close', () => {
      active--;
      const left = (perClient.get(client) ?? 1) - 1;
      if (left > 0) perClient.set(client, left);
      else perClient.delete(client);
    });
    app(req, res);
  };
}

/** The path and query of an absolute-form request target (`GET http://host/path`), or null. */
function originForm(target: string): string | null {
  if (!/^https?:\/\//i.test(target)) return null;
  try {
    const url = new URL(target);
    return `${url.pathname}${url.search}`;
  } catch {
    return null;
  }
}

const hasBody = (req: IncomingMessage) =>
  req.headers['transfer-encoding'] !== undefined ||
  (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0');

/** A problem+json answer written straight to the socket; the request body, if any, is not read. */
function refuse(
  res: ServerResponse,
  kind: ErrorKind,
  detail: string,
  extra: { errors?: { path: string; message: string }[] },
  headers: Record<string, string> = {},
) {
  const problem = { ...problemOf(kind, detail, extra.errors ?? []) };
  const body = JSON.stringify(problem);
  res.writeHead(ERROR_KINDS[kind].status, {
    'Content-Type': PROBLEM_CONTENT_TYPE,
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    // A body left unread would be taken for the next request on this connection.
    ...(hasBody(res.req) ? { Connection: 'close' } : {}),
    ...headers,
  });
  res.end(body);
}
