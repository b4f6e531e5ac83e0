import { type DocumentNode, GraphQLError, getOperationAST } from 'graphql';
import { type CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';
import type { Plugin } from 'graphql-yoga';

/** How many documents are kept prepared, the least recently used forgotten first. */
const PREPARED_DOCUMENTS = 1_000;
/** Longer documents are prepared each time: the clients that repeat a query send a short one. */
const PREPARED_LENGTH = 16 * 1024;

/** A document as it was prepared: parsed once, validated once (limits included), compiled once it repeats. */
interface Prepared {
  document: DocumentNode;
  valid: boolean;
  /** Runs so far, per operation name: a query is compiled on its second run, when compiling starts to pay. */
  runs: Map<string, number>;
  compiled: Map<string, CompiledQuery | null>;
}

/**
 * The one cache of prepared documents, for every operation whatever brought it (a REST route, a GraphQL POST
 * or GET, a trusted document, a subscription): by the document's text, its parse, its validation (with the
 * query limits, which are validation rules) and, for a query run more than once, its graphql-jit compilation.
 * A compiled query is the only run of that operation: its errors are the answer (no second, interpreted run).
 * Mutations and subscriptions are never compiled: they run once each, and graphql-js runs them.
 */
export function usePreparedDocuments(): Plugin {
  const prepared = new Map<string, Prepared>();
  const byDocument = new WeakMap<DocumentNode, Prepared>();

  const remember = (source: string, document: DocumentNode) => {
    if (source.length > PREPARED_LENGTH) return;
    if (prepared.size >= PREPARED_DOCUMENTS) prepared.delete(prepared.keys().next().value!);
    const entry: Prepared = { document, valid: false, runs: new Map(), compiled: new Map() };
    prepared.set(source, entry);
    byDocument.set(document, entry);
  };

  return {
    onParse({ params, setParsedDocument }) {
      const source = String(params.source);
      const entry = prepared.get(source);
      if (entry) {
        // Least recently used first out: a hit moves to the end.
        prepared.delete(source);
        prepared.set(source, entry);
        setParsedDocument(entry.document);
        return;
      }
      return ({ result }) => {
        if (result instanceof GraphQLError) {
          // A syntax error is the request's fault: 400, or 200 for application/json clients (a spec error).
          const extensions = result.extensions as Record<string, unknown>;
          extensions.code ??= 'GRAPHQL_PARSE_FAILED';
          extensions.http ??= { spec: true, status: 400 };
        } else if (result && !(result instanceof Error)) remember(source, result as DocumentNode);
      };
    },
    onValidate({ params, setResult }) {
      const entry = byDocument.get(params.documentAST);
      if (entry?.valid) {
        setResult([]);
        return;
      }
      return ({ valid }) => {
        if (entry && valid) entry.valid = true;
      };
    },
    onExecute({ args, setExecuteFn }) {
      const entry = byDocument.get(args.document);
      if (!entry) return;
      const name = args.operationName ?? '';
      let query = entry.compiled.get(name);
      if (query === undefined) {
        const runs = (entry.runs.get(name) ?? 0) + 1;
        entry.runs.set(name, runs);
        if (runs < 2) return;
        const operation = getOperationAST(args.document, args.operationName);
        const compiled =
          operation?.operation === 'query'
            ? compileQuery(args.schema, args.document, args.operationName ?? undefined)
            : null;
        query = compiled && isCompiledQuery(compiled) ? compiled : null;
        entry.compiled.set(name, query);
      }
      if (!query) return;
      const run = query;
      setExecuteFn((executeArgs) =>
        run.query(executeArgs.rootValue, executeArgs.contextValue, executeArgs.variableValues ?? {}),
      );
    },
  };
}
