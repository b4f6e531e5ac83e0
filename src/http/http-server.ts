import type { RequestListener, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { nodeHttp } from '../common/node-http.ts';
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { PROBLEM_CONTENT_TYPE } from '../protocol/problem.ts';
import { HEADER_LIMIT_BYTES } from '../protocol/request.ts';
import { guardedListener } from './listener.ts';

/**
 * The node:http server every request enters by, `npm start`'s and the tests' alike: its limits on slow and
 * oversized requests, then the edge's guards (src/http/listener.ts), then `listener` (the app, or a "starting"
 * answer until it is open).
 */
export function createHttpServer(
  config: Pick<
    Config,
    | 'headersTimeoutMs'
    | 'requestTimeoutMs'
    | 'maxConcurrentRequests'
    | 'maxConcurrentRequestsPerClient'
    | 'trustProxy'
  >,
  logger: Logger,
  listener: RequestListener,
): Server {
  const server = nodeHttp.createServer(
    {
      // A client gets HTTP_HEADERS_TIMEOUT_MS (10 s) to send its headers and HTTP_REQUEST_TIMEOUT_MS (30 s)
      // for the whole request (slow-loris), then 408. Node checks them every connectionsCheckingInterval,
      // so a short interval keeps each within a quarter second of what it says.
      headersTimeout: config.headersTimeoutMs,
      requestTimeout: config.requestTimeoutMs,
      connectionsCheckingInterval: 250,
      maxHeaderSize: HEADER_LIMIT_BYTES,
    },
    guardedListener(listener, {
      maxConcurrentRequests: config.maxConcurrentRequests,
      maxConcurrentRequestsPerClient: config.maxConcurrentRequestsPerClient,
      trustProxy: config.trustProxy,
      logger,
    }),
  );
  server.keepAliveTimeout = 5_000;
  // Idle sockets are closed after a minute; a slow operation is bounded by REQUEST_TIMEOUT_MS (503).
  server.timeout = 60_000;
  server.on('clientError', refuseUnparsed);
  return server;
}

/** What node:http's parser refuses before any request exists, and why, in the client's words. */
const UNPARSED: Record<number, string> = {
  400: 'The request is not valid HTTP/1.1',
  408: 'The request took too long to arrive',
  431: 'The request headers (or its URL) are larger than 16 KiB',
};

/**
 * A request node:http's parser refused (headers or URL too large, malformed HTTP, too slow to arrive) is
 * answered like every other refusal, with a problem+json body, instead of node's bare status line.
 */
function refuseUnparsed(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const status =
    error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const detail = UNPARSED[status]!;
  const body = JSON.stringify({
    type: 'about:blank',
    title: nodeHttp.STATUS_CODES[status],
    status,
    detail,
    ...(status === 400 ? { errors: [{ path: 'request', message: detail }] } : {}),
  });
  // Closed once written, as node does: a client still sending (a slow one) is not waited for.
  socket.end(
    `HTTP/1.1 ${status} ${nodeHttp.STATUS_CODES[status]}\r\nContent-Type: ${PROBLEM_CONTENT_TYPE}\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    () => socket.destroy(),
  );
}
