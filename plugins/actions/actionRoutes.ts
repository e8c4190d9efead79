import type { FastifyRequest } from 'fastify';
import type { HttpRoutes } from '../../capabilities/httpRoutes.ts';
import type { ActionsRegistry } from '../../capabilities/actionsRegistry.ts';
import type { ResolvedAction } from '../../metadata/actionTypes.ts';
import { actionBodySchema } from './inputSchema.ts';

const response = { 200: { type: 'object', properties: { result: {} }, required: ['result'] } };
const tags = ['actions'];

const run = (registry: ActionsRegistry, name: string) => (request: FastifyRequest) =>
  registry.run(name, request.body ?? {}, request.principal, { environmentId: request.environmentId, requestId: request.id });

/**
 * POST /actions/<name> for each declared action: its body schema generated from the declaration
 * (validated before the handler, and documented), its permission key checked by the route guard
 * before the body is read. The run itself goes through the registry, which checks again, so
 * that every caller of an action meets the same checks.
 */
export function addActionRoute(routes: HttpRoutes, registry: ActionsRegistry, action: ResolvedAction): void {
  const on = action.object ? ` on a ${action.object} record (body.recordId)` : '';
  routes.add({
    method: 'POST', path: `/actions/${action.name}`, tags, scope: 'actions:execute',
    summary: `${action.label}${on}${action.description ? `: ${action.description}` : ''}`,
    ...(action.permission ? { permission: action.permission } : {}),
    // A record action answers 404 for a record the caller cannot see or that does not exist.
    ...(action.object ? { errorStatuses: [404] } : {}),
    schema: { body: actionBodySchema(action), response },
    handler: run(registry, action.name),
  });
}

/** Any other name: 404 NOT_FOUND naming the action (declared actions have their own static routes). */
export function addUnknownActionRoute(routes: HttpRoutes, registry: ActionsRegistry): void {
  routes.add({
    method: 'POST', path: '/actions/:action', tags, scope: 'actions:execute',
    summary: 'Run a declared action; an action that is not declared is 404',
    schema: { params: { type: 'object', properties: { action: { type: 'string', maxLength: 64 } }, required: ['action'] } },
    handler: (request) => run(registry, (request.params as { action: string }).action)(request),
  });
}
