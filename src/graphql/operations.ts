import type { GetEnvelopedFn } from '@envelop/core';
import {
  type DocumentNode,
  type ExecutionResult,
  GraphQLError,
  getOperationAST,
  type OperationDefinitionNode,
} from 'graphql';
import type { RequestContext } from '../context.ts';
import type { HttpRequest } from '../protocol/request.ts';
import { releaseRequestCaches } from './builder.ts';
import { withoutAddressesShown } from './errors.ts';
import type { OperationContext } from './plugins/operation-context.ts';
import type { TrustedDocuments } from './trusted-documents.ts';

/** What a transport asks to run: GraphQL over HTTP's parameters (or a trusted document's id). */
export type OperationParams = Record<string, unknown>;

/** A query's or mutation's result, or a subscription's stream of them. */
export type OperationResult = ExecutionResult | AsyncIterable<ExecutionResult>;

export interface RunOptions {
  /** The HTTP method the operation counts as (a REST route's; HEAD is a GET): no mutation over GET. */
  method?: string;
  /**
   * The service's own document, parsed and validated at start-up (a REST route's, src/rest/compiled-routes.ts):
   * trusted whatever MUSEUM_TRUSTED_DOCUMENTS_ONLY says, and run as yoga's SOFA plugin runs its documents,
   * through the engine's context and execution without being parsed or validated again.
   */
  document?: DocumentNode;
  /**
   * The transport can deliver a result in parts (multipart/mixed, server-sent events, WebSocket): @defer and
   * @stream are honoured. Otherwise they are ignored and the whole result comes at once.
   */
  incremental?: boolean;
}

/** Runs one operation for a request; never throws: every failure is a result with (masked) errors. */
export type RunOperation = (
  request: HttpRequest,
  params: OperationParams,
  options?: RunOptions,
) => Promise<OperationResult>;

export interface OperationRunnerOptions {
  /**
   * The engine: yoga's enveloped execution (parse, validate, context, execute, subscribe through its
   * plugins, src/graphql/plugins/ among them).
   */
  getEnveloped: GetEnvelopedFn<OperationContext>;
  /** The request's context: its credentials checked (src/context.ts). */
  /** `type`: the operation's, so that a mutation's reads can all go to the primary (src/db/replicas.ts). */
  contextOf(
    request: HttpRequest,
    type: OperationDefinitionNode['operation'],
  ): RequestContext | Promise<RequestContext>;
  /** The error mask (src/graphql/errors.ts): what a client may see of an error raised before execution. */
  mask: (error: unknown) => Error;
  /** Refuses a document over the token limit before it is parsed (src/graphql/query-limits.ts). */
  tokenCheck: (query: string) => GraphQLError | null;
  trustedDocuments: TrustedDocuments | null;
}

const EXPECTED_PARAMS = new Set(['query', 'variables', 'operationName', 'extensions']);

/** A refusal of the request itself (its shape, not its operation), with its status. */
export const requestError = (
  message: string,
  status: number,
  code = 'BAD_REQUEST',
  headers?: Record<string, string>,
) => new GraphQLError(message, { extensions: { code, http: { status, ...(headers ? { headers } : {}) } } });

/** The hash Apollo Client's persisted-query link sends in place of the document (`extensions.persistedQuery`). */
function persistedQueryHash(extensions: unknown): unknown {
  if (typeof extensions !== 'object' || extensions === null) return undefined;
  const persisted = (extensions as { persistedQuery?: { sha256Hash?: unknown } }).persistedQuery;
  return typeof persisted === 'object' && persisted !== null ? persisted.sha256Hash : undefined;
}

const typeOf = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);

/**
 * The one way to run an operation, whatever brought it: a REST route, a GraphQL POST or GET, a trusted
 * document, a subscription over server-sent events or WebSocket. It reads what GraphQL over HTTP's parameters
 * say (yoga's messages; a trusted document's id made its text; the token limit) and hands the operation to
 * the engine, yoga's enveloped execution, whose plugins apply each rule once for every transport
 * (src/graphql/plugins/): the prepared document (parsed, validated with the limits, compiled from its second
 * run; a REST route's is parsed and validated at start-up, as SOFA's are), the auth gate and the
 * trusted-documents rule, the deadline, span and metric, the error mask. No mutation over GET; the
 * per-request caches are released when it ends.
 */
