import { getOperationAST, Kind, type OperationDefinitionNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { RequestContext } from '../context.ts';
import { clientError } from './errors.ts';
import { WWW_AUTHENTICATE } from './problem.ts';

/** Introspection alone (`__schema`, `__type`, `__typename`) is open, so GraphiQL can show the schema. */
function asksOnlyForIntrospection(operation: OperationDefinitionNode | null): boolean {
  return (
    operation !== null &&
    operation.selectionSet.selections.every(
      (selection) => selection.kind === Kind.FIELD && selection.name.value.startsWith('__'),
    )
  );
}

/**
 * The first gate of every operation, GraphQL and REST alike: credentials that were sent must be right,
 * and anything beyond introspection needs them. Answered before variables are even read, so a caller
 * without credentials learns nothing about its input. Roles are checked per field by scope auth.
 */
export function useAuthGate(): Plugin<RequestContext> {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const { auth } = args.contextValue;
      if (auth.status === 'authenticated') return;
      if (
        auth.status === 'anonymous' &&
        asksOnlyForIntrospection(getOperationAST(args.document, args.operationName) ?? null)
      ) {
        return;
      }
      const error = clientError(
        'unauthenticated',
        auth.status === 'rejected'
          ? auth.reason
          : 'Credentials are required: send HTTP Basic credentials of an account',
      );
      Object.assign(error.extensions, {
        http: { status: 401, headers: { 'WWW-Authenticate': WWW_AUTHENTICATE } },
      });
      setResultAndStopExecution({ errors: [error] });
    },
  };
}
