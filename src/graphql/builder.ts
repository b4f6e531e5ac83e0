import SchemaBuilder from '@pothos/core';
import DirectivePlugin from '@pothos/plugin-directives';
import FederationPlugin from '@pothos/plugin-federation';
import RelayPlugin from '@pothos/plugin-relay';
import ScopeAuthPlugin, { RequestCache } from '@pothos/plugin-scope-auth';
import ValidationPlugin from '@pothos/plugin-validation';
import { ERROR_KINDS, formatPath } from '../common/errors.ts';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../common/pagination.ts';
import type { RequestContext } from '../context.ts';
import { type AuthScopes, scopesOf } from './auth-scopes.ts';
import { clientError } from './errors.ts';

// The Relay plugin for its connections only: the schema has its own Node interface, global ids, node and nodes
// (node.ts), so the plugin's are never made (no t.node, no builder.node; its node and nodes fields are off).
const RELAY_OPTIONS = {
  clientMutationId: 'omit',
  cursorType: 'String',
  nodeQueryOptions: false,
  nodesQueryOptions: false,
  pageInfoTypeOptions: {
    description: 'Where a page of a connection lies in its list (Relay cursor connections).',
  },
  hasNextPageFieldOptions: {
    description:
      'Forwards (first/after): whether more follow this page. Backwards (last/before): true when before was given.',
  },
  hasPreviousPageFieldOptions: {
    description:
      'Backwards (last/before): whether more precede this page. Forwards (first/after): true when after was given.',
  },
  startCursorFieldOptions: {
    description: "The first edge's cursor; on an empty page, the cursor given (after or before), else null.",
  },
  endCursorFieldOptions: {
    description: "The last edge's cursor; on an empty page, the cursor given (after or before), else null.",
  },
  pageInfoFieldOptions: { description: 'Where this page lies in the list.' },
  edgesFieldOptions: { description: "This page's items, in the list's order, each with its cursor." },
  nodeFieldOptions: { description: 'The item.' },
  cursorFieldOptions: {
    description: 'Opaque: pass it as after or before to the same field with the same range, and to no other.',
  },
  firstArgOptions: {
    description: `The first this many items (after \`after\`), 1 to ${MAX_PAGE_SIZE}; not with last. Neither given: first ${DEFAULT_PAGE_SIZE}.`,
  },
  lastArgOptions: {
    description: `The last this many items (before \`before\`), 1 to ${MAX_PAGE_SIZE}; not with first.`,
  },
  afterArgOptions: {
    description: 'Items after this cursor (an endCursor or edge cursor of this field and range).',
  },
  beforeArgOptions: {
    description: 'Items before this cursor (a startCursor or edge cursor of this field and range).',
  },
} as const;

export const builder = new SchemaBuilder<{
  Context: RequestContext;
  AuthScopes: AuthScopes;
  Scalars: {
    Date: { Input: string; Output: string };
    LocalTime: { Input: string; Output: string };
    UUID: { Input: string; Output: string };
    EmailAddress: { Input: string; Output: string };
    DateTime: { Input: string; Output: string };
    /** An entity representation (src/graphql/federation.ts), checked by `_entities`' own rules. */
    _Any: { Input: unknown; Output: unknown };
  };
  DefaultInputFieldRequiredness: true;
  DefaultFieldNullability: false;
  DefaultEdgesNullability: false;
  DefaultNodeNullability: false;
  Connection: { totalCount: number };
}>({
  plugins: [ScopeAuthPlugin, ValidationPlugin, RelayPlugin, DirectivePlugin, FederationPlugin],
  defaultInputFieldRequiredness: true,
  defaultFieldNullability: false,
  relay: RELAY_OPTIONS,
  // Federation's @key and @link, kept as graphql-tools reads them: the printed schema shows them (graph/schema.ts).
  directives: { useGraphQLToolsUnorderedDirectives: true },
  scopeAuth: {
    authScopes: (context) => scopesOf(context.principal),
    unauthorizedError: (_parent, context) =>
      context.principal === null
        ? clientError('unauthenticated', ERROR_KINDS.unauthenticated.documented.detail)
        : clientError('forbidden', ERROR_KINDS.forbidden.documented.detail),
  },
  validation: {
    validationError: (failure) => {
      const errors = failure.issues.map((issue) => ({
        path: formatPath(issue.path ?? []),
        message: issue.message,
      }));
      return clientError(
        'validation',
        `Validation failed: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`,
        errors,
      );
    },
  },
});

/**
 * What a type or field was declared with here (its `validate` schema, its `authScopes`): Pothos keeps the
 * options in the GraphQL node's extensions.
 */
export function pothosOptionsOf(node: { extensions?: unknown } | null | undefined): {
  validate?: unknown;
  authScopes?: unknown;
} {
  return (node?.extensions as { pothosOptions?: object } | undefined)?.pothosOptions ?? {};
}

/**
 * Drops what scope auth kept for a request, once its operation has ended. Pothos keeps it in a WeakMap keyed
 * by the context, and V8's young-generation collector keeps a WeakMap's values alive: without this, every
 * request's resolved values were promoted to the old generation (3.3 KB a request on GET /museum-hours),
 * which grew by hundreds of MB between full collections.
 */
export const releaseRequestCaches = (context: RequestContext) => RequestCache.clearForContext(context);
