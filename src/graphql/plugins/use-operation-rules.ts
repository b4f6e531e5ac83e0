import type { Plugin } from '@envelop/core';
import { type ExecutionArgs, type GraphQLError, Kind, type OperationDefinitionNode } from 'graphql';
import { gateRefusal } from '../auth-gate.ts';
import { refusal } from '../errors.ts';
import { looseListRefusal, shapeVariableErrors } from '../input-errors.ts';
import type { OperationContext } from './operation-context.ts';

/** Whether every root field of the operation is introspection (GraphiQL loading the schema). */
const onlyIntrospection = (operation: OperationDefinitionNode) =>
  operation.selectionSet.selections.every(
    (selection) => selection.kind === Kind.FIELD && selection.name.value.startsWith('__'),
  );

/**
 * What decides whether an operation may run, once its context (the caller) is known, over every transport
 * alike: the auth gate (src/graphql/auth-gate.ts: each root field's scopes, before its arguments are
 * checked), the trusted-documents rule (with MUSEUM_TRUSTED_DOCUMENTS_ONLY a visitor runs nothing but them),
 * lists given as lists; and how variable errors are named (by their path in the variables).
 */
export function useOperationRules(options: { trustedDocumentsOnly: boolean }): Plugin<OperationContext> {
  function refusalOf(args: ExecutionArgs & { contextValue: OperationContext }): GraphQLError | null {
    const context = args.contextValue;
    const { operation } = context;
    return (
      gateRefusal(args.schema, operation, context) ??
      (options.trustedDocumentsOnly &&
      !context.trustedDocument &&
      context.principal?.role !== 'staff' &&
      !onlyIntrospection(operation)
        ? refusal('forbidden', 'Only trusted documents may be run here: send a documentId')
        : null) ??
      looseListRefusal(
        args.schema,
        args.document,
        operation,
        (args.variableValues ?? {}) as Record<string, unknown>,
      )
    );
  }
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const refused = refusalOf(args);
      if (refused) {
        setResultAndStopExecution({ errors: [refused] });
        return;
      }
      return {
        onExecuteDone({ result, setResult }) {
          if (Symbol.asyncIterator in result || !result.errors?.length) return;
          const { operation } = args.contextValue;
          setResult(
            shapeVariableErrors(
              args.schema,
              args.document,
              operation,
              (args.variableValues ?? {}) as Record<string, unknown>,
              result,
            ),
          );
        },
      };
    },
    onSubscribe({ args, setResultAndStopExecution }) {
      const refused = refusalOf(args);
      if (refused) setResultAndStopExecution({ errors: [refused] });
    },
  };
}
