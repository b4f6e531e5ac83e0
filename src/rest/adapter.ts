import {
  type DocumentNode,
  type ExecutionResult,
  type FieldNode,
  GraphQLError,
  type GraphQLField,
  type GraphQLSchema,
  Kind,
  type OperationDefinitionNode,
  parse,
  validate,
} from 'graphql';
import { type CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';
import type { YogaServerInstance } from 'graphql-yoga';
import { TOOK_TOO_LONG } from '../common/deadline.ts';
import { type ErrorKind, type FieldIssue, kindOfCode } from '../common/errors.ts';
import { PAGING_RULES, pageOf } from '../common/pagination.ts';
import type { RequestContext } from '../context.ts';
import { isDatabaseUnreachable } from '../graphql/errors.ts';
import type { CompiledRunner } from '../http/compiled-graphql.ts';
import { entityTag, noneMatch } from '../http/conditional.ts';
import { parseJsonBody } from '../http/json-body.ts';
import type { Observation } from '../http/observe.ts';
import type { Logger } from '../logger.ts';
import { gateRefusal } from '../plugins/use-auth-gate.ts';
import { tracing } from '../tracing.ts';
import { problemAnswer } from './problem.ts';
import type { Route } from './routes.ts';

/** Request bodies larger than this are refused with 413 before any of them is parsed. */
export const BODY_LIMIT_BYTES = 64 * 1024;

/** A REST request as either transport (node:http, or a fetch Request in tests) hands it over. */
export interface RestRequest {
  method: string;
  pathname: string;
  /** The query string without its `?`. */
  search: string;
  /** A request header by its lower-case name. */
  header(name: string): string | null;
  /** The client's address (src/http/client-address.ts), for login throttling. */
  address: string;
  /** The whole body, or null when it is larger than BODY_LIMIT_BYTES. */
  body(): Promise<Uint8Array | null>;
  /** Filled in for the request's log line and metrics: its route template and account. */
  observation: Observation;
}

export interface RestResponse {
  status: number;
  headers: Record<string, string>;
  body: string | Uint8Array | null;
}

type Segment = { literal: string } | { parameter: string };

/** A route as it serves requests and the OpenAPI document: compiled once, at start-up. */
export interface CompiledRoute extends Route {
  segments: Segment[];
  parsed: DocumentNode;
  operation: OperationDefinitionNode;
  /** The root field the document selects: its name, its selection and its definition in the schema. */
  rootField: string;
  rootSelection: FieldNode;
  field: GraphQLField<unknown, unknown>;
  /** Each query parameter, and whether its variable is an `Int` (else the text is passed as it is). */
  queryTypes: Record<string, 'int' | 'string'>;
  /** The path as the OpenAPI document writes it, `/special-events/{eventId}`: the metrics' route label. */
  template: string;
}

class RequestProblem extends Error {
  readonly kind: ErrorKind;
  readonly issues: FieldIssue[];
  readonly headers: Record<string, string>;
  constructor(
    kind: ErrorKind,
    detail: string,
    issues: FieldIssue[] = [],
    headers: Record<string, string> = {},
  ) {
    super(detail);
    this.kind = kind;
    this.issues = issues;
    this.headers = headers;
  }
}

const JSON_TYPE = 'application/json; charset=utf-8';

/** A problem+json answer (RFC 9457). */
export const problem = (...args: Parameters<typeof problemAnswer>): RestResponse => problemAnswer(...args);

/** Parses and validates every route's document against the schema, once, at start-up. */
export function compileRoutes(schema: GraphQLSchema, routes: Route[]): CompiledRoute[] {
  return routes.map((route) => {
    const parsed = parse(route.document);
    const invalid = validate(schema, parsed);
    if (invalid.length > 0) throw new Error(`Route ${route.operationId}: ${invalid[0]!.message}`);
    const operation = parsed.definitions[0];
    if (operation?.kind !== 'OperationDefinition')
      throw new Error(`Route ${route.operationId} must hold one operation`);
    const first = operation.selectionSet.selections[0];
    if (first?.kind !== 'Field') throw new Error(`Route ${route.operationId} must select one root field`);
    const root = operation.operation === 'mutation' ? schema.getMutationType() : schema.getQueryType();
    const field = root?.getFields()[first.name.value];
    if (!field) throw new Error(`Route ${route.operationId}: unknown root field ${first.name.value}`);
    const segments = route.path
      .split('/')
      .slice(1)
      .map((part): Segment => (part.startsWith(':') ? { parameter: part.slice(1) } : { literal: part }));
    const template = route.path.replace(/:([A-Za-z]+)/g, '{$1}');
    const queryTypes = Object.fromEntries(
      (route.query ?? []).map((name) => {
        const definition = operation.variableDefinitions?.find((d) => d.variable.name.value === name);
        if (!definition) throw new Error(`Route ${route.operationId}: no variable $${name}`);
        const named = definition.type.kind === Kind.NON_NULL_TYPE ? definition.type.type : definition.type;
        return [
          name,
          named.kind === Kind.NAMED_TYPE && named.name.value === 'Int' ? 'int' : 'string',
        ] as const;
      }),
    );
    return {
      ...route,
      segments,
      parsed,
      operation,
      rootField: first.name.value,
      rootSelection: first,
      field,
      queryTypes,
      template,
    };
  });
}

/** The route's path parameters when `parts` (a path split at `/`, without the leading empty part) fit it. */
function matchPath(route: CompiledRoute, parts: string[]): Record<string, string> | null {
  const { segments } = route;
  if (segments.length !== parts.length) return null;
  let params: Record<string, string> | null = null;
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    if ('literal' in segment) {
      if (segment.literal !== parts[i]) return null;
    } else {
      if (parts[i] === '') return null;
      params ??= {};
      params[segment.parameter] = parts[i]!;
    }
  }
  return params ?? {};
}

