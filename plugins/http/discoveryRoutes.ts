import type { EventsBus } from '../../capabilities/eventsBus.ts';
import type { HttpRoutes, RegisteredRoute } from '../../capabilities/httpRoutes.ts';
import type { RuntimeInfo } from '../../capabilities/runtimeInfo.ts';
import { codedError } from '../../kernel/errors.ts';
import { API_VERSIONS, DEPRECATION_POLICY, prefixOf } from './apiVersions.ts';

export { DEPRECATION_POLICY } from './apiVersions.ts';

function describe(route: RegisteredRoute) {
  return {
    method: route.method,
    path: route.fullPath,
    summary: route.summary,
    public: route.public === true,
    permission: route.permission ?? null,
    plugin: route.owner,
    ...(route.v2 ? { v2Change: route.v2.change } : {}),
  };
}

/** `starting` until every boot phase is done, `ready` then, `stopping` once shutdown began. */
export type BootStage = 'starting' | 'ready' | 'stopping';

/**
 * GET /api/v1, /api/v1/discovery and /api/v1/health (and their /api/v2 forms). Health is readiness:
 * 200 once the process booted, 503 while it starts or stops; its details say whether the signal
 * paths between processes are live.
 */
export function addDiscoveryRoutes(
  routes: HttpRoutes, info: RuntimeInfo, started: number, boot: { readonly stage: BootStage } = { stage: 'ready' }, bus?: Pick<EventsBus, 'signals' | 'trusted'>,
): void {
  const discovery = (request: { principal: unknown; apiVersion: 'v1' | 'v2' }) => {
    const prefix = prefixOf(request.apiVersion);
    const base = {
      name: 'osr-runtime',
      version: info.version,
      apiVersion: request.apiVersion,
      apiVersions: API_VERSIONS.map((v) => ({ version: v, path: prefixOf(v), ...(v in DEPRECATION_POLICY.deprecated ? { status: 'deprecated', ...DEPRECATION_POLICY.deprecated[v as 'v1'] } : { status: 'current' }) })),
      protocol: info.protocol,
      api: DEPRECATION_POLICY,
      scoping: { mode: 'environment', header: 'X-Environment-Id', pathPrefix: `${prefix}/environments/:environmentId` },
      auth: { requireAuth: info.requireAuth, schemes: ['cookie', 'bearer', 'apiKey'], signIn: `${prefix}/auth/sign-in` },
    };
    // The route list is for callers who may use it; anonymous callers get the rest.
    if (!request.principal && info.requireAuth) return { ...base, routes: null, routesHint: 'authenticate to list routes' };
    return { ...base, routes: routes.list(request.apiVersion).map(describe) };
  };
  for (const path of ['/', '/discovery']) {
    routes.add({
      method: 'GET', path, public: true, tags: ['discovery'],
      summary: path === '/' ? 'Service discovery: routes, version, API versions, scoping mode, deprecation horizon' : 'Alias of GET /api/v1 (GET /api/v2 in v2)',
      handler: (request) => discovery(request),
    });
  }
  routes.add({
    method: 'GET', path: '/health', public: true, tags: ['discovery'],
    summary: 'Readiness: status, version, uptime and whether the signal paths between processes are live (details.signals) once booted; 503 SERVICE_UNAVAILABLE while the boot or the shutdown runs',
    errorStatuses: [503],
    schema: {
      response: {
        200: {
          type: 'object',
          properties: {
            status: { type: 'string' }, version: { type: 'string' }, uptimeSeconds: { type: 'number' },
            details: {
              type: 'object',
              properties: {
                caches: { type: 'string' },
                signals: {
                  type: 'array',
                  items: { type: 'object', properties: { path: { type: 'string' }, live: { type: 'boolean' }, lastHeardMs: { type: ['number', 'null'] } } },
                },
              },
            },
          },
        },
      },
    },
    handler: (_request, reply) => {
      if (boot.stage !== 'ready') {
        void reply.header('retry-after', '1');
        throw codedError('SERVICE_UNAVAILABLE', { service: 'The server', reason: boot.stage === 'starting' ? 'it is still starting (boot phases are running)' : 'it is shutting down' });
      }
      const signals = bus?.signals() ?? [];
      // Caches are trusted while every signal path is live (a process alone has none).
      const caches = signals.every((s) => s.live) ? 'trusted' : 'not trusted: a signal path between processes is not proven live; reads and credential checks go to the database';
      return { status: 'ok', version: info.version, uptimeSeconds: Math.round((Date.now() - started) / 1000), details: { caches, signals } };
    },
  });
}
