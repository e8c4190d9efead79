import type { HttpRoutes, RegisteredRoute } from '../../capabilities/httpRoutes.ts';
import type { RuntimeInfo } from '../../capabilities/runtimeInfo.ts';

/** How long /api/v1 is served beside a future /api/v2. */
export const DEPRECATION_POLICY = {
  current: 'v1',
  supported: ['v1'],
  horizon: 'Breaking changes ship as /api/v2; /api/v1 is then served beside it for one more minor release.',
  sunset: null,
} as const;

function describe(route: RegisteredRoute) {
  return {
    method: route.method,
    path: route.fullPath,
    summary: route.summary,
    public: route.public === true,
    permission: route.permission ?? null,
    plugin: route.owner,
  };
}

/** GET /api/v1, /api/v1/discovery and /api/v1/health. */
export function addDiscoveryRoutes(routes: HttpRoutes, info: RuntimeInfo, started: number): void {
  const discovery = (request: { principal: unknown }) => {
    const base = {
      name: 'osr-runtime',
      version: info.version,
      protocol: info.protocol,
      api: DEPRECATION_POLICY,
      scoping: { mode: 'environment', header: 'X-Environment-Id', pathPrefix: '/api/v1/environments/:environmentId' },
      auth: { requireAuth: info.requireAuth, schemes: ['cookie', 'bearer', 'apiKey'], signIn: '/api/v1/auth/sign-in' },
    };
    // The route list is for callers who may use it; anonymous callers get the rest.
    if (!request.principal && info.requireAuth) return { ...base, routes: null, routesHint: 'authenticate to list routes' };
    return { ...base, routes: routes.list().map(describe) };
  };
  for (const path of ['/', '/discovery']) {
    routes.add({
      method: 'GET', path, public: true, tags: ['discovery'],
      summary: path === '/' ? 'Service discovery: routes, version, scoping mode, deprecation horizon' : 'Alias of GET /api/v1',
      handler: (request) => discovery(request),
    });
  }
  routes.add({
    method: 'GET', path: '/health', public: true, tags: ['discovery'], summary: 'Liveness: status, version and uptime',
    schema: {
      response: {
        200: {
          type: 'object',
          properties: { status: { type: 'string' }, version: { type: 'string' }, uptimeSeconds: { type: 'number' } },
        },
      },
    },
    handler: () => ({ status: 'ok', version: info.version, uptimeSeconds: Math.round((Date.now() - started) / 1000) }),
  });
}
