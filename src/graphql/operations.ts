import { type ExecutionResult, GraphQLError, getOperationAST } from 'graphql';
import type { YogaServerInstance } from 'graphql-yoga';
import type { RequestContext } from '../context.ts';
import type { HttpRequest } from '../http/request.ts';
import type { TrustedDocuments } from './trusted-documents.ts';

/** What a transport asks to run: GraphQL over HTTP's parameters (or a trusted document's id). */
export type OperationParams = Record<string, unknown>;

/** A query's or mutation's result, or a subscription's stream of them. */
export type OperationResult = ExecutionResult | AsyncIterable<ExecutionResult>;

export interface RunOptions {
  /** The HTTP method the operation counts as (a REST route's; HEAD is a GET): no mutation over GET. */
  method?: string;
  /** The document is the service's own (a REST route's): trusted, whatever MUSEUM_TRUSTED_DOCUMENTS_ONLY says. */
  trusted?: boolean;
}

/** Runs one operation for a request; never throws: every failure is a result with (masked) errors. */
export type RunOperation = (
  request: HttpRequest,
  params: OperationParams,
  options?: RunOptions,
) => Promise<OperationResult>;

/** What the operation's context starts from (yoga's envelop adds the RequestContext to it). */
export interface OperationOrigin {
  /** The request the operation came with; its signal ends when the client goes away. */
  transport: HttpRequest;
  /** Whether the document is trusted: a trusted document's, or a REST route's. */
  trusted: boolean;
}

export interface OperationRunnerOptions {
  yoga: Pick<YogaServerInstance<Record<string, unknown>, RequestContext>, 'getEnveloped'>;
  mask: (error: unknown) => Error;
  /** Refuses a document over the token limit before it is parsed (src/plugins/use-query-limits.ts). */
  tokenCheck: (query: string) => GraphQLError | null;
  trustedDocuments: TrustedDocuments | null;
}

const EXPECTED_PARAMS = new Set(['query', 'variables', 'operationName', 'extensions']);

const requestError = (
  message: string,
  status: number,
  code = 'BAD_REQUEST',
  headers?: Record<string, string>,
) => new GraphQLError(message, { extensions: { code, http: { status, ...(headers ? { headers } : {}) } } });

const typeOf = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);

/**
 * The one way to run an operation, whatever brought it: a REST route, a GraphQL POST or GET, a trusted
 * document, a subscription over server-sent events. Its parameters are checked as GraphQL over HTTP says
 * (yoga's messages), a trusted document's id becomes its text, then the operation goes through yoga's
 * envelop: the prepared documents (parse, validation with the limits, compilation), the context
 * (credentials checked once), the checkpoint (src/plugins/use-checkpoint.ts: auth gate, trusted-documents
 * rule, deadline, metrics, tracing, release of per-request caches), input errors and the error mask.
 */
export function operationRunner(options: OperationRunnerOptions): RunOperation {
  const { yoga, mask, tokenCheck, trustedDocuments } = options;

  /** The document's text and whether it is trusted, from the parameters; throws a refusal. */
  function sourceOf(params: OperationParams): { query: string; trusted: boolean } {
    const { query, documentId } = params;
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

  return async (transport, params, { method = transport.method, trusted = false } = {}) => {
    try {
      const source = sourceOf(params);
      const tooLong = tokenCheck(source.query);
      if (tooLong) return { errors: [tooLong] };
      const origin: OperationOrigin = { transport, trusted: trusted || source.trusted };
      const enveloped = yoga.getEnveloped(origin as never);
      const document = enveloped.parse(source.query);
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
      const errors = enveloped.validate(enveloped.schema, document);
      if (errors.length > 0) return { errors };
      const contextValue = await enveloped.contextFactory();
      const args = {
        schema: enveloped.schema,
        document,
        contextValue,
        variableValues: (params.variables as Record<string, unknown> | null | undefined) ?? undefined,
        operationName,
      };
      return (await (operation.operation === 'subscription'
        ? enveloped.subscribe(args)
        : enveloped.execute(args))) as OperationResult;
    } catch (error) {
      // A refusal of the parameters, a syntax error or a failure to build the context: masked like every error.
      return { errors: [mask(error) as GraphQLError] };
    }
  };
}
