import type { HttpRoutes, RegisteredRoute, RouteDefinition } from '../../capabilities/httpRoutes.ts';
import { codedError } from '../../kernel/errors.ts';

export const API_PREFIX = '/api/v1';

export interface OwnedRoute extends RegisteredRoute {
  handler: RouteDefinition['handler'];
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
    if (!METHODS.has(route.method) || !route.path.startsWith('/') || typeof route.handler !== 'function') {
      throw codedError('KERNEL_INVALID_MANIFEST', {
        plugin: owner, path: `route ${route.method} ${route.path}`, reason: 'a route needs a method, a path starting with / and a handler',
        fix: 'see RouteDefinition in capabilities/httpRoutes.ts',
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

  list(): RegisteredRoute[] {
    return this.routes.map(({ handler: _handler, ...rest }) => rest);
  }

  /** The per-plugin view handed out through the `http.routes` capability. */
  viewFor(owner: string): HttpRoutes {
    return { add: (route) => this.add(owner, route), list: () => this.list() };
  }
}
