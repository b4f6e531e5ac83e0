import type { Plugin } from '@envelop/core';
import { execute, getOperationAST, subscribe } from 'graphql';
import type { PreparedDocuments } from '../prepared-documents.ts';
import type { OperationContext } from './operation-context.ts';

/**
 * Parsing, validation and the execution function, from the prepared documents (src/graphql/prepared-documents.ts):
 * each document's text parsed and validated once (the query limits among the rules); a query that repeats
 * compiled by graphql-jit; @defer and @stream, where the transport delivers parts, left to yoga's executor
 * (graphql-tools', which delivers them); anything else run by graphql-js.
 */
export function usePreparedDocuments(documents: PreparedDocuments): Plugin<OperationContext> {
  return {
    onParse({ params, setParsedDocument }) {
      const source = typeof params.source === 'string' ? params.source : params.source.body;
      setParsedDocument(documents.prepare(source).document);
    },
    onValidate({ params, setResult }) {
      const prepared = documents.preparedFrom(params.documentAST);
      if (prepared) setResult(prepared.errors);
    },
    onExecute({ args, setExecuteFn }) {
      const prepared = documents.preparedFrom(args.document);
      if (!prepared || (prepared.incremental && args.contextValue.incremental)) return;
      const name = args.operationName ?? undefined;
      const operation = getOperationAST(args.document, name);
      const compiled = operation && documents.compiled(prepared, operation, name);
      setExecuteFn(
        compiled ? (run) => compiled.query(run.rootValue, run.contextValue, run.variableValues) : execute,
      );
    },
    onSubscribe({ setSubscribeFn }) {
      setSubscribeFn(subscribe);
    },
  };
}
