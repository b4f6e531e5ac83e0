import type { ExecutionResult, OperationDefinitionNode } from 'graphql';
import type { CompiledQuery } from 'graphql-jit';
import { TOOK_TOO_LONG, withDeadline } from '../common/deadline.ts';
import { ERROR_KINDS } from '../common/errors.ts';
import type { RequestContext } from '../context.ts';
import { releaseRequestCaches } from '../graphql/builder.ts';
import type { RestRequest, RestResponse } from '../rest/adapter.ts';

/** How many query documents are remembered, oldest forgotten first. */
const REMEMBERED_DOCUMENTS = 1_000;
/** Longer documents are not remembered: the clients that repeat a query send a short one. */
const REMEMBERED_LENGTH = 8 * 1024;

interface Known {
  query: CompiledQuery;
  operation: OperationDefinitionNode;
}

/** What a GraphQL POST's body holds once it is known to be a plain request for a remembered query. */
interface PlainRequest {
  known: Known;
  variables: Record<string, unknown>;
}

/** How a compiled query runs outside envelop — REST reads and the lane alike. */
export interface CompiledRunner {
  /** The request's context (its credentials checked), its account noted for the log line. */
  context(request: RestRequest): Promise<RequestContext>;
  /** Runs the query within the operation deadline and counts it in the metrics; null when time ran out. */
  execute(
    query: CompiledQuery,
    operationName: string | undefined,
    context: RequestContext,
    variables: Record<string, unknown>,
  ): Promise<ExecutionResult | null>;
}

export function createCompiledRunner(options: {
  context(request: RestRequest): Promise<RequestContext>;
  timeoutMs: number;
  onOperation?(operationName: string | undefined, seconds: number): void;
}): CompiledRunner {
  return {
    async context(request) {
      const context = await options.context(request);
      request.observation.account = context.principal?.name;
      return context;
    },
    async execute(query, operationName, context, variables) {
      const started = performance.now();
      try {
        const result = await withDeadline(
          Promise.resolve(query.query(undefined, context, variables)),
          options.timeoutMs,
        );
        if (result !== null) options.onOperation?.(operationName, (performance.now() - started) / 1000);
        return result;
      } finally {
        releaseRequestCaches(context);
      }
    },
  };
}

export interface CompiledGraphQLOptions {
  runner: CompiledRunner;
  /** The caller's verdict, as the auth gate gives it: true to go ahead. */
  admits(operation: OperationDefinitionNode, context: RequestContext): boolean;
}

/** The compiled lane's answer, or yoga's turn (with the context already made, so nothing runs twice). */
export type LaneOutcome = { answer: RestResponse } | { context?: RequestContext };

export interface CompiledGraphQL {
  /** Called by yoga's compiled-query plugin: a document that has passed parsing, validation and the limits. */
  remember(source: string, operationName: string | undefined, known: Known): void;
  /** Runs a GraphQL POST whose body is already parsed, when it asks for a remembered query. */
  run(request: RestRequest, body: unknown): Promise<LaneOutcome>;
}

/**
 * The GraphQL lane beside yoga for the requests front-ends send again and again: a POST of a query that
 * yoga has already parsed, validated (limits included) and compiled is run here, compiled, straight off
 * node:http — no fetch Request or Response and no envelop pipeline per request. The same context, auth
 * gate, deadline and metrics apply. Anything else, and any run that ends in an error, goes to yoga, which
 * answers it exactly as before (a query has no side effects to repeat).
 */
export function createCompiledGraphQL(options: CompiledGraphQLOptions): CompiledGraphQL {
  const known = new Map<string, Known>();
  const keyOf = (source: string, operationName: string | undefined) =>
    operationName ? `${operationName}\n${source}` : source;

  function plain(body: unknown): PlainRequest | null {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
    const { query, variables, operationName, extensions, ...rest } = body as Record<string, unknown>;
    if (typeof query !== 'string' || extensions != null) return null;
    for (const _ in rest) return null;
    if (operationName != null && typeof operationName !== 'string') return null;
    if (variables != null && (typeof variables !== 'object' || Array.isArray(variables))) return null;
    const found = known.get(keyOf(query, operationName ?? undefined));
    return found ? { known: found, variables: (variables ?? {}) as Record<string, unknown> } : null;
  }

  return {
    remember(source, operationName, entry) {
      if (source.length > REMEMBERED_LENGTH) return;
      const key = keyOf(source, operationName);
      if (known.has(key)) return;
      if (known.size >= REMEMBERED_DOCUMENTS) known.delete(known.keys().next().value!);
      known.set(key, entry);
    },

    async run(request, body) {
      const mediaType = responseType(request.header('accept'));
      if (!mediaType) return {};
      const found = plain(body);
      if (!found) return {};
      const context = await options.runner.context(request);
      const { query, operation } = found.known;
      if (!options.admits(operation, context)) return { context };
      const result = await options.runner.execute(query, operation.name?.value, context, found.variables);
      if (result === null) {
        const { code, status } = ERROR_KINDS.unavailable;
        return {
          answer: {
            status,
            headers: { 'Content-Type': mediaType, 'Cache-Control': 'no-store', 'Retry-After': '5' },
            body: JSON.stringify({ errors: [{ message: TOOK_TOO_LONG, extensions: { code } }] }),
          },
        };
      }
      if (result.errors?.length) return { context };
      // As yoga answers a POST (src/plugins/use-query-validators.ts): nobody keeps it.
      const headers = { 'Content-Type': mediaType, 'Cache-Control': 'no-store' };
      return { answer: { status: 200, headers, body: query.stringify(result) } };
    },
  };
}

const JSON_TYPE = 'application/json; charset=utf-8';
const GRAPHQL_RESPONSE_TYPE = 'application/graphql-response+json; charset=utf-8';

/**
 * The media type yoga would answer a plain query with, for the Accept headers front-ends send: none,
 * `*\/*`, or a list led by application/json or application/graphql-response+json (yoga takes the first it
 * serves). Anything else (weights, streams) is yoga's to negotiate: null.
 */
function responseType(accept: string | null): string | null {
  if (accept === null) return JSON_TYPE;
  if (accept.includes(';')) return null;
  const comma = accept.indexOf(',');
  const first = (comma === -1 ? accept : accept.slice(0, comma)).trim().toLowerCase();
  if (first === 'application/json' || first === '*/*') return JSON_TYPE;
  if (first === 'application/graphql-response+json') return GRAPHQL_RESPONSE_TYPE;
  return null;
}