export function operationRunner(options: OperationRunnerOptions): RunOperation {
  const { getEnveloped, mask, tokenCheck, trustedDocuments } = options;
  /** The document's text and whether it is trusted, from the parameters; throws a refusal. */
  function sourceOf(params: OperationParams): { query: string; trusted: boolean } {
    const { query } = params;
    // Relay and Codegen's clients send `documentId`; Apollo Client's persisted-query link, the hash alone.
    const documentId = params.documentId ?? persistedQueryHash(params.extensions);
    if (query == null && documentId != null && trustedDocuments) {
      if (typeof documentId !== 'string') throw requestError('documentId must be a string', 400);
      const document = trustedDocuments.get(documentId.replace(/^sha256:/, ''));
      if (!document)
        throw requestError(
          'Unknown documentId: it names none of the trusted documents',
          400,
          'PERSISTED_QUERY_NOT_FOUND',
        );
      return { query: document, trusted: true };
    }
    for (const name in params) {
      if (params[name] == null || EXPECTED_PARAMS.has(name)) continue;
      if (name === 'documentId' && trustedDocuments) continue;
      throw requestError(`Unexpected parameter "${name}" in the request body.`, 400);
    }
    if (query == null) {
      if (trustedDocuments) throw requestError('Send a query, or the documentId of a trusted document', 400);
      const error = requestError('Must provide query string.', 400, 'BAD_REQUEST', { Allow: 'GET, POST' });
      Object.assign(error.extensions.http as object, { spec: true });
      throw error;
    }
    if (typeof query !== 'string')
      throw requestError(
        `Expected "query" param to be a string, but given ${typeOf(query)}.`,
        400,
        'BAD_REQUEST',
        {
          Allow: 'GET, POST',
        },
      );
    for (const name of ['variables', 'extensions'] as const)
      if (!['object', 'null', 'undefined'].includes(typeOf(params[name])))
        throw requestError(
          `Expected "${name}" param to be empty or an object, but given ${typeOf(params[name])}.`,
          400,
          'BAD_REQUEST',
          { Allow: 'GET, POST' },
        );
    return { query, trusted: false };
  }

  return async (
    transport,
    params,
    { method = transport.method, incremental = false, document: prepared } = {},
  ) => {
    let context: OperationContext | undefined;
    try {
      // A client's parameters are checked here; a REST route's document was checked at start-up.
      const source = prepared ? { document: prepared, trusted: true } : sourceOf(params);
      if ('query' in source) {
        const tooLong = tokenCheck(source.query);
        if (tooLong) return { errors: [tooLong] };
      }
      const engine = getEnveloped({ trustedDocument: source.trusted, incremental } as OperationContext);
      const document = 'query' in source ? engine.parse(source.query) : source.document;
      const operationName = (params.operationName as string | null | undefined) ?? undefined;
      const operation = getOperationAST(document, operationName);
      if (!operation)
        throw requestError(
          'Could not determine what operation to execute.',
          400,
          'OPERATION_RESOLUTION_FAILURE',
        );
      if (operation.operation === 'mutation' && method === 'GET')
        throw requestError('Can only perform a mutation operation from a POST request.', 405, 'BAD_REQUEST', {
          Allow: 'POST',
        });
      if ('query' in source) {
        const invalid = engine.validate(engine.schema, document);
        if (invalid.length > 0) return { errors: invalid.map(withoutAddressesShown) };
      }
      const made = options.contextOf(transport, operation.operation);
      const built = engine.contextFactory(made instanceof Promise ? await made : made);
      context = built instanceof Promise ? await built : built;
      const args = {
        schema: engine.schema,
        document,
        contextValue: context,
        variableValues: (params.variables ?? {}) as Record<string, unknown>,
        operationName,
      };
      return (await (operation.operation === 'subscription'
        ? engine.subscribe(args)
        : engine.execute(args))) as OperationResult;
    } catch (error) {
      // A refusal of the parameters, a syntax error, a failure to build the context: masked like every error.
      return { errors: [withoutAddressesShown(mask(error) as GraphQLError)] };
    } finally {
      if (context) releaseRequestCaches(context);
    }
  };
}
