import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AccessGrants } from '../../capabilities/accessGrants.ts';
import type { AuthSession, Principal } from '../../capabilities/authSession.ts';
import type { RegisteredRoute } from '../../capabilities/httpRoutes.ts';
import { scopeRefusal } from '../../capabilities/credentialScopes.ts';
import { codedError, isCodedError } from '../../kernel/errors.ts';
import { routeScope } from '../../capabilities/routeScope.ts';
import { holdsPermission } from '../../capabilities/holdsPermission.ts';
import type { EnvironmentSelector } from './selectEnvironment.ts';

function isThenable(value: Principal | PromiseLike<Principal | null>): value is PromiseLike<Principal | null> {
  return typeof (value as { then?: unknown }).then === 'function';
}

/**
 * A scoped credential holds only its scopes, on every route: writes need data:write unless declared
 * otherwise. A public route is scoped only when it declares a scope (a form submission acts for its caller).
 */
function refuseScope(route: RegisteredRoute, principal: Principal): void {
  if (principal.scopes === undefined || (route.public && route.scope === undefined)) return;
  const scope = routeScope(route);
  const refusal = scope && scopeRefusal(principal, scope, `${route.method} ${route.fullPath}`);
  if (refusal) throw refusal;
}

/** Whether the caller may use the route; throws the coded refusal. */
function admit(route: RegisteredRoute, principal: Principal | null, requireAuth: boolean): void {
  if (route.public && !route.permission) {
    if (principal) refuseScope(route, principal);
    return;
  }
  if (!principal) {
    if (requireAuth || route.permission) throw codedError('UNAUTHENTICATED');
    return;
  }
  // Until the password is changed (an auth route, public), the account may do nothing else.
  if (principal.mustChangePassword) throw codedError('PASSWORD_EXPIRED', { subjectId: principal.userId });
  refuseScope(route, principal);
  if (route.permission && !holdsPermission(principal, route.permission)) {
    throw codedError('PERMISSION_DENIED', { permission: route.permission, subjectId: principal.userId });
  }
}

/**
 * Runs first on every route, before the body is parsed or validated: identify the caller, then
 * refuse anonymous calls to non-public routes (when requireAuth), scoped credentials lacking the
 * route's scope, and calls lacking the route's permission key. Fails closed. A callback hook: a
 * request without a credential, or with one verified and resolved moments ago, is decided without a promise.
 */
export function authGuard(route: RegisteredRoute, auth: AuthSession | undefined, requireAuth: boolean, environments: EnvironmentSelector, grants?: AccessGrants) {
  // Positions, permission sets and route keys come from the environment's assignments.
  // A credential that was sent but is not valid is refused (401) on every route that is not public,
  // whatever requireAuth says; a public route serves its caller as anonymous.
  const open = route.public && !route.permission;
  const lenient = (error: unknown): null => {
    if (open && isCodedError(error) && error.code === 'UNAUTHENTICATED') return null;
    throw error;
  };
  const settle = async (request: FastifyRequest, found: Principal | null | Promise<Principal | null>): Promise<void> => {
    const authenticated = await Promise.resolve(found).catch(lenient);
    request.principal = authenticated && grants ? await grants.resolve(authenticated) : authenticated;
    admit(route, request.principal, requireAuth);
  };
  return (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void => {
    let pending: Promise<void> | undefined;
    try {
      request.environmentId = environments(request);
      let found: ReturnType<AuthSession['authenticate']> = null;
      try {
        found = auth ? auth.authenticate(request) : null;
      } catch (error) {
        found = lenient(error);
      }
      // A caller verified and resolved moments ago is admitted without a promise.
      const known = found === null || isThenable(found) ? undefined : grants ? grants.resolveKnown(found) : found;
      if (found === null) admit(route, (request.principal = null), requireAuth);
      else if (known) admit(route, (request.principal = known), requireAuth);
      else pending = settle(request, found);
    } catch (error) {
      done(error as Error);
      return;
    }
    if (pending) pending.then(() => done(), done);
    else done();
  };
}
