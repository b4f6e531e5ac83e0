import { SpanKind } from '@opentelemetry/api';
import { getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { inSpan } from '../tracing.ts';

/**
 * A span for each GraphQL operation (REST routes included, as their operations), the parent of its SQL
 * statements' spans: `graphql.operation.type` and `graphql.operation.name`, named like `query getSpecialEvent`.
 */
export function useTracing(): Plugin {
  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      const operation = getOperationAST(args.document, args.operationName);
      const type = operation?.operation ?? 'query';
      const name = operation?.name?.value;
      setExecuteFn(
        (executeArgs) =>
          inSpan(
            name ? `${type} ${name}` : type,
            SpanKind.INTERNAL,
            { 'graphql.operation.type': type, ...(name ? { 'graphql.operation.name': name } : {}) },
            async () => executeFn(executeArgs),
          ) as ReturnType<typeof executeFn>,
      );
    },
  };
}
