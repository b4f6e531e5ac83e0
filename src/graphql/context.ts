import type { AppDeps, RequestContext } from '../context.ts';
import type { Caller } from './operations.ts';

/**
 * An operation's context (src/context.ts) for its caller. A credential the authenticator has cached gives it
 * at once; any other, once it is checked (failed logins count against the caller's address).
 */
export function createRequestContext(
  deps: AppDeps,
  caller: Caller,
  signal?: AbortSignal,
): RequestContext | Promise<RequestContext> {
  const auth = deps.authenticator.authenticate(caller.authorization, caller.address);
  return auth instanceof Promise
    ? auth.then((checked) => contextOf(deps, caller, checked, signal))
    : contextOf(deps, caller, auth, signal);
}

const contextOf = (
  deps: AppDeps,
  caller: Caller,
  auth: RequestContext['auth'],
  signal: AbortSignal | undefined,
): RequestContext => ({
  deps,
  auth,
  principal: auth.status === 'authenticated' ? auth.principal : null,
  idempotencyKey: caller.idempotencyKey ?? null,
  shared: new Map(),
  signal,
});
