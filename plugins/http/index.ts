import type { FastifyInstance } from 'fastify';
import type { AuthSession } from '../../capabilities/authSession.ts';
import { definePlugin, perConsumer } from '../../kernel/definePlugin.ts';
import { authGuard } from './authGuard.ts';
import { createServer } from './createServer.ts';
import { addDiscoveryRoutes } from './discoveryRoutes.ts';
import { httpOptionsSchema } from './httpOptions.ts';
import { RouteRegistry } from './routeRegistry.ts';

interface HttpState {
  registry: RouteRegistry;
  app: FastifyInstance | null;
  address: string | null;
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
  requires: ['runtime.info'],
  optional: ['auth.session'],
  provides: ['http.routes', 'http.server'],
  options: httpOptionsSchema,
  register(ctx) {
    const state: HttpState = { registry: new RouteRegistry(), app: null, address: null };
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
    addDiscoveryRoutes(state.registry.viewFor(ctx.plugin.name), ctx.resolve('runtime.info'), Date.now());
  },
  async ready(ctx) {
    const state = states.get(ctx)!;
    const info = ctx.resolve('runtime.info');
    const auth = ctx.resolve('auth.session') as AuthSession | undefined;
    const app = createServer(ctx.options, ctx.log);
    for (const route of state.registry.markMounted()) {
      app.route({
        method: route.method,
        url: route.fullPath,
        ...(route.schema ? { schema: route.schema } : {}),
        ...(route.bodyLimit ? { bodyLimit: route.bodyLimit } : {}),
        preHandler: authGuard(route, auth, info.requireAuth),
        handler: route.handler,
      });
    }
    await app.ready();
    state.app = app;
    if (ctx.options.listen) {
      state.address = await app.listen({ port: ctx.options.port, host: ctx.options.host });
      ctx.log.info({ url: state.address }, 'listening');
    }
  },
  async drain(ctx) {
    // Stop accepting connections and finish the requests in flight.
    await states.get(ctx)?.app?.close();
  },
});
