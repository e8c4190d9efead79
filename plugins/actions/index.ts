import { definePlugin } from '../../kernel/definePlugin.ts';
import { KernelBootError } from '../../kernel/errors.ts';
import { addActionRoute, addUnknownActionRoute } from './actionRoutes.ts';
import { createActionsService, type ActionsService } from './createActionsService.ts';

const services = new WeakMap<object, ActionsService>();

/**
 * Actions declared by apps (actions/<name>.json), served as POST /api/v1/actions/<name> and
 * offered to other plugins as `actions.registry`: run an action with the route's checks, list
 * them, and register the functions of handler actions. See docs/automation.md.
 */
export default definePlugin({
  name: 'actions',
  version: '16.0.0',
  kernel: '^16.0.0',
  requires: ['data.engine', 'access.grants', 'metadata.registry', 'http.routes'],
  provides: ['actions.registry'],
  register(ctx) {
    const service = createActionsService(ctx.resolve('metadata.registry'), ctx.resolve('data.engine'), ctx.resolve('access.grants'));
    services.set(ctx, service);
    ctx.provide('actions.registry', { handle: service.handle, startFlowsWith: service.startFlowsWith, list: service.list, get: service.get, inputSchema: service.inputSchema, run: service.run });
    addUnknownActionRoute(ctx.resolve('http.routes'), service);
  },
  start(ctx) {
    const service = services.get(ctx)!;
    // Plugins register handlers during register; by now every one has had its turn.
    service.freeze();
    const errors = service.checkHandlers();
    if (errors.length > 0) throw new KernelBootError(errors);
    const routes = ctx.resolve('http.routes');
    for (const action of service.list()) addActionRoute(routes, service, action);
    ctx.log.info({ actions: service.list().map((a) => a.name) }, 'actions loaded');
  },
});
