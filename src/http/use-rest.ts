import { URLPattern } from 'node:url';
import { type DocumentNode, type ExecutionResult, GraphQLError, parse, validate } from 'graphql';
import type { Plugin, YogaServerInstance } from 'graphql-yoga';
import { type ErrorKind, type FieldIssue, kindOfCode } from '../common/errors.ts';
import { pageOf } from '../common/pagination.ts';
import type { RequestContext } from '../context.ts';
import type { Logger } from '../logger.ts';
import { isDatabaseUnreachable } from './errors.ts';
import { parseJsonBody } from './json-body.ts';
import { problemResponse } from './problem.ts';
import type { ParameterType, Route } from './routes.ts';

interface CompiledRoute extends Route {
  pattern: URLPattern;
  parsed: DocumentNode;
  rootField: string;
}

class RequestProblem extends Error {
  readonly kind: ErrorKind;
  readonly issues: FieldIssue[];
  constructor(kind: ErrorKind, detail: string, issues: FieldIssue[] = []) {
    super(detail);
    this.kind = kind;
    this.issues = issues;
  }
}

const json = (value: unknown, status: number, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(value), {
    status,
    headers: { 'Content-Type': 'application/json; charset=utf-8', ...headers },
  });

function queryVariables(url: URL, declared: Record<string, ParameterType> = {}): Record<string, unknown> {
  const variables: Record<string, unknown> = {};
  for (const [name, type] of Object.entries(declared)) {
    const values = url.searchParams.getAll(name);
    if (values.length === 0) continue;
    if (values.length > 1)
      throw new RequestProblem('validation', `${name} is given more than once`, [
        { path: name, message: 'must be given at most once' },
      ]);
    const value = values[0]!;
    // A non-numeric value stays a string and GraphQL's Int rejects it, naming the parameter.
    variables[name] = type === 'int' && /^-?\d+$/.test(value) ? Number(value) : value;
  }
  return variables;
}

async function bodyVariable(request: Request): Promise<Record<string, unknown>> {
  const mediaType = request.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase();
  if (mediaType !== 'application/json') {
    throw new RequestProblem('unsupportedMediaType', 'The request body must be application/json');
  }
  const parsed = parseJsonBody(new Uint8Array(await request.arrayBuffer()));
  if (!parsed.ok) throw new RequestProblem('validation', parsed.detail, [parsed.issue]);
  const body = parsed.value;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new RequestProblem('validation', 'The request body must be a JSON object', [
      { path: '', message: 'must be a JSON object' },
    ]);
  }
  return body as Record<string, unknown>;
}

/** The body's fields are the `input` argument's fields: REST clients see `dates[1]`, not `input.dates[1]`. */
const restPath = (path: string) => (path === 'input' ? '' : path.replace(/^input[.]/, ''));

function problemFromErrors(errors: readonly GraphQLError[], logger: Logger): Response {
  const first = errors[0]!;
  const kind = kindOfCode(first.extensions.code);
  if (!kind) {
    logger.error('REST operation failed with an uncoded error', { error: first.message });
    return problemResponse('internal', 'Internal server error');
  }
  const issues = errors
    .flatMap((error) => (error.extensions.errors as FieldIssue[] | undefined) ?? [])
    .map((issue) => ({ path: restPath(issue.path), message: issue.message }));
  const detail =
    kind === 'validation' ? issues.map((i) => `${i.path || 'body'}: ${i.message}`).join('; ') : first.message;
  // 429 and 503 tell the client when to come back, as their GraphQL errors do.
  const retryAfter = (first.extensions.http as { headers?: Record<string, string> } | undefined)?.headers?.[
    'Retry-After'
  ];
  return problemResponse(kind, detail, issues, retryAfter ? { 'Retry-After': retryAfter } : {});
}

/** The methods a path answers: its routes', HEAD wherever GET is, and OPTIONS. */
const allowedMethods = (methods: string[]) =>
  [...new Set([...methods, ...(methods.includes('GET') ? ['HEAD'] : []), 'OPTIONS'])].sort().join(', ');

/**
 * The REST adapter: matches a route, turns the request into GraphQL variables and executes the route's
 * operation through yoga's own envelop, so authentication, validation, error masking and limits are
 * exactly GraphQL's. Paths that are neither REST nor GraphQL get 404, known paths with another method 405
 * (`Allow` naming the routes' methods); HEAD answers as GET without the body, OPTIONS 204 with `Allow`.
 */
