// Pothos core applies argMappers (used by plugin-validation) OUTSIDE every plugin's wrapResolve,
// so without this, validation runs BEFORE scope-auth: an anonymous caller with bad input gets
// BAD_USER_INPUT instead of UNAUTHENTICATED. This plugin re-checks the static (object) authScopes of
// the parent type + field in wrapArgMappers (outermost). Scope results are cached per request, so the
// normal scope-auth check afterwards is cheap.
import SchemaBuilder, { BasePlugin, type PothosOutputFieldConfig, type SchemaTypes } from '@pothos/core';
import type { AuthScopeMap } from '@pothos/plugin-scope-auth';
import type { GraphQLFieldResolver } from 'graphql';

declare global {
  export namespace PothosSchemaTypes {
    interface Plugins<Types extends SchemaTypes> {
      authFirst: AuthFirstPlugin<Types>;
    }
  }
}

export class AuthFirstPlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override wrapArgMappers(
    resolver: GraphQLFieldResolver<unknown, Types['Context'], object>,
    fieldConfig: PothosOutputFieldConfig<Types>,
  ): GraphQLFieldResolver<unknown, Types['Context'], object> {
    if (fieldConfig.argMappers.length === 0) return resolver; // nothing runs before scope-auth anyway
    const opts = fieldConfig.pothosOptions as { authScopes?: unknown; skipTypeScopes?: boolean };
    const parent = this.buildCache.getTypeConfig(fieldConfig.parentType).pothosOptions as {
      authScopes?: unknown;
    };
    const maps = [opts.skipTypeScopes ? undefined : parent.authScopes, opts.authScopes].filter(
      (s): s is AuthScopeMap<Types> => typeof s === 'object' && s !== null, // function scopes need args -> left to scope-auth
    );
    if (maps.length === 0) return resolver;
    const globalErr = this.builder.options.scopeAuth?.unauthorizedError;
    return async (source, args, ctx, info) => {
      for (const scopes of maps) {
        await this.builder.runAuthScopes(ctx, scopes, (result) =>
          globalErr
            ? globalErr(source as never, ctx, info, {
                ...result,
                message: `Not authorized to resolve ${fieldConfig.parentType}.${fieldConfig.name}`,
              })
            : result.message,
        );
      }
      return resolver(source, args, ctx, info);
    };
  }
}

SchemaBuilder.registerPlugin('authFirst', AuthFirstPlugin);
export default 'authFirst' as const;
