import { normalizedExecutor } from '@graphql-tools/executor';
import { SpanKind } from '@opentelemetry/api';
import {
  type ExecutionResult,
  execute,
  GraphQLError,
  type GraphQLSchema,
  getOperationAST,
  Kind,
  type OperationDefinitionNode,
  subscribe,
} from 'graphql';
import { mapAsyncIterator } from 'graphql-yoga';
import { TOOK_TOO_LONG, withDeadline } from '../common/deadline.ts';
import type { RequestContext } from '../context.ts';
import type { HttpRequest } from '../protocol/request.ts';
import { inSpan, tracing } from '../tracing.ts';
import { gateRefusal } from './auth-gate.ts';
import { releaseRequestCaches } from './builder.ts';
import { refusal, withoutAddressesShown } from './errors.ts';
import { looseListRefusal, shapeVariableErrors } from './input-errors.ts';
import type { PreparedDocuments } from './prepared-documents.ts';
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
  schema: GraphQLSchema;
  documents: PreparedDocuments;
  /** The request's context: its credentials checked (src/context.ts). */
  /** `type`: the operation's, so that a mutation's reads can all go to the primary (src/db/replicas.ts). */
  contextOf(
    request: HttpRequest,
    type: OperationDefinitionNode['operation'],
  ): RequestContext | Promise<RequestContext>;
  /** The error mask (src/graphql/errors.ts): what a client may see of an error. */
  mask: (error: unknown) => Error;
  /** Refuses a document over the token limit before it is parsed (src/graphql/query-limits.ts). */
  tokenCheck: (query: string) => GraphQLError | null;
  trustedDocuments: TrustedDocuments | null;
  /** With trusted documents only, a visitor may run nothing but them (staff and introspection may). */
  trustedDocumentsOnly: boolean;
  /** An operation still running after this long is answered 503 with Retry-After. */
  timeoutMs: number;
  /** Counts an executed operation in the metrics. */
  record?(name: string | undefined, type: string, seconds: number): void;
}

const EXPECTED_PARAMS = new Set(['query', 'variables', 'operationName', 'extensions']);

/** A refusal of the request itself (its shape, not its operation), with its status. */
export const requestError = (
  message: string,
  status: number,
  code = 'BAD_REQUEST',
  headers?: Record<string, string>,
) => new GraphQLError(message, { extensions: { code, http: { status, ...(headers ? { headers } : {}) } } });

const typeOf = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);

/** Whether every root field of the operation is introspection (GraphiQL loading the schema). */
const onlyIntrospection = (operation: OperationDefinitionNode) =>
  operation.selectionSet.selections.every(
    (selection) => selection.kind === Kind.FIELD && selection.name.value.startsWith('__'),
  );

const timedOut = (): ExecutionResult => ({
  errors: [refusal('unavailable', TOOK_TOO_LONG, { 'Retry-After': '5' })],
});

/**
 * The one way to run an operation, whatever brought it: a REST route, a GraphQL POST or GET, a trusted
 * document, a subscription over server-sent events; it is also the one checkpoint, applying each rule once:
 * 1. the parameters, checked as GraphQL over HTTP says (yoga's messages), a trusted document's id made its
 *    text, the token limit;
 * 2. the prepared document (src/graphql/prepared-documents.ts: parsed, validated with the limits, compiled
 *    from its second run); no mutation over GET;
 * 3. the context (credentials checked once), the auth gate (src/graphql/auth-gate.ts), the
 *    trusted-documents rule, lists given as lists;
 * 4. the run: compiled by graphql-jit, or by graphql-js (mutations, subscriptions, a first run), within the
 *    deadline, in a tracing span, counted in the metrics (a subscription's setup is its run); variable
 *    errors named by path, every error masked;
 * 5. the release of the per-request caches.
 * Hand-made rather than envelop's hooks: they allocated ~100 objects and closures per operation (10 µs of a
 * 35 µs GraphQL request, measured; docs/decisions.md).
 */
