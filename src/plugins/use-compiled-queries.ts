import { type DocumentNode, getOperationAST } from 'graphql';
import { type CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';
import type { Plugin } from 'graphql-yoga';
import type { CompiledGraphQL } from '../http/compiled-graphql.ts';

/**
 * Queries run compiled to JavaScript by graphql-jit, once per document (yoga's parse cache hands the same
 * document back for the same text, so they are kept as long as it keeps them). A compiled run that ends in
 * an error is run again the interpreted way, so errors keep graphql-js's exact form (locations, variable
 * messages): a query has no side effects to repeat. Mutations and subscriptions are never compiled.
 * Each compiled query is also handed to the compiled lane, which runs it without yoga when it comes again.
 */
export function useCompiledQueries(lane?: Pick<CompiledGraphQL, 'remember'>): Plugin {
  const compiled = new WeakMap<DocumentNode, Map<string, CompiledQuery | null>>();
  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      const operation = getOperationAST(args.document, args.operationName);
      if (operation?.operation !== 'query') return;
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
      // The text this document was parsed from: it has passed parsing, validation and the limits.
      const source = (args.contextValue as { params?: { query?: unknown } }).params?.query;
      if (lane && typeof source === 'string')
        lane.remember(source, args.operationName ?? undefined, { query, operation });
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
