import type { FastifyRequest } from 'fastify';
import type { AccessGrants } from '../../capabilities/accessGrants.ts';
import type { AuthSession, Principal } from '../../capabilities/authSession.ts';
import type { RegisteredRoute } from '../../capabilities/httpRoutes.ts';
import { codedError } from '../../kernel/errors.ts';
import type { EnvironmentSelector } from './selectEnvironment.ts';

export function hasPermission(principal: Principal, permission: string): boolean {
  return principal.isAdmin || principal.permissions.includes(permission);
}

/**
 * Runs first on every route, before the body is parsed or validated: identify the caller, then
 * refuse anonymous calls to non-public routes (when requireAuth) and calls lacking the route's
 * permission key. Fails closed.
 */
export function authGuard(route: RegisteredRoute, auth: AuthSession | undefined, requireAuth: boolean, environments: EnvironmentSelector, grants?: AccessGrants) {
  return async (request: FastifyRequest): Promise<void> => {
    request.environmentId = environments(request);
    const authenticated = auth ? await auth.authenticate(request) : null;
    // Positions, permission sets and route keys come from the environment's assignments.
    request.principal = authenticated && grants ? await grants.resolve(authenticated) : authenticated;
    const principal = request.principal;
    if (route.public && !route.permission) return;
    if (!principal) {
      if (requireAuth || route.permission) throw codedError('UNAUTHENTICATED');
      return;
    }
    // Until the password is changed (an auth route, public), the account may do nothing else.
    if (principal.mustChangePassword) throw codedError('PASSWORD_EXPIRED', { subjectId: principal.userId });
    if (route.permission && !hasPermission(principal, route.permission)) {
      throw codedError('PERMISSION_DENIED', { permission: route.permission, subjectId: principal.userId });
    }
  };
}
