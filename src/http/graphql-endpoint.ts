import { type ExecutionResult, GraphQLError } from 'graphql';
import Negotiator from 'negotiator';
import { ERROR_KINDS, type ErrorKind, type FieldIssue } from '../common/errors.ts';
import type { Engine } from '../graphql/engine.ts';
import { type Operation, operationSource, requestError } from '../graphql/operations.ts';
import { entityTag, noneMatch } from '../protocol/conditional.ts';
import { callerOf, type HttpAnswer, type HttpRequest, readJsonBody } from '../protocol/request.ts';

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

const notAcceptable = () => graphqlRefusal('notAcceptable', ERROR_KINDS.notAcceptable.documented.detail);

type JsonType = 'application/json' | 'application/graphql-response+json';
type StreamType = 'text/event-stream' | 'multipart/mixed';

// Each type as a client may name it: with UTF-8 (any other charset is refused), and Apollo Client's @defer.
const JSON_OFFERS = ['application/json', 'application/graphql-response+json'].flatMap((type) => [
  type,
  `${type};charset=utf-8`,
]);
const STREAM_OFFERS = [
  'text/event-stream',
  'text/event-stream;charset=utf-8',
  'multipart/mixed',
  'multipart/mixed;charset=utf-8',
  'multipart/mixed;deferSpec=20220824',
];
const baseType = (offer: string | undefined) => offer?.split(';')[0];

/** What an Accept header allows: a JSON media type for a single result, a stream type for parts (or none). */
interface Negotiation {
  json: JsonType | null;
  /** Only a type the client names: `*\/*` is answered in JSON, with @defer and @stream ignored. */
  stream: StreamType | null;
}

function negotiate(accept: string | null): Negotiation {
  const negotiator = new Negotiator({ headers: { accept: accept || '*/*' } });
  const named = new Set(negotiator.mediaTypes());
  const stream = negotiator
    .mediaTypes(STREAM_OFFERS)
    .map(baseType)
    .find((type) => named.has(type!)) as StreamType | undefined;
  return { json: (baseType(negotiator.mediaType(JSON_OFFERS)) as JsonType) ?? null, stream: stream ?? null };
}

export interface GraphQLEndpointOptions {
  engine: Engine;
  /** GraphiQL for a browser that opens the endpoint; absent when GRAPHIQL=false. */
  graphiql?: (request: HttpRequest) => Promise<HttpAnswer>;
  /** How often a server-sent event stream says it is alive (a comment) while nothing else comes. */
  keepAliveMs: number;
}

/**
 * GraphQL over HTTP at /graphql, the one lane for every request to it: a query or mutation (POST with a JSON
 * body, or GET), a subscription or an incremental delivery (@defer, @stream) over server-sent events or
 * multipart/mixed. The parameters become an operation for the engine (src/graphql/engine.ts); its result
 * is answered as the GraphQL-over-HTTP spec and yoga answer it (media type, status, error body): a single
 * result as JSON when the client accepts JSON, else as the one part of the stream type it names; a stream
 * in the stream type. A browser gets GraphiQL.
 */
export function graphqlEndpoint(
  options: GraphQLEndpointOptions,
): (request: HttpRequest) => Promise<HttpAnswer> {
  const { engine, graphiql } = options;
  return async (request) => {
    const { method } = request;
    if (method === 'OPTIONS') return { status: 204, headers: { Allow: 'GET, POST, OPTIONS' }, body: null };
    const accept = request.header('accept');
    if (graphiql && (method === 'GET' || method === 'HEAD') && accept?.includes('text/html'))
      return graphiql(request);
    if (method !== 'GET' && method !== 'POST')
      return graphqlRefusal('methodNotAllowed', ERROR_KINDS.methodNotAllowed.title, [], {
        Allow: 'GET, POST',
      });
    const accepted = negotiate(accept);
    if (!accepted.json && !accepted.stream) return notAcceptable();
    const answer = (result: ExecutionResult) =>
      accepted.json
        ? jsonAnswer(result, accepted.json, request)
        : singleStreamed(result, accepted.stream!, options.keepAliveMs);

    const read = method === 'POST' ? await bodyParams(request) : queryParams(request.search);
    if (read instanceof GraphQLError) return answer({ errors: [read] });
    if (!('params' in read)) return read;
    const source = operationSource(read.params, engine.documentIds);
    if (source instanceof GraphQLError) return answer({ errors: [source] });
    const operation: Operation = {
      ...source,
      method,
      caller: callerOf(request),
      observation: request.observation,
    };
    if (accepted.stream) {
      operation.incremental = true;
      operation.signal = request.signal;
    }
    const result = await engine.run(operation);
    if (Symbol.asyncIterator in result) {
      if (accepted.stream) return streamAnswer(accepted.stream, result, 200, options.keepAliveMs);
      // A subscription asked for with a JSON Accept only: nothing to stream it in.
      void result[Symbol.asyncIterator]().return?.();
      return notAcceptable();
    }
    return answer(result);
  };
}

