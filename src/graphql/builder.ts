import SchemaBuilder from '@pothos/core';
import ScopeAuthPlugin, { RequestCache } from '@pothos/plugin-scope-auth';
import ValidationPlugin from '@pothos/plugin-validation';
import { ERROR_KINDS, formatPath } from '../common/errors.ts';
import type { RequestContext } from '../context.ts';
import { type AuthScopes, scopesOf } from './auth-scopes.ts';
import { clientError } from './errors.ts';

export const builder = new SchemaBuilder<{
  Context: RequestContext;
  AuthScopes: AuthScopes;
  Scalars: {
    Date: { Input: string; Output: string };
    LocalTime: { Input: string; Output: string };
    UUID: { Input: string; Output: string };
    EmailAddress: { Input: string; Output: string };
    DateTime: { Input: string; Output: string };
  };
  DefaultInputFieldRequiredness: true;
  DefaultFieldNullability: false;
}>({
  plugins: [ScopeAuthPlugin, ValidationPlugin],
  defaultInputFieldRequiredness: true,
  defaultFieldNullability: false,
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
