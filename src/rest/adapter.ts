import type { GraphQLError, GraphQLSchema } from 'graphql';
import { type ErrorKind, type FieldIssue, kindOfCode } from '../common/errors.ts';
import { PAGING_RULES } from '../common/pagination.ts';
import type { RunOperation } from '../graphql/operations.ts';
import type { Logger } from '../logger.ts';
import { problemAnswer as problem } from '../protocol/problem.ts';
import { callerOf, type HttpAnswer, type HttpRequest, readJsonBody } from '../protocol/request.ts';
import { routeAnswer } from './answer.ts';
import { BODY_VARIABLE, type CompiledRoute, compileRoutes, routeMatcher } from './compiled-routes.ts';
import { type QueryString, queryString } from './query-string.ts';
import type { Route } from './route.ts';

/** A request the adapter refuses before any operation runs: its problem's kind, detail and field issues. */
class RequestProblem extends Error {
  readonly kind: ErrorKind;
  readonly issues: FieldIssue[];
  constructor(kind: ErrorKind, detail: string, issues: FieldIssue[] = []) {
    super(detail);
    this.kind = kind;
    this.issues = issues;
  }
}

function queryVariables(query: QueryString, declared: CompiledRoute['queryTypes']): Record<string, unknown> {
  const variables: Record<string, unknown> = {};
  for (const name in declared) {
    const values = query.values(name);
    if (values.length === 0) continue;
    if (values.length > 1)
      throw new RequestProblem('validation', `${name} is given more than once`, [
        { path: name, message: 'must be given at most once' },
      ]);
    const value = values[0]!;
    if (declared[name] === 'int') {
      if (!/^-?\d{1,9}$/.test(value)) {
        const rule = PAGING_RULES[name as keyof typeof PAGING_RULES] ?? 'must be an integer';
        throw new RequestProblem('validation', `${name}: ${rule}`, [{ path: name, message: rule }]);
      }
      variables[name] = Number(value);
    } else variables[name] = value;
  }
  return variables;
}

const BODY_FIELD_PREFIX = new RegExp(`^${BODY_VARIABLE}\\.`);

/**
 * An error path as the REST client wrote it: the body is the `input` variable, so its fields are named
 * without it (`dates[1]`, not `input.dates[1]`), the inverse of how the body became that variable.
 */
const restPath = (path: string) => (path === BODY_VARIABLE ? '' : path.replace(BODY_FIELD_PREFIX, ''));

function problemFromErrors(errors: readonly GraphQLError[], logger: Logger): HttpAnswer {
  const first = errors[0]!;
  const kind = kindOfCode(first.extensions.code);
  if (!kind) {
    logger.error('REST operation failed with an uncoded error', { error: first.message });
    return problem('internal', 'Internal server error');
  }
  const issues = errors
    .flatMap((error) => (error.extensions.errors as FieldIssue[] | undefined) ?? [])
    .map((issue) => ({ path: restPath(issue.path), message: issue.message }));
  const detail =
    kind === 'validation' ? issues.map((i) => `${i.path || 'body'}: ${i.message}`).join('; ') : first.message;
  // 401, 429 and 503 carry the headers their GraphQL errors carry (WWW-Authenticate, Retry-After).
  const headers = (first.extensions.http as { headers?: Record<string, string> } | undefined)?.headers;
  return problem(kind, detail, issues, headers ?? {});
}

/** The methods a path answers: its routes', HEAD wherever GET is, and OPTIONS. */
const allowedMethods = (methods: string[]) =>
  [...new Set([...methods, ...(methods.includes('GET') ? ['HEAD'] : []), 'OPTIONS'])].sort().join(', ');

/**
 * The REST adapter: matches a route, turns the request into the variables of the route's GraphQL operation
 * (its document parsed and validated once, at start-up) and runs it on the one operation path
 * (src/graphql/operations.ts), so authentication, variable checks, error masking and limits are exactly
 * GraphQL's; the root field's value becomes the answer. Known paths with
 * another method get 405 (`Allow` naming the routes' methods); HEAD answers as GET without the body, OPTIONS
 * 204 with `Allow`; unknown paths 404.
 */
export function createRestHandler(
  runOperation: RunOperation,
  schema: GraphQLSchema,
  routes: Route[],
  logger: Logger,
  options: { payments: boolean } = { payments: false },
): (request: HttpRequest) => Promise<HttpAnswer> {
  const matching = routeMatcher(compileRoutes(schema, routes));

  async function run(
    request: HttpRequest,
    route: CompiledRoute,
    params: Record<string, string>,
    method: string,
  ) {
    const query = queryString(request.search);
    const variables: Record<string, unknown> = { ...params, ...queryVariables(query, route.queryTypes) };
    for (const name in route.headers) {
      const value = request.header(route.headers[name]!);
      if (value !== null) variables[name] = value;
    }
    if (route.body) {
      const body = await readJsonBody(request, 'The request body');
      if (!body.ok) return problem(body.kind, body.detail, body.issues, body.headers);
      if (typeof body.value !== 'object' || body.value === null || Array.isArray(body.value))
        return problem('validation', 'The request body must be a JSON object', [
          { path: '', message: 'must be a JSON object' },
        ]);
      variables[BODY_VARIABLE] = body.value;
      if (route.beyondReference) {
        const given = body.value as Record<string, unknown>;
        variables.beyondReference = route.beyondReference.some((field) => given[field] != null);
      }
    }
    if (route.payments) variables.payments = options.payments;
    const result = await runOperation({
      document: route.parsed,
      variables,
      operationName: route.operationId,
      method,
      caller: callerOf(request),
      observation: request.observation,
    });
    if (Symbol.asyncIterator in result) throw new Error(`Route ${route.operationId} is a subscription`);
    if (result.errors?.length) return problemFromErrors(result.errors, logger);
    return routeAnswer(request, query, route, variables, result, method);
  }

  return async (request) => {
    const found = matching(request.pathname);
    if (found.length === 0) return problem('notFound', `There is no resource at ${request.pathname}`);
    request.observation.route = found[0]!.route.template;
    if (request.method === 'OPTIONS')
      return {
        status: 204,
        headers: { Allow: allowedMethods(found.map(({ route }) => route.method)) },
        body: null,
      };
    // HEAD is GET without the body: same status and headers (the transport drops the body).
    const method = request.method === 'HEAD' ? 'GET' : request.method;
    const hit = found.find(({ route }) => route.method === method);
    if (!hit) {
      const allow = [...new Set(found.map(({ route }) => route.method))].sort().join(', ');
      return problem('methodNotAllowed', `${request.method} is not supported here; use ${allow}`, [], {
        Allow: allow,
      });
    }
    try {
      return await run(request, hit.route, hit.params, method);
    } catch (error) {
      if (error instanceof RequestProblem) return problem(error.kind, error.message, error.issues);
      throw error;
    }
  };
}
