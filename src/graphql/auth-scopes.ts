export interface AuthScopes {
  /** Any account, a door scanner's included (`me`). */
  authenticated: boolean;
  /** What a visitor may do (hours, events, tickets and orders of its own): visitor and staff accounts. */
  visitor: boolean;
  /** A door scanner's account: it checks tickets in and reads them. */
  gate: boolean;
  staff: boolean;
}

/**
 * What a caller may do; the one definition behind field auth and the request gate. The caller is the
 * request's principal (src/accounts/authenticator.ts), of which the engine reads only the role.
 */
export function scopesOf(principal: { role: string } | null): AuthScopes {
  const role = principal?.role;
  return {
    authenticated: principal !== null,
    visitor: role === 'visitor' || role === 'staff',
    gate: role === 'gate',
    staff: role === 'staff',
  };
}

const ROLES_OF_SCOPE: Record<keyof AuthScopes, string[]> = {
  authenticated: ['visitor', 'gate', 'staff'],
  visitor: ['visitor', 'staff'],
  gate: ['gate'],
  staff: ['staff'],
};

/** Why a known account is refused an operation: the roles its `authScopes` map lets in. */
export function forbiddenDetail(required: Partial<Record<keyof AuthScopes, boolean>>): string {
  const roles = new Set(
    Object.entries(required).flatMap(([scope, wanted]) =>
      wanted ? (ROLES_OF_SCOPE[scope as keyof AuthScopes] ?? []) : [],
    ),
  );
  const named = ['visitor', 'gate', 'staff'].filter((role) => roles.has(role));
  return `This operation needs the ${named.join(' or ')} role`;
}

/** Pothos semantics of an `authScopes` map: any one listed scope is enough. */
export function grants(required: Partial<Record<keyof AuthScopes, boolean>>, scopes: AuthScopes): boolean {
  return Object.entries(required).some(([scope, wanted]) => wanted && scopes[scope as keyof AuthScopes]);
}
