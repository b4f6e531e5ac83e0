import type { Principal } from '../accounts/authenticator.ts';

export interface AuthScopes {
  authenticated: boolean;
  staff: boolean;
}

/** What a caller may do; the one definition behind field auth and the request gate. */
export function scopesOf(principal: Principal | null): AuthScopes {
  return { authenticated: principal !== null, staff: principal?.role === 'staff' };
}

/** Pothos semantics of an `authScopes` map: any one listed scope is enough. */
export function grants(required: Partial<Record<keyof AuthScopes, boolean>>, scopes: AuthScopes): boolean {
  return Object.entries(required).some(([scope, wanted]) => wanted && scopes[scope as keyof AuthScopes]);
}