function queryVariables(search: string, declared: CompiledRoute['queryTypes']): Record<string, unknown> {
  const variables: Record<string, unknown> = {};
  if (search === '') return variables;
  const query = new URLSearchParams(search);
  for (const name in declared) {
    const values = query.getAll(name);
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

async function bodyVariable(request: RestRequest): Promise<Record<string, unknown>> {
  const mediaType = request.header('content-type')?.split(';')[0]?.trim().toLowerCase();
  if (mediaType !== 'application/json')
    throw new RequestProblem('unsupportedMediaType', 'The request body must be application/json');
  const bytes = await request.body();
  if (bytes === null)
    throw new RequestProblem(
      'payloadTooLarge',
      `The request body is larger than ${BODY_LIMIT_BYTES / 1024} KiB`,
      [],
      { Connection: 'close' },
    );
  const parsed = parseJsonBody(bytes);
  if (!parsed.ok) throw new RequestProblem('validation', parsed.detail, [parsed.issue]);
  const body = parsed.value;
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new RequestProblem('validation', 'The request body must be a JSON object', [
      { path: '', message: 'must be a JSON object' },
    ]);
  return body as Record<string, unknown>;
}

/** The GraphQL variable a route's JSON body becomes (`body: true`). */
export const BODY_VARIABLE = 'input';
const BODY_FIELD_PREFIX = new RegExp(`^${BODY_VARIABLE}\\.`);

/**
 * An error path as the REST client wrote it: the body is the `input` variable, so its fields are named
 * without it (`dates[1]`, not `input.dates[1]`), the inverse of how the body became that variable.
 */
const restPath = (path: string) => (path === BODY_VARIABLE ? '' : path.replace(BODY_FIELD_PREFIX, ''));

function problemFromErrors(errors: readonly GraphQLError[], logger: Logger): RestResponse {
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

export interface RestHandler {
  /** True when the path belongs to the route table (whatever the method). */
  owns(pathname: string): boolean;
  handle(request: RestRequest): Promise<RestResponse>;
}

/**
 * The REST adapter: matches a route, turns the request into GraphQL variables and executes the route's
 * operation (parsed and validated once, at start-up) through yoga's own envelop, so authentication,
 * validation, error masking and limits are exactly GraphQL's. It runs straight off node:http: no fetch
 * Request or Response is built. Known paths with another method get 405 (`Allow` naming the routes'
 * methods); HEAD answers as GET without the body, OPTIONS 204 with `Allow`.
 */
export function createRestHandler(
  yoga: YogaServerInstance<Record<string, unknown>, RequestContext>,
  routes: Route[],
  logger: Logger,
  compiledReads?: CompiledRunner,
): RestHandler {
  const { schema } = yoga.getEnveloped();
  const compiled = compileRoutes(schema, routes);
  // The reads' documents compiled to JavaScript (graphql-jit), once: no per-request walk of the document.
  const jitted = new Map<CompiledRoute, CompiledQuery>();
  if (compiledReads)
    for (const route of compiled) {
      if (route.operation.operation !== 'query') continue;
      const query = compileQuery(schema, route.parsed, route.operationId);
      if (isCompiledQuery(query)) jitted.set(route, query);
    }
  const byFirstSegment = new Map<string, CompiledRoute[]>();
  for (const route of compiled) {
    const head = route.segments[0];
    const first = head && 'literal' in head ? head.literal : '';
    byFirstSegment.set(first, [...(byFirstSegment.get(first) ?? []), route]);
  }

  const matching = (pathname: string) => {
    const parts = pathname.split('/').slice(1);
    const found: { route: CompiledRoute; params: Record<string, string> }[] = [];
    for (const route of byFirstSegment.get(parts[0] ?? '') ?? []) {
      const params = matchPath(route, parts);
      if (params) found.push({ route, params });
    }
    return found;
  };

  async function run(
    request: RestRequest,
    route: CompiledRoute,
    params: Record<string, string>,
    method: string,
  ): Promise<RestResponse> {
    const variables: Record<string, unknown> = {
      ...params,
      ...queryVariables(request.search, route.queryTypes),
    };
    for (const name in route.headers) {
      const value = request.header(route.headers[name]!);
      if (value !== null) variables[name] = value;
    }
    if (route.body) variables[BODY_VARIABLE] = await bodyVariable(request);

    const jit = compiledReads && !tracing.enabled ? jitted.get(route) : undefined;
    let prepared: RequestContext | undefined;
    if (jit) {
      const contextValue = await compiledReads!.context(request);
      prepared = contextValue;
      const refused = gateRefusal(schema, route.operation, contextValue);
      if (refused) return problemFromErrors([refused], logger);
      const result = await compiledReads!.execute(jit, route.operationId, contextValue, variables);
      if (result === null) return problem('unavailable', TOOK_TOO_LONG, [], { 'Retry-After': '5' });
      // Any error is answered as the interpreted path answers it: a read can simply run again there.
      if (!result.errors?.length) return respond(request, route, variables, result, method);
    }

    // Credentials already checked on the compiled path are not checked again.
    const { execute, contextFactory } = yoga.getEnveloped({
      rest: request,
      prepared,
      params: { query: route.document, variables, operationName: route.operationId },
    });
    const contextValue = await contextFactory();
    request.observation.account = (contextValue as unknown as RequestContext).principal?.name;
    const result = (await execute({
      schema,
      document: route.parsed,
      contextValue,
      variableValues: variables,
      operationName: route.operationId,
    })) as ExecutionResult;

    if (result.errors?.length) return problemFromErrors(result.errors, logger);
    return respond(request, route, variables, result, method);
  }

  /** The success answer: the root field's value as JSON (or rendered), with its status and headers. */
  async function respond(
    request: RestRequest,
    route: CompiledRoute,
    variables: Record<string, unknown>,
    result: ExecutionResult,
    method: string,
  ): Promise<RestResponse> {
    let value = (result.data as Record<string, unknown>)[route.rootField];
    if (value === null || value === undefined) return problem('notFound', route.notFound ?? 'Not found');
    const cacheControl = route.cacheControl ?? (method === 'GET' ? 'private, no-cache' : 'no-store');
    if (route.status === 204) return { status: 204, headers: { 'Cache-Control': cacheControl }, body: null };
    // A read carries a validator; a client that already holds this representation gets 304 and no body.
    // What a read says depends on whose credentials came with it (a visitor sees only its own tickets).
    const validated = (response: RestResponse, tag: string): RestResponse => {
      if (method !== 'GET' && !route.etag) return response;
      response.headers.ETag = tag;
      if (method !== 'GET') return response;
      response.headers.Vary = 'Authorization';
      if (!noneMatch(request.header('if-none-match'), tag)) return response;
      return {
        status: 304,
        headers: { ETag: tag, 'Cache-Control': cacheControl, Vary: 'Authorization' },
        body: null,
      };
    };
    if (route.produces) {
      const content = await route.produces.render(value as Record<string, unknown>);
      const headers = { 'Content-Type': route.produces.contentType, 'Cache-Control': cacheControl };
      return validated({ status: route.status, headers, body: content }, entityTag(content));
    }
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
      Object.assign(headers, pagingHeaders(route, request, variables, items as unknown[], total));
    }
    const body = JSON.stringify(withoutNulls(items));
    // A list's total is part of what it says (X-Total-Count, Link): it goes into the tag too.
    const tag = versionTag ?? entityTag(body, headers['X-Total-Count'] ?? '');
    return validated({ status: route.status, headers, body }, tag);
  }

  return {
    owns: (pathname) => matching(pathname).length > 0,

    async handle(request) {
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
        if (error instanceof RequestProblem)
          return problem(error.kind, error.message, error.issues, error.headers);
        // A failure yoga already turned into a coded error (its context factory masks what it throws).
        if (error instanceof GraphQLError && kindOfCode(error.extensions.code))
          return problemFromErrors([error], logger);
        if (isDatabaseUnreachable(error))
          return problem('unavailable', 'The database is unreachable; try again shortly', [], {
            'Retry-After': '5',
          });
        logger.error('REST request failed', {
          error: error instanceof Error ? error.message : String(error),
        });
        return problem('internal', 'Internal server error');
      }
    },
  };
}

/**
 * RFC 8288 links: `first`; `prev` to a page that has items (past the end, the last page that has some);
 * `next` while more follow; `last` and `X-Total-Count` when the operation counted the total.
 */
function pagingHeaders(
  route: Route,
  request: RestRequest,
  variables: Record<string, unknown>,
  items: unknown[],
  total: unknown,
) {
  const { page, limit } = pageOf(variables as { page?: number; limit?: number });
  // Only the route's own parameters are carried over: a link never repeats whatever else the URL held.
  const kept = [...new URLSearchParams(request.search)].filter(([name]) => route.query?.includes(name));
  const link = (rel: string, target: number) => {
    const query = new URLSearchParams(kept);
    query.set('page', String(target));
    query.set('limit', String(limit));
    return `<${request.pathname}?${query}>; rel="${rel}"`;
  };
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
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key in value) {
      const item = (value as Record<string, unknown>)[key];
      if (item !== null) out[key] = withoutNulls(item);
    }
    return out;
  }
  return value;
}
