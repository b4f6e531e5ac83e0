import { SpanKind } from '@opentelemetry/api';
import {
  type DocumentNode,
  type ExecutionResult,
  type GraphQLSchema,
  getOperationAST,
  Kind,
  type OperationDefinitionNode,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { TOOK_TOO_LONG } from '../common/deadline.ts';
import type { RequestContext } from '../context.ts';
import { gateRefusal } from '../graphql/auth-gate.ts';
import { releaseRequestCaches } from '../graphql/builder.ts';
import { refusal } from '../graphql/errors.ts';
import type { OperationOrigin } from '../graphql/operations.ts';
import { inSpan, tracing } from '../tracing.ts';

export interface CheckpointOptions {
  /** An operation still running after this long is answered 503 with Retry-After. */
  timeoutMs: number;
  /** With trusted documents only, a visitor may run nothing but them (staff and introspection may). */
  trustedDocumentsOnly: boolean;
  /** Counts an executed operation in the metrics. */
  record?(name: string | undefined, type: string, seconds: number): void;
}

/** Whether every root field of the operation is introspection (GraphiQL loading the schema). */
const onlyIntrospection = (operation: OperationDefinitionNode | null | undefined) =>
  operation?.selectionSet.selections.every(
    (selection) => selection.kind === Kind.FIELD && selection.name.value.startsWith('__'),
  ) ?? false;

/**
 * The one checkpoint every operation passes, whatever brought it (a REST route, a GraphQL POST or GET, a
 * trusted document, a subscription), applied once each: the auth gate (src/graphql/auth-gate.ts), the
 * trusted-documents rule, the deadline, the metrics, the operation's tracing span, and the release of the
 * per-request caches when the operation ends. Before it, the prepared documents; after it, input errors.
 */
export function useCheckpoint(options: CheckpointOptions): Plugin<RequestContext> {
  const timedOut = (): ExecutionResult => ({
    errors: [refusal('unavailable', TOOK_TOO_LONG, { 'Retry-After': '5' })],
  });

  const refusalOf = (args: {
    schema: GraphQLSchema;
    document: DocumentNode;
    operationName?: string | null;
    contextValue: RequestContext;
  }) => {
    const operation = getOperationAST(args.document, args.operationName) ?? null;
    const gate = gateRefusal(args.schema, operation, args.contextValue);
    if (gate) return { operation, refused: gate };
    const trusted = (args.contextValue as Partial<OperationOrigin>).trusted;
    if (
      options.trustedDocumentsOnly &&
      !trusted &&
      args.contextValue.principal?.role !== 'staff' &&
      !onlyIntrospection(operation)
    )
      return {
        operation,
        refused: refusal('forbidden', 'Only trusted documents may be run here: send a documentId'),
      };
    return { operation, refused: null };
  };

  /** The run within the deadline (its database work finishes or fails on its own, unseen). */
  const withDeadline = (run: Promise<ExecutionResult>) => {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<ExecutionResult>((resolve) => {
      timer = setTimeout(() => resolve(timedOut()), options.timeoutMs);
    });
    return Promise.race([run, deadline]).finally(() => clearTimeout(timer));
  };

  return {
    onExecute({ args, executeFn, setExecuteFn, setResultAndStopExecution }) {
      const { contextValue } = args;
      const { operation, refused } = refusalOf(args);
      if (refused) {
        releaseRequestCaches(contextValue);
        setResultAndStopExecution({ errors: [refused] });
        return;
      }
      const type = operation?.operation ?? 'query';
      const name = operation?.name?.value;
      const started = performance.now();
      setExecuteFn((executeArgs) => {
        const run = () => withDeadline(Promise.resolve(executeFn(executeArgs) as Promise<ExecutionResult>));
        if (!tracing.enabled) return run();
        // The operation's span, the parent of its SQL statements' spans: named like `query getSpecialEvent`.
        return inSpan(
          name ? `${type} ${name}` : type,
          SpanKind.INTERNAL,
          { 'graphql.operation.type': type, ...(name ? { 'graphql.operation.name': name } : {}) },
          run,
        );
      });
      return {
        onExecuteDone() {
          options.record?.(name, type, (performance.now() - started) / 1000);
          releaseRequestCaches(contextValue);
        },
      };
    },
    onSubscribe({ args, setResultAndStopExecution }) {
      const { refused } = refusalOf(args);
      if (refused) setResultAndStopExecution({ errors: [refused] });
    },
  };
}
