import type { ExecutionResult, GraphQLError } from 'graphql';
import type { YogaServer } from 'graphql-yoga';
import type { RequestContext } from '../context.ts';
import type { HttpRequest } from '../http/request.ts';

/** What a transport asks to run: GraphQL over HTTP's parameters (or a trusted document's id). */
export interface OperationParams {
  query?: string;
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
  extensions?: Record<string, unknown> | null;
}

/** A query's or mutation's result, or a subscription's stream of them. */
export type OperationResult = ExecutionResult | AsyncIterable<ExecutionResult>;

/** Runs one operation for a request; never throws: every failure is a result with (masked) errors. */
export type RunOperation = (
  request: HttpRequest,
  params: OperationParams,
  method?: string,
) => Promise<OperationResult>;

/** What the context factory receives from whichever transport brought the operation. */
export interface OperationOrigin {
  transport: HttpRequest;
}

/**
 * The one way to run an operation, whatever brought it: a REST route, a GraphQL POST or GET, a trusted
 * document, a subscription. It is yoga's own entry point for a request's parameters, so every operation goes
 * through the same envelop: the parameter checks, the prepared-documents cache (parse, validation, limits,
 * compilation), the context (credentials checked once), the auth gate, the trusted-documents rule, the
 * deadline, metrics, tracing and the release of per-request caches — each applied once, in one place.
 * `method` is the HTTP method the operation counts as (a REST route's; HEAD is a GET).
 */
export function operationRunner(
  yoga: Pick<YogaServer<Record<string, unknown>, RequestContext>, 'getResultForParams'>,
  mask: (error: unknown) => Error,
): RunOperation {
  return async (request, params, method = request.method) => {
    // What yoga's plugins read of a fetch Request; nothing here builds one.
    const requestLike = { method, url: request.url, headers: { get: request.header } };
    const origin: OperationOrigin = { transport: request };
    try {
      return (await yoga.getResultForParams(
        { params: params as never, request: requestLike as unknown as Request },
        origin as never,
      )) as OperationResult;
    } catch (error) {
      // A parameter check or a plugin refused before anything ran: the same mask as every other error.
      return { errors: [mask(error) as GraphQLError] };
    }
  };
}
