import type { DocumentNode, ExecutionResult } from 'graphql';
import { GraphQLError } from 'graphql';

/** Who asks: what every transport knows of its caller, whatever it came over. */
export interface Caller {
  /** The `Authorization` credentials (HTTP's header, or graphql-ws's connection_init), unchecked. */
  authorization: string | null;
  /** The client's address (src/protocol/client-address.ts): failed logins count against it. */
  address: string;
  /** The `Idempotency-Key` the caller sent with a purchase, unchecked. */
  idempotencyKey?: string | null;
}

/**
 * One operation, as any transport hands it to the engine: the document (its text, a trusted document's id,
 * or the service's own parsed document: a REST route's), its variables and name, and how it came.
 */
export interface Operation {
  query?: string;
  documentId?: string;
  /**
   * The service's own document, parsed and validated at start-up (a REST route's, src/rest/compiled-routes.ts):
   * trusted whatever MUSEUM_TRUSTED_DOCUMENTS_ONLY says, and run through the engine's context and execution
   * without being parsed or validated again, as yoga's SOFA plugin runs its documents.
   */
  document?: DocumentNode;
  variables?: Record<string, unknown>;
  operationName?: string;
  /** The method the operation counts as (a REST route's; HEAD is a GET): no mutation over GET. */
  method: string;
  caller: Caller;
  /** Ends when the caller goes away: a subscription's stream ends and gives its place back. */
  signal?: AbortSignal;
  /**
   * The transport can deliver a result in parts (multipart/mixed, server-sent events, WebSocket): @defer and
   * @stream are honoured. Otherwise they are ignored and the whole result comes at once.
   */
  incremental?: boolean;
  /** Filled in once the caller is known, for the transport's log line. */
  observation?: { account?: string };
}

/** A query's or mutation's result, or a subscription's (or an incremental delivery's) stream of them. */
export type OperationResult = ExecutionResult | AsyncIterable<ExecutionResult>;

/** Runs one operation; never throws: every failure is a result with (masked) errors. */
export type RunOperation = (operation: Operation) => Promise<OperationResult>;

/** A refusal of the request itself (its shape, not its operation), with its status. */
export const requestError = (
  message: string,
  status: number,
  code = 'BAD_REQUEST',
  headers?: Record<string, string>,
) => new GraphQLError(message, { extensions: { code, http: { status, ...(headers ? { headers } : {}) } } });

const EXPECTED_PARAMS = new Set(['query', 'variables', 'operationName', 'extensions']);

/** The hash Apollo Client's persisted-query link sends in place of the document (`extensions.persistedQuery`). */
function persistedQueryHash(extensions: unknown): unknown {
  if (typeof extensions !== 'object' || extensions === null) return undefined;
  const persisted = (extensions as { persistedQuery?: { sha256Hash?: unknown } }).persistedQuery;
  return typeof persisted === 'object' && persisted !== null ? persisted.sha256Hash : undefined;
}

const typeOf = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);

/** What a transport's parameters name of an operation. */
export type OperationSource = Pick<Operation, 'query' | 'documentId' | 'variables' | 'operationName'>;

/**
 * GraphQL over HTTP's parameters (a POST's body, a GET's query string, a graphql-ws subscribe payload) as an
 * operation, in yoga's words where a parameter is refused; `documentIds`: trusted documents are served, so
 * a `documentId` (or Apollo's persisted-query hash) may stand for the text.
 */
export function operationSource(
  params: Record<string, unknown>,
  documentIds: boolean,
): OperationSource | GraphQLError {
  const { query, operationName } = params;
  const allowOnly = { Allow: 'GET, POST' };
  const documentId = params.documentId ?? persistedQueryHash(params.extensions);
  if (query == null && documentId != null && documentIds) {
    if (typeof documentId !== 'string') return requestError('documentId must be a string', 400);
    return {
      documentId,
      variables: params.variables as OperationSource['variables'],
      ...named(operationName),
    };
  }
  for (const name in params) {
    if (params[name] == null || EXPECTED_PARAMS.has(name)) continue;
    if (name === 'documentId' && documentIds) continue;
    return requestError(`Unexpected parameter "${name}" in the request body.`, 400);
  }
  if (query == null) {
    if (documentIds) return requestError('Send a query, or the documentId of a trusted document', 400);
    const error = requestError('Must provide query string.', 400, 'BAD_REQUEST', allowOnly);
    Object.assign(error.extensions.http as object, { spec: true });
    return error;
  }
  if (typeof query !== 'string')
    return requestError(
      `Expected "query" param to be a string, but given ${typeOf(query)}.`,
      400,
      'BAD_REQUEST',
      allowOnly,
    );
  for (const name of ['variables', 'extensions'] as const)
    if (!['object', 'null', 'undefined'].includes(typeOf(params[name])))
      return requestError(
        `Expected "${name}" param to be empty or an object, but given ${typeOf(params[name])}.`,
        400,
        'BAD_REQUEST',
        allowOnly,
      );
  return { query, variables: params.variables as OperationSource['variables'], ...named(operationName) };
}

/** The operation's name as given (one that is not a string names no operation, and is refused as such). */
const named = (operationName: unknown) =>
  operationName == null ? {} : { operationName: operationName as string };
