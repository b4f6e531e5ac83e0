import { type ExecutionResult, GraphQLError } from 'graphql';
import type { YogaServerInstance } from 'graphql-yoga';
import { ERROR_KINDS, type ErrorKind, type FieldIssue } from '../common/errors.ts';
import type { RequestContext } from '../context.ts';
import { type OperationParams, type RunOperation, requestError } from '../graphql/operations.ts';
import { entityTag, noneMatch } from '../protocol/conditional.ts';
import { type HttpAnswer, type HttpRequest, readJsonBody } from '../protocol/request.ts';

const JSON_HEADERS = { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' };

/** An edge refusal on /graphql: a GraphQL error with the kind's status and code. */
export function graphqlRefusal(
  kind: ErrorKind,
  detail: string,
  issues: FieldIssue[] = [],
  headers: Record<string, string> = {},
): HttpAnswer {
  const { code, status } = ERROR_KINDS[kind];
  const extensions = kind === 'validation' ? { code, errors: issues } : { code };
  return {
    status,
    headers: { ...JSON_HEADERS, ...headers },
    body: JSON.stringify({ errors: [{ message: detail, extensions }] }),
  };
}

const REGULAR_TYPES = ['application/graphql-response+json', 'application/json'] as const;
type RegularType = (typeof REGULAR_TYPES)[number];

/** Accept's media types, utf-8 only, last first: yoga's reading of the header, whose last match wins. */
function acceptedTypes(accept: string | null): string[] {
  const types: string[] = [];
  for (const entry of (accept || '*/*').replace(/\s/g, '').toLowerCase().split(',')) {
    const [mediaType = '', ...params] = entry.split(';');
    const charset = params.find((param) => param.includes('charset=')) ?? 'charset=utf-8';
    if (charset === 'charset=utf-8') types.push(mediaType);
  }
  return types.reverse();
}

const matching = (asked: string, offered: string) => {
  const [askedType, askedSub] = asked.split('/');
  const [type, sub] = offered.split('/');
  return (type === '*' || type === askedType) && (sub === '*' || sub === askedSub);
};

/** The JSON media type to answer a single result with, as yoga chooses it; null: none is acceptable. */
function regularType(accepted: string[]): RegularType | null {
  let chosen: RegularType | null = null;
  for (const asked of accepted)
    for (const offered of REGULAR_TYPES) if (matching(offered, asked)) chosen = offered;
  return chosen;
}

/** Whether the client accepts a stream (server-sent events, multipart): yoga's to answer. */
const wantsStream = (accepted: string[]) =>
  accepted.some((type) => type === 'text/event-stream' || type === 'multipart/mixed');

/** What an Accept header asks for: a stream (yoga's), or the JSON media type to answer with (null: none). */
interface Negotiation {
  stream: boolean;
  mediaType: RegularType | null;
}

function negotiate(accept: string | null): Negotiation {
  const accepted = acceptedTypes(accept);
  return { stream: wantsStream(accepted), mediaType: regularType(accepted) };
}

export interface GraphQLEndpointOptions {
  yoga: YogaServerInstance<Record<string, unknown>, RequestContext>;
  runOperation: RunOperation;
  /** GraphiQL for a browser that opens the endpoint; absent when GRAPHIQL=false. */
  graphiql?: (request: HttpRequest) => Promise<HttpAnswer>;
}

/**
 * GraphQL over HTTP at /graphql. A query or mutation (POST with a JSON body, or GET) is run by the one
 * operation path and answered here as the GraphQL-over-HTTP spec and yoga answer it (media type, status,
 * error body); a request that accepts a stream (a subscription over server-sent events) is yoga's, which
 * runs it through the same operation path; a browser gets GraphiQL.
 */
export function graphqlEndpoint(
  options: GraphQLEndpointOptions,
): (request: HttpRequest) => Promise<HttpAnswer> {
  const { runOperation, graphiql } = options;
  return async (request) => {
    const { method } = request;
    if (method === 'OPTIONS') return { status: 204, headers: { Allow: 'GET, POST, OPTIONS' }, body: null };
    const accept = request.header('accept');
    if (graphiql && (method === 'GET' || method === 'HEAD') && accept?.includes('text/html'))
      return graphiql(request);
    const accepted = negotiate(accept);
    if (accepted.stream || (method !== 'GET' && method !== 'POST')) return streamed(options.yoga, request);

    let params: OperationParams;
    if (method === 'POST') {
      const body = await readJsonBody(request, 'A GraphQL request body');
      if (!body.ok) return graphqlRefusal(body.kind, body.detail, body.issues, body.headers);
      if (Array.isArray(body.value))
        return answer({ errors: [requestError('Batching is not supported.', 400)] }, accepted, method);
      if (typeof body.value !== 'object' || body.value === null) {
        const given = body.value === null ? 'null' : typeof body.value;
        const refused = requestError(`Expected params to be an object but given ${given}.`, 400);
        return answer({ errors: [refused] }, accepted, method);
      }
      params = body.value as OperationParams;
    } else {
      const fromUrl = paramsOf(request.search);
      if ('error' in fromUrl) return answer({ errors: [fromUrl.error] }, accepted, method);
      params = fromUrl.params;
    }
    const result = await runOperation(request, params);
    if (Symbol.asyncIterator in result) {
      // A subscription asked for with a JSON Accept: nothing to stream it in.
      void result[Symbol.asyncIterator]().return?.();
      return graphqlRefusal('notAcceptable', ERROR_KINDS.notAcceptable.documented.detail);
    }
    return answer(result, accepted, method, request);
  };
}

/** A single result as GraphQL over HTTP answers it; a GET that succeeded is a read with an ETag. */
function answer(
  result: ExecutionResult,
  { mediaType }: Negotiation,
  method: string,
  request?: HttpRequest,
): HttpAnswer {
  if (!mediaType) return graphqlRefusal('notAcceptable', ERROR_KINDS.notAcceptable.documented.detail);
  // application/json clients get 200 for errors that GraphQL over HTTP lets a server answer with 200.
  const lenient = mediaType === 'application/json' && (result.errors?.length ?? 0) > 0;
  const { status, headers } = statusOf(result, lenient);
  headers['Content-Type'] = `${mediaType}; charset=utf-8`;
  const body = JSON.stringify(withoutInternals(result));
  if (method !== 'GET' || status !== 200 || !request) {
    headers['Cache-Control'] ??= 'no-store';
    return { status, headers, body };
  }
  // A query over GET (a trusted document, typically) is a read like REST's: it may be revalidated.
  const tag = entityTag(body);
  Object.assign(headers, { ETag: tag, 'Cache-Control': 'private, no-cache', Vary: 'Authorization' });
  if (noneMatch(request.header('if-none-match'), tag)) {
    delete headers['Content-Type'];
    return { status: 304, headers, body: null };
  }
  return { status, headers, body };
}

interface HttpExtension {
  status?: number;
  headers?: Record<string, string>;
  spec?: boolean;
}

/**
 * The status and headers the errors ask for (yoga's rule): the highest `http.status` among them (a
 * spec-level error, such as a validation failure, does not raise it for application/json clients); an
 * unexpected error with no data is 500; otherwise 200.
 */
function statusOf(result: ExecutionResult, lenient: boolean) {
  const headers: Record<string, string> = {};
  let status: number | undefined;
  let unexpected = false;
  for (const error of result.errors ?? []) {
    const http = error.extensions?.http as HttpExtension | undefined;
    if (http) {
      if (http.headers) Object.assign(headers, http.headers);
      if (lenient && http.spec) continue;
      if (http.status && (!status || http.status > status)) status = http.status;
    } else if (!isOriginalGraphQLError(error) || error.extensions?.unexpected) unexpected = true;
  }
  return { status: status ?? (unexpected && !('data' in result) ? 500 : 200), headers };
}

const isOriginalGraphQLError = (error: unknown): boolean =>
  error instanceof GraphQLError &&
  (error.originalError == null || isOriginalGraphQLError(error.originalError));

/**
 * The result as the client reads it: errors first (however the run ordered its fields), and without the
 * extensions that only steer the answer (`http`, `unexpected`).
 */
function withoutInternals({ errors, data, extensions }: ExecutionResult): ExecutionResult {
  if (!errors?.length) return extensions ? { data, extensions } : { data };
  const shown = errors.map((error) => {
    const json = error.toJSON();
    if (!json.extensions) return json;
    const { http: _http, unexpected: _unexpected, ...rest } = json.extensions;
    return { ...json, extensions: Object.keys(rest).length > 0 ? rest : undefined };
  });
  return { errors: shown as never, data, ...(extensions ? { extensions } : {}) };
}

/** GraphQL over HTTP's parameters from a GET's query string; `variables` and `extensions` are JSON. */
function paramsOf(search: string): { params: OperationParams } | { error: GraphQLError } {
  const query = new URLSearchParams(search);
  const params: OperationParams = {
    query: query.get('query') || undefined,
    operationName: query.get('operationName') || undefined,
  };
  const documentId = query.get('documentId');
  if (documentId) params.documentId = documentId;
  for (const name of ['variables', 'extensions'] as const) {
    const text = query.get(name);
    if (!text) continue;
    try {
      params[name] = JSON.parse(text);
    } catch {
      return { error: requestError(`The "${name}" parameter is not valid JSON`, 400) };
    }
  }
  return { params };
}

/** Yoga answers what may stream (a subscription over server-sent events), running it on the same path. */
async function streamed(yoga: GraphQLEndpointOptions['yoga'], request: HttpRequest): Promise<HttpAnswer> {
  let body: Uint8Array | undefined;
  if (request.method === 'POST') {
    const read = await readJsonBody(request, 'A GraphQL request body');
    if (!read.ok) return graphqlRefusal(read.kind, read.detail, read.issues, read.headers);
    body = new TextEncoder().encode(JSON.stringify(read.value));
  }
  const forwarded = new yoga.fetchAPI.Request(request.url, {
    method: request.method,
    headers: headersOf(request),
    body: body as BodyInit | undefined,
    signal: request.signal,
  });
  const response = await yoga.handleRequest(forwarded, { transport: request } as never);
  const headers: Record<string, string> = {};
  response.headers.forEach((value: string, name: string) => {
    headers[name] = value;
  });
  return { status: response.status, headers, body: response.body as HttpAnswer['body'] };
}

const FORWARDED_HEADERS = [
  'accept',
  'content-type',
  'authorization',
  'origin',
  'sec-fetch-site',
  'sec-fetch-dest',
];

function headersOf(request: HttpRequest): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of FORWARDED_HEADERS) {
    const value = request.header(name);
    if (value !== null) headers[name] = value;
  }
  return headers;
}
