import SchemaBuilder from '@pothos/core';
import ScopeAuthPlugin from '@pothos/plugin-scope-auth';
import ValidationPlugin from '@pothos/plugin-validation';
import { GraphQLError } from 'graphql';
import { ERROR_KINDS, formatPath } from '../common/errors.ts';
import type { RequestContext } from '../context.ts';
import { type AuthScopes, scopesOf } from './auth-scopes.ts';

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
        ? new GraphQLError('Credentials are required: send HTTP Basic credentials of an account', {
            extensions: { code: ERROR_KINDS.unauthenticated.code },
          })
        : new GraphQLError('This operation needs the staff role', {
            extensions: { code: ERROR_KINDS.forbidden.code },
          }),
  },
  validation: {
    validationError: (failure) => {
      const errors = failure.issues.map((issue) => ({
        path: formatPath(issue.path ?? []),
        message: issue.message,
      }));
      return new GraphQLError(
        `Validation failed: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`,
        {
          extensions: { code: ERROR_KINDS.validation.code, errors },
        },
      );
    },
  },
});
