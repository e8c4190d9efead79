import { definePlugin } from '../../kernel/definePlugin.ts';
import { addDelegationRoutes } from './delegationRoutes.ts';
import { addExplainRoute } from './explainRoute.ts';
import { addFieldPreviewRoute } from './fieldPreviewRoute.ts';
import { addRecordShareRoutes } from './recordShareRoutes.ts';
import { addSharingRuleRoutes } from './sharingRuleRoutes.ts';

/**
 * Sharing over HTTP: per-record shares, sharing rules with a dry run, the admin-only access
 * explanation, the dry run of a permission set's field permissions, and delegations. The rows live in
 * engine-owned objects (read-only through /data); enforcement is the data engine's.
 */
export default definePlugin({
  name: 'sharing',
  version: '16.0.0',
  kernel: '^16.0.0',
  requires: ['http.routes', 'data.engine', 'access.grants', 'metadata.registry'],
  optional: ['auth.identity'],
  register(ctx) {
    const routes = ctx.resolve('http.routes');
    const engine = ctx.resolve('data.engine');
    const grants = ctx.resolve('access.grants');
    const metadata = ctx.resolve('metadata.registry');
    addRecordShareRoutes(routes, engine, grants, metadata);
    addSharingRuleRoutes(routes, engine, grants);
    addExplainRoute(routes, grants);
    addFieldPreviewRoute(routes, grants);
    addDelegationRoutes(routes, engine, () => ctx.resolve('auth.identity'));
  },
});
