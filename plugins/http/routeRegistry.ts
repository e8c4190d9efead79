import type { ApiVersion, HttpRoutes, RegisteredRoute, RouteDefinition, RouteVariant } from '../../capabilities/httpRoutes.ts';
import { codedError } from '../../kernel/errors.ts';
import { pathIn } from './apiVersions.ts';
import { isRouteScope } from '../../capabilities/routeScope.ts';

export const API_PREFIX = '/api/v1';

export interface OwnedRoute extends Omit<RegisteredRoute, 'v2'> {
  handler: RouteDefinition['handler'];
  v2?: RouteVariant;
}

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);

/** Routes declared by every plugin, with their owner; mounted when the runtime is ready. */
export class RouteRegistry {
  private routes: OwnedRoute[] = [];
  private mounted = false;

  add(owner: string, route: RouteDefinition): void {
    if (this.mounted) {
      throw codedError('KERNEL_FROZEN', { plugin: owner, action: `add route ${route.method} ${route.path}`, fix: 'declare routes in register or start' });
    }
    const badVariant = route.v2 !== undefined && (route.root || typeof route.v2.handler !== 'function' || typeof route.v2.change !== 'string' || route.v2.change === '');
    if (!METHODS.has(route.method) || !route.path.startsWith('/') || typeof route.handler !== 'function' || badVariant) {
      throw codedError('KERNEL_INVALID_MANIFEST', {
        plugin: owner, path: `route ${route.method} ${route.path}`, reason: badVariant ? 'a v2 variant needs a handler and a change, and root routes have none' : 'a route needs a method, a path starting with / and a handler',
        fix: 'see RouteDefinition in capabilities/httpRoutes.ts',
      });
    }
    if (!isRouteScope(route.scope)) {
      throw codedError('KERNEL_INVALID_MANIFEST', {
        plugin: owner, path: `route ${route.method} ${route.path}: scope`, reason: `'${String(route.scope)}' is not a credential scope`,
        fix: "use 'data:read', 'data:write', 'actions:execute' or 'none' (see RouteDefinition.scope)",
      });
    }
    const fullPath = route.root ? route.path : `${API_PREFIX}${route.path === '/' ? '' : route.path}`;
    const clash = this.routes.find((r) => r.method === route.method && r.fullPath === fullPath);
    if (clash) {
      throw codedError('KERNEL_INVALID_MANIFEST', {
        plugin: owner, path: `route ${route.method} ${fullPath}`, reason: `already declared by '${clash.owner}'`, fix: 'choose another path',
      });
    }
    this.routes.push({ ...route, owner, fullPath });
  }

  /** Forget the routes of a plugin left out of the boot. */
  discard(owner: string): void {
    this.routes = this.routes.filter((r) => r.owner !== owner);
  }

  markMounted(): readonly OwnedRoute[] {
    this.mounted = true;
    this.routes = Object.freeze([...this.routes]) as OwnedRoute[];
    return this.routes;
  }

  list(version: ApiVersion = 'v1'): RegisteredRoute[] {
    return this.routes.map(({ handler: _handler, v2, ...rest }) => {
      const listed: RegisteredRoute = { ...rest, fullPath: pathIn(version, rest.fullPath) };
      if (v2) {
        listed.v2 = { change: v2.change };
        if (version === 'v2') {
          if (v2.summary !== undefined) listed.summary = v2.summary;
          if (v2.schema !== undefined) listed.schema = v2.schema;
        }
      }
      return listed;
    });
  }

  /** The per-plugin view handed out through the `http.routes` capability. */
  viewFor(owner: string): HttpRoutes {
    return { add: (route) => this.add(owner, route), list: (version) => this.list(version) };
  }
}
