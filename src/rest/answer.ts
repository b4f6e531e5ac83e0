import type { ExecutionResult } from 'graphql';
import Negotiator from 'negotiator';
import { pageOf } from '../common/pagination.ts';
import { entityTag, noneMatch } from '../protocol/conditional.ts';
import { problemAnswer } from '../protocol/problem.ts';
import type { HttpAnswer, HttpRequest } from '../protocol/request.ts';
import type { CompiledRoute } from './compiled-routes.ts';
import type { QueryString } from './query-string.ts';
import type { Route } from './route.ts';

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * A route's success answer: the root field's value as JSON (or rendered), with its status and headers. Only
 * a rendered answer (a QR code image) waits; a JSON one is returned as it is, without a promise's hops.
 */
export function routeAnswer(
  request: HttpRequest,
  query: QueryString,
  route: CompiledRoute,
  variables: Record<string, unknown>,
  result: ExecutionResult,
  method: string,
): HttpAnswer | Promise<HttpAnswer> {
  let value = (result.data as Record<string, unknown>)[route.rootField];
  if (value === null || value === undefined) return problemAnswer('notFound', route.notFound ?? 'Not found');
  const cacheControl = route.cacheControl ?? (method === 'GET' ? 'private, no-cache' : 'no-store');
  if (route.status === 204) return { status: 204, headers: { 'Cache-Control': cacheControl }, body: null };
  // A read carries a validator; a client that already holds this representation gets 304 and no body.
  // What a read says depends on whose credentials came with it (a visitor sees only its own tickets), and
  // on Accept where the answer has another media type.
  const { produces, alternative } = route;
  const vary = alternative ? 'Authorization, Accept' : 'Authorization';
  const validated = (answer: HttpAnswer, tagOf: () => string): HttpAnswer => {
    if (method !== 'GET' && !route.etag) return answer;
    const tag = tagOf();
    answer.headers.ETag = tag;
    if (method !== 'GET') return answer;
    answer.headers.Vary = vary;
    if (!noneMatch(request.header('if-none-match'), tag)) return answer;
    return {
      status: 304,
      headers: { ETag: tag, 'Cache-Control': cacheControl, Vary: vary },
      body: null,
    };
  };
  if (alternative && prefers(request, alternative.contentType)) {
    const headers = { 'Content-Type': alternative.contentType, 'Cache-Control': cacheControl };
    const body = alternative.render(value as Record<string, unknown>, variables);
    return validated({ status: route.status, headers, body }, () => entityTag(body));
  }
  if (produces)
    return produces.render(value as Record<string, unknown>).then((content) => {
      const headers = { 'Content-Type': produces.contentType, 'Cache-Control': cacheControl };
      return validated({ status: route.status, headers, body: content }, () => entityTag(content));
    });
  let versionTag: string | undefined;
  if (route.etag) {
    const { [route.etag]: version, ...fields } = value as Record<string, unknown>;
    versionTag = `"${version}"`;
    value = fields;
  }
  const headers: Record<string, string> = { 'Content-Type': JSON_TYPE, 'Cache-Control': cacheControl };
  if (route.location) headers.Location = route.location(value as Record<string, unknown>);
  let items = value;
  if (route.paged) {
    const page = route.paged === 'items' ? (value as { items: unknown[]; total: number }) : null;
    items = page ? page.items : value;
    const total = page ? page.total : (result.data as Record<string, unknown>).total;
    Object.assign(
      headers,
      pagingHeaders(route, request.pathname, query, variables, items as unknown[], total),
    );
  }
  const body = JSON.stringify(withoutNulls(items));
  // A list's total is part of what it says (X-Total-Count, Link): it goes into the tag too.
  const tagOf = () => versionTag ?? entityTag(body, headers['X-Total-Count'] ?? '');
  return validated({ status: route.status, headers, body }, tagOf);
}

/** Whether `Accept` prefers `contentType` to JSON (its parameters aside), as negotiator weighs them. */
function prefers(request: HttpRequest, contentType: string): boolean {
  const accept = request.header('accept');
  if (!accept) return false;
  const wanted = contentType.split(';')[0]!;
  return new Negotiator({ headers: { accept } }).mediaType(['application/json', wanted]) === wanted;
}

/**
 * RFC 8288 links: `first`; `prev` to a page that has items (past the end, the last page that has some);
 * `next` while more follow; `last` and `X-Total-Count` when the operation counted the total.
 */
function pagingHeaders(
  route: Route,
  pathname: string,
  query: QueryString,
  variables: Record<string, unknown>,
  items: unknown[],
  total: unknown,
) {
  const { page, limit } = pageOf(variables as { page?: number; limit?: number });
  // Only the route's own parameters are carried over: a link never repeats whatever else the URL held.
  const linkQuery = query.linkQuery(route.query ?? [], limit);
  const link = (rel: string, target: number) => `<${pathname}?${linkQuery(target)}>; rel="${rel}"`;
  const count = typeof total === 'number' ? total : null;
  // With a count, the last page that has items (1 when there are none); without, pages go on while full.
  const lastPage = count !== null ? Math.max(1, Math.ceil(count / limit)) : null;
  const hasNext = lastPage !== null ? page < lastPage : items.length === limit;
  const links = [link('first', 1)];
  if (page > 1 && count !== 0) links.push(link('prev', Math.min(page - 1, lastPage ?? page)));
  if (hasNext) links.push(link('next', page + 1));
  if (lastPage !== null) links.push(link('last', lastPage));
  const headers: Record<string, string> = { Link: links.join(', ') };
  if (count !== null) headers['X-Total-Count'] = String(count);
  return headers;
}

/**
 * REST leaves out what does not apply rather than sending null: a general ticket has no eventId, an event
 * of unlimited capacity no capacity. Clients of the reference document never see a field they don't know.
 */
function withoutNulls(value: unknown): unknown {
  return holdsNull(value) ? copiedWithoutNulls(value) : value;
}

/** Whether a null is anywhere in the value: most answers hold none, and are then sent as they are. */
function holdsNull(value: unknown): boolean {
  if (value === null) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (holdsNull(item)) return true;
    return false;
  }
  if (typeof value === 'object') {
    for (const key in value) if (holdsNull((value as Record<string, unknown>)[key])) return true;
  }
  return false;
}

function copiedWithoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copiedWithoutNulls);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key in value) {
      const item = (value as Record<string, unknown>)[key];
      if (item !== null) out[key] = copiedWithoutNulls(item);
    }
    return out;
  }
  return value;
}