export function operationRunner(options: OperationRunnerOptions): RunOperation {
  const { schema, documents, mask, tokenCheck, trustedDocuments } = options;

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

  /**
   * Runs `work` (the operation's execution: compiled, graphql-js, or incremental) within the deadline, in the
   * operation's tracing span, counted in the metrics. Its database work finishes or fails on its own, unseen.
   */
  function run<T extends OperationResult>(
    operation: OperationDefinitionNode,
    work: () => T | Promise<T>,
  ): Promise<T | ExecutionResult> {
    const type = operation.operation;
    const name = operation.name?.value;
    const started = performance.now();
    const within = () => withDeadline(work(), options.timeoutMs);
    const finished = tracing.enabled
      ? // The operation's span, the parent of its SQL statements' spans: named like `query getSpecialEvent`.
        inSpan(
          name ? `${type} ${name}` : type,
          SpanKind.INTERNAL,
          { 'graphql.operation.type': type, ...(name ? { 'graphql.operation.name': name } : {}) },
          async () => within(),
        )
      : within();
    const counted = (result: T | null) => {
      options.record?.(name, type, (performance.now() - started) / 1000);
      return result ?? timedOut();
    };
    return finished instanceof Promise ? finished.then(counted) : Promise.resolve(counted(finished));
  }

  const masked = (result: ExecutionResult): ExecutionResult =>
    result.errors?.length
      ? {
          ...result,
          errors: result.errors.map((error) => withoutAddressesShown(mask(error) as GraphQLError)),
        }
      : result;

  return async (
    transport,
    params,
    { method = transport.method, trusted = false, incremental = false } = {},
  ) => {
    let context: RequestContext | undefined;
    try {
      // A REST route's parameters are the service's own, built by its adapter: only a client's are checked.
      const source = trusted ? { query: params.query as string, trusted: true } : sourceOf(params);
      const tooLong = tokenCheck(source.query);
      if (tooLong) return { errors: [tooLong] };
      const prepared = documents.prepare(source.query);
      const operationName = (params.operationName as string | null | undefined) ?? undefined;
      const operation = getOperationAST(prepared.document, operationName);
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
      if (prepared.errors.length > 0) return { errors: prepared.errors.map(withoutAddressesShown) };
      const made = options.contextOf(transport, operation.operation);
      context = made instanceof Promise ? await made : made;
      const refused =
        gateRefusal(schema, operation, context) ??
        (options.trustedDocumentsOnly &&
        !trusted &&
        !source.trusted &&
        context.principal?.role !== 'staff' &&
        !onlyIntrospection(operation)
          ? refusal('forbidden', 'Only trusted documents may be run here: send a documentId')
          : null);
      if (refused) return { errors: [refused] };
      const variables = (params.variables ?? {}) as Record<string, unknown>;
      const loose = looseListRefusal(schema, prepared.document, operation, variables);
      if (loose) return { errors: [loose] };
      const args = {
        schema,
        document: prepared.document,
        contextValue: context,
        variableValues: variables,
        operationName,
      };
      const shaped = (result: ExecutionResult) =>
        masked(shapeVariableErrors(schema, prepared.document, operation, variables, result));
      if (operation.operation === 'subscription') {
        // Its setup (the subscribe resolver, the per-account cap) is the operation: span, metric, deadline.
        const subscribing = Promise.resolve(subscribe(args));
        const stream = await run(operation, () => subscribing);
        if (Symbol.asyncIterator in stream)
          return mapAsyncIterator(stream, masked) as AsyncIterable<ExecutionResult>;
        // Past the deadline, a stream that opens after all is ended at once: nobody will read it.
        void subscribing.then((late) => {
          if (Symbol.asyncIterator in late) void late.return?.();
        });
        return shaped(stream);
      }
      if (prepared.incremental && incremental) {
        // graphql-tools' executor delivers @defer and @stream (graphql-js 16 has no incremental delivery):
        // the initial result within the deadline, then each deferred part as it resolves.
        const parts = await run(operation, () => normalizedExecutor(args));
        return Symbol.asyncIterator in parts
          ? (mapAsyncIterator(parts, masked) as AsyncIterable<ExecutionResult>)
          : shaped(parts);
      }
      const compiled = documents.compiled(prepared, operation, operationName);
      return shaped(
        await run(operation, () =>
          compiled ? compiled.query(undefined, args.contextValue, variables) : execute(args),
        ),
      );
    } catch (error) {
      // A refusal of the parameters, a syntax error, a failure to build the context: masked like every error.
      return { errors: [withoutAddressesShown(mask(error) as GraphQLError)] };
    } finally {
      if (context) releaseRequestCaches(context);
    }
  };
}
