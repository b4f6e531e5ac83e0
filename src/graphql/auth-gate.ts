import {
  type GraphQLError,
  type GraphQLObjectType,
  type GraphQLSchema,
  Kind,
  type OperationDefinitionNode,
} from 'graphql';
import { ERROR_KINDS } from '../common/errors.ts';
import type { RequestContext } from '../context.ts';
import { WWW_AUTHENTICATE } from '../protocol/problem.ts';
import { rateLimitHeaders } from '../protocol/rate-limit.ts';
import { type AuthScopes, forbiddenDetail, grants, scopesOf } from './auth-scopes.ts';
import { pothosOptionsOf } from './builder.ts';
import { refusal } from './errors.ts';

/** Forbidden: with the scopes the refused field asks for. */
type Verdict = 'allowed' | 'unauthenticated' | { forbidden: Partial<AuthScopes> };

function rootType(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
): GraphQLObjectType | null | undefined {
  if (operation.operation === 'mutation') return schema.getMutationType();
  if (operation.operation === 'subscription') return schema.getSubscriptionType();
  return schema.getQueryType();
}

/** Checks each root field's `authScopes` (as declared on the Pothos field) against the caller. */
function judge(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode | null,
  scopes: AuthScopes,
): Verdict {
  if (!operation) return 'allowed'; // execution reports the missing operation itself
  const fields = rootType(schema, operation)?.getFields() ?? {};
  for (const selection of operation.selectionSet.selections) {
    if (selection.kind === Kind.FIELD && selection.name.value.startsWith('__')) continue;
    // A fragment on the root type could hide any field: it needs an account, and fields check roles.
    if (selection.kind !== Kind.FIELD) {
      if (!scopes.authenticated) return 'unauthenticated';
      continue;
    }
    const required = pothosOptionsOf(fields[selection.name.value]).authScopes;
    if (!required || typeof required !== 'object') continue;
    if (!grants(required as Partial<AuthScopes>, scopes))
      return scopes.authenticated ? { forbidden: required as Partial<AuthScopes> } : 'unauthenticated';
  }
  return 'allowed';
}

/**
 * The first gate of every operation, GraphQL and REST alike, run before variables are even read:
 * credentials that were sent must be right, and each root field's auth scopes must be met. So a caller
 * without the right learns nothing about its input (401 and 403 come before 400). Introspection is open,
 * for GraphiQL. Scope auth still guards every field during execution. A client refused for too many failed
 * logins gets 429 with Retry-After, whatever it asks. Null to go ahead, else the error to answer with.
 */
export function gateRefusal(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode | null,
  { auth, principal }: Pick<RequestContext, 'auth' | 'principal'>,
): GraphQLError | null {
  if (auth.status === 'throttled')
    return refusal(
      'tooManyRequests',
      `Too many failed logins; try again in ${auth.retryAfter} seconds`,
      rateLimitHeaders(auth.policy, auth.retryAfter),
    );
  const verdict =
    auth.status === 'rejected' ? 'unauthenticated' : judge(schema, operation, scopesOf(principal));
  if (verdict === 'allowed') return null;
  if (typeof verdict === 'object') return refusal('forbidden', forbiddenDetail(verdict.forbidden));
  return refusal(
    'unauthenticated',
    auth.status === 'rejected' ? auth.reason : ERROR_KINDS.unauthenticated.documented.detail,
    // The transport leaves it out for a script of this service's pages (src/http/pipeline.ts).
    { 'WWW-Authenticate': WWW_AUTHENTICATE },
  );
}
