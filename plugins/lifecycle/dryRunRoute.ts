import type { HttpRoutes } from '../../capabilities/httpRoutes.ts';
import type { LifecycleRetention } from '../../capabilities/lifecycleRetention.ts';
import { requireAdmin } from '../http/requireAdmin.ts';

const contract = {
  type: 'object',
  properties: {
    name: { type: 'string' }, plugin: { type: 'string' }, object: { type: 'string' }, keepDays: { type: 'integer' }, overridden: { type: 'boolean' },
    cutoff: { type: ['string', 'null'] }, status: { type: 'string', enum: ['applied', 'kept', 'missing', 'skipped'] }, rows: { type: 'integer' }, more: { type: 'boolean' }, reason: { type: 'string' },
  },
  required: ['name', 'plugin', 'object', 'keepDays', 'overridden', 'cutoff', 'status', 'rows', 'more'],
};

/**
 * GET /lifecycle/dry-run (admins): what each retention contract would remove now in the request's
 * environment, counted and not removed, as `osr lifecycle --dry-run` prints it.
 */
export function addDryRunRoute(routes: HttpRoutes, lifecycle: LifecycleRetention): void {
  routes.add({
    method: 'GET', path: '/lifecycle/dry-run', tags: ['lifecycle'],
    summary: 'Retention dry run (admins): each retention contract of the environment, its window, and the rows it would remove now; nothing is removed',
    schema: {
      querystring: { type: 'object', properties: {}, additionalProperties: false },
      response: {
        200: {
          type: 'object',
          properties: { dryRun: { type: 'boolean' }, ranAt: { type: 'string' }, environmentId: { type: 'string' }, contracts: { type: 'array', items: contract } },
          required: ['dryRun', 'ranAt', 'environmentId', 'contracts'],
        },
      },
    },
    handler: async (request) => {
      requireAdmin(request.principal, "the dry run counts every retention contract's rows in the environment");
      const report = await lifecycle.run({ dryRun: true, environmentId: request.environmentId });
      return { dryRun: report.dryRun, ranAt: report.ranAt, environmentId: request.environmentId, contracts: report.environments[0]?.contracts ?? [] };
    },
  });
}