export function useRest(routes: Route[], logger: Logger): Plugin<RequestContext> {
  let yoga: YogaServerInstance<Record<string, unknown>, RequestContext>;
  let compiled: CompiledRoute[] = [];

  return {
    onYogaInit({ yoga: instance }) {
      yoga = instance as unknown as typeof yoga;
      const { schema } = yoga.getEnveloped();
      compiled = routes.map((route) => {
        const parsed = parse(route.document);
        const invalid = validate(schema, parsed);
        if (invalid.length > 0) throw new Error(`Route ${route.operationId}: ${invalid[0]!.message}`);
        const operation = parsed.definitions[0];
        const first =
          operation?.kind === 'OperationDefinition' ? operation.selectionSet.selections[0] : undefined;
        if (first?.kind !== 'Field') throw new Error(`Route ${route.operationId} must select one root field`);
        return {
          ...route,
          pattern: new URLPattern({ pathname: route.path }),
          parsed,
          rootField: first.name.value,
        };
      });
    },

    async onRequest({ request, url, endResponse: end, serverContext }) {
      if (url.pathname === yoga.graphqlEndpoint) return;
      const endResponse = (response: Response) =>
        end(
          request.method === 'HEAD'
            ? new Response(null, { status: response.status, headers: response.headers })
            : response,
        );
      const matching = compiled.flatMap((route) => {
        const match = route.pattern.exec({ pathname: url.pathname });
        return match ? [{ route, params: match.pathname.groups }] : [];
      });
      if (matching.length === 0) {
        endResponse(problemResponse('notFound', `There is no resource at ${url.pathname}`));
        return;
      }
      if (request.method === 'OPTIONS') {
        const allow = allowedMethods(matching.map(({ route }) => route.method));
        endResponse(new Response(null, { status: 204, headers: { Allow: allow } }));
        return;
      }
      // HEAD is GET without the body: same status and headers.
      const head = request.method === 'HEAD';
      const method = head ? 'GET' : request.method;
      const hit = matching.find(({ route }) => route.method === method);
      if (!hit) {
        const allow = [...new Set(matching.map(({ route }) => route.method))].sort().join(', ');
        endResponse(
          problemResponse('methodNotAllowed', `${request.method} is not supported here; use ${allow}`, [], {
            Allow: allow,
          }),
        );
        return;
      }

      try {
        const { route, params } = hit;
        const variables: Record<string, unknown> = { ...params, ...queryVariables(url, route.query) };
        if (route.body) variables.input = await bodyVariable(request);

        const { execute, contextFactory, schema } = yoga.getEnveloped({
          ...serverContext,
          request,
          params: { query: route.document, variables, operationName: route.operationId },
        });
        const contextValue = await contextFactory();
        const result = (await execute({
          schema,
          document: route.parsed,
          contextValue,
          variableValues: variables,
          operationName: route.operationId,
        })) as ExecutionResult;

        if (result.errors?.length) {
          endResponse(problemFromErrors(result.errors, logger));
          return;
        }
        const cacheControl = route.cacheControl ?? (method === 'GET' ? 'private, no-cache' : 'no-store');
        const value = (result.data as Record<string, unknown>)[route.rootField];
        if (value === null || value === undefined) {
          endResponse(problemResponse('notFound', route.notFound ?? 'Not found'));
          return;
        }
        if (route.status === 204) {
          endResponse(new Response(null, { status: 204, headers: { 'Cache-Control': cacheControl } }));
          return;
        }
        if (route.produces) {
          const content = await route.produces.render(value as Record<string, unknown>);
          endResponse(
            new Response(content, {
              status: route.status,
              headers: { 'Content-Type': route.produces.contentType, 'Cache-Control': cacheControl },
            }),
          );
          return;
        }
        const headers: Record<string, string> = { 'Cache-Control': cacheControl };
        if (route.location) headers.Location = route.location(value as Record<string, unknown>);
        if (route.paged) {
          const total = (result.data as Record<string, unknown>).total;
          Object.assign(headers, pagingHeaders(route, url, variables, value as unknown[], total));
        }
        endResponse(json(withoutNulls(value), route.status, headers));
      } catch (error) {
        if (error instanceof RequestProblem) {
          endResponse(problemResponse(error.kind, error.message, error.issues));
          return;
        }
        // A failure yoga already turned into a coded error (its context factory masks what it throws).
        if (error instanceof GraphQLError && kindOfCode(error.extensions.code)) {
          endResponse(problemFromErrors([error], logger));
          return;
        }
        if (isDatabaseUnreachable(error)) {
          endResponse(problemResponse('unavailable', 'The database is unreachable; try again shortly'));
          return;
        }
        logger.error('REST request failed', {
          error: error instanceof Error ? error.message : String(error),
        });
        endResponse(problemResponse('internal', 'Internal server error'));
      }
    },
  };
}

/** RFC 8288 links to the first, previous and next pages, and the total when the operation counted it. */
function pagingHeaders(
  route: Route,
  url: URL,
  variables: Record<string, unknown>,
  items: unknown[],
  total: unknown,
) {
  const { page, limit } = pageOf(variables as { page?: number; limit?: number });
  // Only the route's own parameters are carried over: a link never repeats whatever else the URL held.
  const kept = [...url.searchParams].filter(([name]) => name in (route.query ?? {}));
  const link = (rel: string, target: number) => {
    const query = new URLSearchParams(kept);
    query.set('page', String(target));
    query.set('limit', String(limit));
    return `<${url.pathname}?${query}>; rel="${rel}"`;
  };
  const hasNext = typeof total === 'number' ? page * limit < total : items.length === limit;
  const links = [link('first', 1)];
  if (page > 1) links.push(link('prev', page - 1));
  if (hasNext) links.push(link('next', page + 1));
  const headers: Record<string, string> = { Link: links.join(', ') };
  if (typeof total === 'number') headers['X-Total-Count'] = String(total);
  return headers;
}

/**
 * REST leaves out what does not apply rather than sending null: a general ticket has no eventId, an event
 * of unlimited capacity no capacity. Clients of the reference document never see a field they don't know.
 */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, v]) => v !== null)
        .map(([k, v]) => [k, withoutNulls(v)]),
    );
  }
  return value;
}