/** A POST's parameters: its JSON body, which must be one object (no batching). */
async function bodyParams(request: HttpRequest): Promise<Params | GraphQLError | HttpAnswer> {
  const body = await readJsonBody(request, 'A GraphQL request body');
  if (!body.ok) return graphqlRefusal(body.kind, body.detail, body.issues, body.headers);
  if (Array.isArray(body.value)) return requestError('Batching is not supported.', 400);
  if (typeof body.value !== 'object' || body.value === null) {
    const given = body.value === null ? 'null' : typeof body.value;
    return requestError(`Expected params to be an object but given ${given}.`, 400);
  }
  return { params: body.value as Record<string, unknown> };
}

interface Params {
  params: Record<string, unknown>;
}

/** GraphQL over HTTP's parameters from a GET's query string; `variables` and `extensions` are JSON. */
function queryParams(search: string): Params | GraphQLError {
  const query = new URLSearchParams(search);
  const params: Record<string, unknown> = {
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
      return requestError(`The "${name}" parameter is not valid JSON`, 400);
    }
  }
  return { params };
}

/** A single result for a client that accepts no JSON type: the one part of the stream type it named. */
function singleStreamed(result: ExecutionResult, type: StreamType, keepAliveMs: number): HttpAnswer {
  const { status, headers } = statusOf(result, type === 'text/event-stream');
  const streamed = streamAnswer(type, result, status, keepAliveMs);
  Object.assign(streamed.headers, headers);
  return streamed;
}

/** A single result as JSON; a GET that succeeded is a read with an ETag. */
function jsonAnswer(result: ExecutionResult, mediaType: JsonType, request: HttpRequest): HttpAnswer {
  // application/json clients get 200 for errors that GraphQL over HTTP lets a server answer with 200.
  const lenient = mediaType === 'application/json' && (result.errors?.length ?? 0) > 0;
  const { status, headers } = statusOf(result, lenient);
  headers['Content-Type'] = `${mediaType}; charset=utf-8`;
  const body = JSON.stringify(withoutInternals(result));
  if (request.method !== 'GET' || status !== 200) {
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

/**
 * A result in parts, written as they come: server-sent events (GraphQL over SSE's distinct connections mode,
 * `next` events and a `complete`, with a comment to begin and every `keepAliveMs` while nothing comes, so
 * that proxies keep the connection), or multipart/mixed with the boundary `-` (as Apollo Client and Relay
 * read @defer). The client going away ends the stream's source (the request's signal).
 */
function streamAnswer(
  type: StreamType,
  result: ExecutionResult | AsyncIterable<ExecutionResult>,
  status: number,
  keepAliveMs: number,
): HttpAnswer {
  const parts = Symbol.asyncIterator in result ? result : single(result);
  if (type === 'text/event-stream')
    return {
      status,
      headers: { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' },
      body: serverSentEvents(parts, keepAliveMs),
    };
  return {
    status,
    headers: { 'Content-Type': 'multipart/mixed; boundary="-"', 'Cache-Control': 'no-store' },
    body: multipartParts(parts),
  };
}

async function* single(result: ExecutionResult) {
  yield result;
}

async function* serverSentEvents(parts: AsyncIterable<ExecutionResult>, keepAliveMs: number) {
  yield ':\n\n';
  const iterator = parts[Symbol.asyncIterator]();
  let timer: Parameters<typeof clearTimeout>[0];
  try {
    for (;;) {
      const next = iterator.next();
      let step: IteratorResult<ExecutionResult> | undefined;
      for (;;) {
        const pinged = new Promise<undefined>((resolve) => {
          timer = setTimeout(resolve, keepAliveMs);
        });
        step = await Promise.race([next, pinged]);
        clearTimeout(timer);
        if (step) break;
        yield ':\n\n';
      }
      if (step.done) break;
      yield `event: next\ndata: ${JSON.stringify(withoutInternals(step.value))}\n\n`;
    }
    yield 'event: complete\ndata:\n\n';
  } finally {
    clearTimeout(timer);
    await iterator.return?.();
  }
}

async function* multipartParts(parts: AsyncIterable<ExecutionResult>) {
  yield '\r\n---';
  for await (const part of parts) {
    const json = JSON.stringify(withoutInternals(part));
    yield `\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(json)}\r\n\r\n${json}\r\n---`;
  }
  yield '--\r\n';
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
function withoutInternals({ errors, data, extensions, ...rest }: ExecutionResult): ExecutionResult {
  if (!errors?.length) return extensions ? { data, ...rest, extensions } : { data, ...rest };
  const shown = errors.map((error) => {
    const json = error.toJSON();
    if (!json.extensions) return json;
    const { http: _http, unexpected: _unexpected, ...kept } = json.extensions;
    return { ...json, extensions: Object.keys(kept).length > 0 ? kept : undefined };
  });
  return { errors: shown as never, data, ...rest, ...(extensions ? { extensions } : {}) };
}
