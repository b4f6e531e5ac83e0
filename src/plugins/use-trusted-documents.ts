import { usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import { getOperationAST, Kind } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { RequestContext } from '../context.ts';
import { refusal } from '../graphql/errors.ts';
import type { TrustedDocuments } from '../graphql/trusted-documents.ts';

/** The `documentId` of a request (body or query string), without its `sha256:` prefix. */
function documentIdOf(params: Record<string, unknown>, request: Request): string | null {
  const id =
    params.documentId ??
    (request.method === 'GET' ? new URL(request.url).searchParams.get('documentId') : null);
  return typeof id === 'string' ? id.replace(/^sha256:/, '') : null;
}

/** Whether every root field of the operation is introspection (GraphiQL loading the schema). */
function onlyIntrospection(operation: ReturnType<typeof getOperationAST>): boolean {
  return (
    operation?.selectionSet.selections.every(
      (selection) => selection.kind === Kind.FIELD && selection.name.value.startsWith('__'),
    ) ?? false
  );
}

/**
 * Trusted documents (the GraphQL-over-HTTP persisted-documents convention): a request may name a document
 * of the manifest by `documentId` (`sha256:<hex>`), over POST or GET, instead of sending its text. With
 * `only`, a visitor may run nothing else (staff, and GraphiQL's introspection, keep full access), so a
 * front-end's users cannot send queries of their own making. Built on yoga's persisted-operations plugin.
 */
export function useTrustedDocuments(documents: TrustedDocuments, only: boolean): Plugin<RequestContext>[] {
  const trusted = new WeakSet<object>();
  return [
    usePersistedOperations({
      allowArbitraryOperations: true,
      extractPersistedOperationId: (params, request) =>
        documentIdOf(params as unknown as Record<string, unknown>, request),
      getPersistedOperation: (id, _request, context) => {
        const document = documents.get(id) ?? null;
        if (document) trusted.add(context);
        return document;
      },
      customErrors: {
        notFound: {
          message: 'Unknown documentId: it names none of the trusted documents',
          extensions: { code: 'PERSISTED_QUERY_NOT_FOUND', http: { status: 400 } },
        },
        keyNotFound: {
          message: 'Send a query, or the documentId of a trusted document',
          extensions: { code: 'BAD_REQUEST', http: { status: 400 } },
        },
      },
    }) as Plugin<RequestContext>,
    {
      onExecute({ args, setResultAndStopExecution }) {
        if (!only || trusted.has(args.contextValue) || args.contextValue.principal?.role === 'staff') return;
        if (onlyIntrospection(getOperationAST(args.document, args.operationName))) return;
        setResultAndStopExecution({
          errors: [refusal('forbidden', 'Only trusted documents may be run here: send a documentId')],
        });
      },
    },
  ];
}
