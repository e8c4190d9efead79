import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AccessGrants } from '../../capabilities/accessGrants.ts';
import type { AuthSession } from '../../capabilities/authSession.ts';
import type { DataWriteTokens } from '../../capabilities/dataWriteTokens.ts';
import type { RouteSchema } from '../../capabilities/httpRoutes.ts';
import { definePlugin, perConsumer } from '../../kernel/definePlugin.ts';
import { allowedMethods } from './allowedMethods.ts';
import { API_VERSIONS, deprecationHeaders, pathIn } from './apiVersions.ts';
import { authGuard } from './authGuard.ts';
import { createServer } from './createServer.ts';
import { routeCompilers } from './routeCompilers.ts';
import { addStreamedBody } from './streamedBody.ts';
import { addDiscoveryRoutes, type BootStage } from './discoveryRoutes.ts';
import { httpOptionsSchema } from './httpOptions.ts';
import { addPluginsRoute } from './pluginsRoute.ts';
import { API_PREFIX, RouteRegistry } from './routeRegistry.ts';
import { ENVIRONMENT_PREFIX, selectEnvironment } from './selectEnvironment.ts';

type onRequestHook = (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => void;

interface HttpState {
  registry: RouteRegistry;
  app: FastifyInstance | null;
  address: string | null;
  /** Where the boot is: /health answers 200 only once every phase is done (booted). */
  boot: { stage: BootStage };
}

// One state per kernel: the kernel hands the same context object to every phase of a plugin.
const states = new WeakMap<object, HttpState>();

/**
 * The HTTP shell: fastify, the route registry every plugin declares into, the error envelope,
 * authentication and permission checks per route, discovery and health.
 */
export default definePlugin({
  name: 'http',
  version: '16.0.0',
  kernel: '^16.0.0',
  requires: ['runtime.info', 'kernel.plugins'],
  optional: ['auth.session', 'access.grants', 'data.writeTokens', 'events.bus'],
  provides: ['http.routes', 'http.server'],
  options: httpOptionsSchema,
  register(ctx) {
    const state: HttpState = { registry: new RouteRegistry(), app: null, address: null, boot: { stage: 'starting' } };
    states.set(ctx, state);
    ctx.provide('http.routes', perConsumer(
      (consumer) => state.registry.viewFor(consumer.name),
      (consumer) => state.registry.discard(consumer.name),
    ));
    ctx.provide('http.server', {
      inject: async (options) => {
        if (!state.app) throw new Error('the HTTP server is not ready yet');
        return state.app.inject(options);
      },
      url: () => state.address,
    });
    addDiscoveryRoutes(state.registry.viewFor(ctx.plugin.name), ctx.resolve('runtime.info'), Date.now(), state.boot, ctx.resolve('events.bus'));
    addPluginsRoute(state.registry.viewFor(ctx.plugin.name), ctx.resolve('kernel.plugins'));
    // Booted once every plugin's ready and the other runtime.ready handlers ran (this one runs last);
    // not ready again from the first runtime.stopping handler on.
    ctx.hook('runtime.ready', () => {
      state.boot.stage = 'ready';
    }, { priority: Number.MAX_SAFE_INTEGER });
    ctx.hook('runtime.stopping', () => {
      state.boot.stage = 'stopping';
    }, { priority: -Number.MAX_SAFE_INTEGER });
  },
  async ready(ctx) {
    const state = states.get(ctx)!;
    const info = ctx.resolve('runtime.info');
    const auth = ctx.resolve('auth.session') as AuthSession | undefined;
    const grants = ctx.resolve('access.grants') as AccessGrants | undefined;
    const routes = state.registry.markMounted();
    // Every API route is served below /api/v1 and /api/v2, and below .../environments/:environmentId
    // of each (docs/versioning.md); a root route once, as v1.
    const urlsOf = (route: (typeof routes)[number], version: 'v1' | 'v2') => {
      if (route.root) return version === 'v1' ? [route.fullPath] : [];
      const path = pathIn(version, route.fullPath);
      return [path, pathIn(version, ENVIRONMENT_PREFIX) + route.fullPath.slice(API_PREFIX.length)];
    };
    const mounts = routes.flatMap((route) => API_VERSIONS.flatMap((version) => urlsOf(route, version).map((url) => ({ route, version, url }))));
    const compilers = routeCompilers();
    const tokens = ctx.resolve('data.writeTokens') as DataWriteTokens | undefined;
    const app = createServer(ctx.options, ctx.log, allowedMethods(mounts.map(({ route, url }) => ({ method: route.method, url }))), compilers, tokens);
    app.decorateRequest('apiVersion', 'v1');
    const environments = selectEnvironment(info.environments.map((e) => e.id), info.defaultEnvironment);
    const schemaOf = sharedSchemas();
    const guards = new Map(routes.map((route) => [route, authGuard(route, auth, info.requireAuth, environments, grants)]));
    const mountOne = (target: FastifyInstance, { route, version, url }: (typeof mounts)[number]) => {
      const variant = version === 'v2' ? route.v2 : undefined;
      const given = variant?.schema ?? route.schema;
      const schema = given ? schemaOf(given) : undefined;
      const streamed = route.streamedBody ?? [];
      // Other media types skip the JSON body schema: the handler reads and checks them.
      if (schema?.body && streamed.length > 0) schema.body = { content: { 'application/json': { schema: schema.body } } };
      const deprecated = version === 'v1' && route.v2 !== undefined;
      const tag: onRequestHook = deprecated
        ? (request, reply, done) => {
            request.apiVersion = version;
            const q = request.url.indexOf('?');
            reply.headers(deprecationHeaders(q >= 0 ? request.url.slice(0, q) : request.url));
            done();
          }
        : (request, _reply, done) => {
            request.apiVersion = version;
            done();
          };
      target.route({
        method: route.method,
        url,
        ...(schema ? { schema } : {}),
        ...(route.bodyLimit ? { bodyLimit: route.bodyLimit } : {}),
        // Before the body is read: an anonymous caller learns nothing from parsing or schema errors.
        onRequest: [tag, guards.get(route)!],
        handler: variant?.handler ?? route.handler,
      });
    };
    for (const route of routes) {
      const own = mounts.filter((m) => m.route === route);
      const streamed = route.streamedBody ?? [];
      if (streamed.length === 0) for (const m of own) mountOne(app, m);
      else {
        void app.register(async (child) => {
          addStreamedBody(child, streamed, route.bodyLimit ?? ctx.options.bodyLimit);
          for (const m of own) mountOne(child, m);
        });
      }
    }
    await app.ready();
    state.app = app;
    if (ctx.options.listen) {
      state.address = await app.listen({ port: ctx.options.port, host: ctx.options.host });
      ctx.log.info({ url: state.address }, 'listening');
      // Requests may arrive from now on: a later phase that is slow must not end this process.
      ctx.serving();
    }
    // Requests are answered meanwhile; a schema that does not compile still fails the boot.
    await compilers.compileRemaining();
  },
  async drain(ctx) {
    // Stop accepting connections and finish the requests in flight.
    await states.get(ctx)?.app?.close();
  },
});

/**
 * Route schemas with equal parts made to share those parts: the validator and serializer
 * compilers cache by schema object, so an identical schema declared by several routes (an id
 * parameter, an empty query) is compiled once instead of once per route.
 */
function sharedSchemas(): (schema: RouteSchema) => RouteSchema {
  const byText = new Map<string, object>();
  const share = (part: object): object => {
    const text = JSON.stringify(part);
    const known = byText.get(text);
    if (known) return known;
    byText.set(text, part);
    return part;
  };
  return (schema) => {
    const shared: RouteSchema = {};
    if (schema.params) shared.params = share(schema.params);
    if (schema.querystring) shared.querystring = share(schema.querystring);
    if (schema.body) shared.body = share(schema.body);
    if (schema.response) shared.response = Object.fromEntries(Object.entries(schema.response).map(([code, part]) => [code, share(part)]));
    return shared;
  };
}
