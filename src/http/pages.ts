import type { Database } from '../db/database.ts';
import type { Metrics } from '../metrics/metrics.ts';
import { problemAnswer } from '../protocol/problem.ts';
import type { HttpAnswer, HttpRequest } from '../protocol/request.ts';
import { DOCS_PATHS, docsPages, isDocsPath } from './docs.ts';
import { frontPage } from './front-page.ts';
import { GRAPHIQL_ASSETS } from './graphiql.ts';
import { STRIPE_WEBHOOK_PATH } from './stripe-webhook.ts';

type Page = (request: HttpRequest) => HttpAnswer | Promise<HttpAnswer>;

const onlyGet = (method: string) =>
  method === 'GET' || method === 'HEAD'
    ? null
    : problemAnswer('methodNotAllowed', `${method} is not supported here; use GET`, [], {
        Allow: 'GET, HEAD',
      });

const DOCS_ROUTES = new Set<string>([DOCS_PATHS.docs, DOCS_PATHS.openapi]);

const JSON_NO_STORE = { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' };
const OK: HttpAnswer = { status: 200, headers: JSON_NO_STORE, body: '{"status":"ok"}' };

/** A page that answers OPTIONS itself, naming the methods it serves. */
const withOptions =
  (page: Page): Page =>
  (request) =>
    request.method === 'OPTIONS'
      ? { status: 204, headers: { Allow: 'GET, HEAD, OPTIONS' }, body: null }
      : page(request);

export interface PagesOptions {
  db: Database;
  isDraining: () => boolean;
  /** Prometheus metrics, served at /metrics; absent when MUSEUM_METRICS=off. */
  metrics?: Metrics;
  /** GraphiQL's script, stylesheet and fonts, under GRAPHIQL_ASSETS; absent when GRAPHIQL=false. */
  graphiqlAssets?: Page;
  /** Stripe's webhook (src/http/stripe-webhook.ts), served whether or not payments are on (404 when off). */
  stripeWebhook: Page;
}

/**
 * What is not an operation: the front page, the health checks, the metrics, the favicon, the documentation
 * and Stripe's webhook. The route table by path; null for a path that is none of them.
 */
export function pagesTable(
  options: PagesOptions,
): (pathname: string) => { page: Page; route: string } | null {
  const { metrics } = options;
  const ready: Page = async ({ method }) => {
    const refused = onlyGet(method);
    if (refused) return refused;
    if (options.isDraining()) return problemAnswer('unavailable', 'The service is shutting down');
    try {
      await options.db.ping();
      // With read replicas, how each is doing (lag, serving or skipped): the instance is ready either way,
      // since the primary serves every read a replica cannot.
      const replicas = options.db.replicas?.status();
      if (replicas)
        return { ...OK, headers: { ...JSON_NO_STORE }, body: JSON.stringify({ status: 'ok', replicas }) };
      return { ...OK, headers: { ...JSON_NO_STORE } };
    } catch {
      return problemAnswer('unavailable', 'The database is unreachable', [], { 'Retry-After': '5' });
    }
  };
  const table: Record<string, Page> = {
    '/': withOptions(({ method, header }) => frontPage(method, header('accept'))),
    '/health/live': withOptions(({ method }) => onlyGet(method) ?? { ...OK, headers: { ...JSON_NO_STORE } }),
    '/health/ready': withOptions(ready),
    // Browsers ask for it on every page; there is none, and "no content" keeps their consoles clean.
    '/favicon.ico': () => ({
      status: 204,
      headers: { 'Cache-Control': 'public, max-age=86400' },
      body: null,
    }),
    [STRIPE_WEBHOOK_PATH]: options.stripeWebhook,
  };
  if (metrics)
    table['/metrics'] = async ({ method }) =>
      onlyGet(method) ?? {
        status: 200,
        headers: { 'Content-Type': metrics.registry.contentType, 'Cache-Control': 'no-store' },
        body: await metrics.registry.metrics(),
      };
  const docs = withOptions(docsPages());
  const graphiql = options.graphiqlAssets && withOptions(options.graphiqlAssets);
  // Routes by template: the documentation's and GraphiQL's files are counted as one route each.
  const pages = new Map(Object.entries(table).map(([path, page]) => [path, { page, route: path }]));
  const docsFiles = { page: docs, route: `${DOCS_PATHS.docs}/*` };
  const graphiqlRoute = graphiql ? { page: graphiql, route: `${GRAPHIQL_ASSETS}*` } : null;
  return (pathname) =>
    pages.get(pathname) ??
    (isDocsPath(pathname)
      ? DOCS_ROUTES.has(pathname)
        ? { page: docs, route: pathname }
        : docsFiles
      : null) ??
    (graphiqlRoute && pathname.startsWith(GRAPHIQL_ASSETS) ? graphiqlRoute : null);
}
