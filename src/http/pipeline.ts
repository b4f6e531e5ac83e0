import type { IncomingMessage, ServerResponse } from 'node:http';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { withoutAddresses } from '../common/text.ts';
import type { Logger } from '../logger.ts';
import type { Metrics } from '../metrics/metrics.ts';
import type { TrustedProxies } from '../protocol/client-address.ts';
import { problemAnswer } from '../protocol/problem.ts';
import { fromNode, type HttpAnswer, type HttpRequest, sendNode } from '../protocol/request.ts';
import { inSpan, tracing } from '../tracing.ts';
import { addEdgeHeaders, isPageScript, preflight } from './edge-headers.ts';

type Handler = (request: HttpRequest) => HttpAnswer | Promise<HttpAnswer>;

export interface PipelineOptions {
  /**
   * What is not an operation (src/http/pages.ts), by path, with the route it is counted under (a path
   * template, so that no client can make metric series without end); null when the path is none of them.
   */
  pages: (pathname: string) => { page: Handler; route: string } | null;
  graphqlPath: string;
  /** GraphQL over HTTP (src/http/graphql-endpoint.ts). */
  graphql: Handler;
  /** The REST routes (src/rest/adapter.ts); it answers unknown paths too. */
  rest: Handler;
  corsOrigins: string[];
  trustProxy: TrustedProxies;
  metrics?: Metrics;
  logger: Logger;
}

export interface Pipeline {
  /** The node:http request listener (behind src/http/listener.ts). */
  handleNode(req: IncomingMessage, res: ServerResponse): void;
  /** Requests answered in the last whole second (or this one, if more): how busy the instance is. */
  requestsPerSecond(): number;
}

/**
 * The one way in. Every request, from node:http (src/http/http-server.ts, in production and in the tests
 * alike), becomes an HttpRequest and goes through the same steps: CORS preflight, then the route table (the pages, /graphql, the REST routes), then the
 * headers every answer carries, its log line and metrics, and (with tracing on) its span.
 */
export function createPipeline(options: PipelineOptions): Pipeline {
  const allowedOrigins = new Set(options.corsOrigins);
  const { metrics, logger } = options;

  function route(request: HttpRequest): HttpAnswer | Promise<HttpAnswer> {
    const { pathname, method, observation } = request;
    const origin = request.header('origin');
    const corsPreflight = preflight(
      method,
      origin,
      request.header('access-control-request-method'),
      allowedOrigins,
    );
    if (corsPreflight) return { ...corsPreflight, body: null };
    if (pathname === options.graphqlPath) {
      observation.route = options.graphqlPath;
      return options.graphql(request);
    }
    const found = options.pages(pathname);
    if (found) {
      observation.route = found.route;
      return found.page(request);
    }
    return options.rest(request);
  }

  /** The request's answer with the headers every answer carries; never throws. */
  async function answerOf(request: HttpRequest): Promise<HttpAnswer> {
    const { observation } = request;
    let answer: HttpAnswer;
    try {
      answer = await route(request);
    } catch (error) {
      logger.error('request failed', { error: String(error), requestId: observation.requestId });
      answer = problemAnswer('internal', 'Internal server error');
    }
    // A 401 to a script of one of this service's pages carries no Basic challenge (src/http/edge-headers.ts).
    if (answer.status === 401 && isPageScript(request.header)) delete answer.headers['WWW-Authenticate'];
    answer.headers['X-Request-Id'] = observation.requestId;
    // A 5xx problem names the request id, so an operator can find its log line.
    if (answer.status >= 500 && typeof answer.body === 'string' && answer.body.startsWith('{"type"'))
      answer.body = JSON.stringify({ ...JSON.parse(answer.body), requestId: observation.requestId });
    addEdgeHeaders(answer.headers, request.header('origin'), allowedOrigins);
    return answer;
  }

  // Requests answered in this second and in the one before: background work yields to a rush (the mailer).
  let second = 0;
  let thisSecond = 0;
  let lastSecond = 0;
  /** Moves the count to the second `now` falls in. */
  const roll = (now: number) => {
    const current = Math.floor(now / 1000);
    if (current === second) return;
    lastSecond = current === second + 1 ? thisSecond : 0;
    thisSecond = 0;
    second = current;
  };

  /** One line per request, and its metrics, once its answer is done (or the client has gone). */
  function finished(request: HttpRequest, status: number, started: number) {
    const { observation } = request;
    const now = performance.now();
    roll(now);
    thisSecond++;
    const seconds = (now - started) / 1000;
    metrics?.request(request.method, observation.route, status, seconds);
    logger.request({
      method: request.method,
      route: observation.route,
      status,
      durationMs: Math.round(seconds * 10_000) / 10,
      requestId: observation.requestId,
      account: observation.account,
    });
  }

  /** The request's span lasts until its answer is done; the operation and SQL spans are its children. */
  function inRequestSpan(request: HttpRequest, work: () => Promise<number>): Promise<number> {
    return inSpan(
      request.method,
      SpanKind.SERVER,
      {
        'http.request.method': request.method,
        // What a client wrote is kept without the e-mail addresses it may hold (`/tickets/a@b.example`).
        'url.path': withoutAddresses(request.pathname),
        'url.scheme': 'http',
        'client.address': request.address,
        'user_agent.original': withoutAddresses(request.header('user-agent') ?? ''),
      },
      async (span) => {
        const status = await work();
        span.updateName(`${request.method} ${request.observation.route}`);
        span.setAttributes({ 'http.route': request.observation.route, 'http.response.status_code': status });
        if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        return status;
      },
    );
  }

  return {
    requestsPerSecond() {
      roll(performance.now());
      return Math.max(lastSecond, thisSecond);
    },
    handleNode(req, res) {
      const request = fromNode(req, res, options.trustProxy);
      const started = performance.now();
      const head = request.method === 'HEAD';
      if (!tracing.enabled) {
        // A client that went away before any answer: 499, as proxies log it.
        res.once('close', () => finished(request, res.headersSent ? res.statusCode : 499, started));
        void answerOf(request).then((answer) => sendNode(res, answer, head));
        return;
      }
      const closed = new Promise<number>((resolve) =>
        res.once('close', () => resolve(res.headersSent ? res.statusCode : 499)),
      );
      void closed.then((code) => finished(request, code, started));
      void inRequestSpan(request, () => {
        void answerOf(request).then((answer) => sendNode(res, answer, head));
        return closed;
      });
    },
  };
}
