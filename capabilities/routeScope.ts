import { isCredentialScope, type CredentialScope } from './credentialScopes.ts';
import type { RouteDefinition } from './httpRoutes.ts';

/**
 * The scope a scoped credential needs for a route: the declared one, else `data:read` for GET and
 * `data:write` for any other method, so a route that declares nothing fails closed. Null: `none`.
 */
export function routeScope(route: Pick<RouteDefinition, 'method' | 'scope'>): CredentialScope | null {
  if (route.scope === 'none') return null;
  if (route.scope !== undefined) return route.scope;
  return route.method === 'GET' ? 'data:read' : 'data:write';
}

/** Whether a declared `scope` is one the guard knows (a credential scope or `none`). */
export function isRouteScope(value: unknown): boolean {
  return value === undefined || value === 'none' || isCredentialScope(value);
}
