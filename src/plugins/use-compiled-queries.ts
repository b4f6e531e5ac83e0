import { type DocumentNode, getOperationAST } from 'graphql';
import { type CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';
import type { Plugin } from 'graphql-yoga';

/**
 * Queries run compiled to JavaScript by graphql-jit, once per document (yoga's parse cache hands the same
 * document back for the same text, so they are kept as long as it keeps them). A compiled run that ends in
 * an error is run again the interpreted way, so errors keep graphql-js's exact form (locations, variable
 * messages): a query has no side effects to repeat. Mutations and subscriptions are never compiled.
 */
export function useCompiledQueries(): Plugin {
  const compiled = new WeakMap<DocumentNode, Map<string, CompiledQuery | null>>();
  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      if (getOperationAST(args.document, args.operationName)?.operation !== 'query') return;
      let byOperation = compiled.get(args.document);
      if (!byOperation) {
        byOperation = new Map();
        compiled.set(args.document, byOperation);
      }
      const name = args.operationName ?? '';
      let query = byOperation.get(name);
      if (query === undefined) {
        const result = compileQuery(args.schema, args.document, args.operationName ?? undefined);
        query = isCompiledQuery(result) ? result : null;
        byOperation.set(name, query);
      }
      if (!query) return;
      const run = query;
      setExecuteFn(async (executeArgs) => {
        const result = await run.query(
          executeArgs.rootValue,
          executeArgs.contextValue,
          executeArgs.variableValues ?? {},
        );
        return result.errors?.length ? executeFn(executeArgs) : result;
      });
    },
  };
}
