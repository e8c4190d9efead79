import type { AccessGrants } from '../../capabilities/accessGrants.ts';
import type { HttpRoutes } from '../../capabilities/httpRoutes.ts';
import { codedError } from '../../kernel/errors.ts';
import { adminOnly, callerOf } from './sharingContext.ts';

const PERMISSION = 'access:explain';

/** Admin-only: for a user, an object and optionally a record, what grants or denies read and edit. */
export function addExplainRoute(routes: HttpRoutes, grants: AccessGrants): void {
  routes.add({
    method: 'GET', path: '/access/explain', tags: ['sharing'], summary: 'Explain why a user may or may not read and edit an object or record', permission: PERMISSION,
    errorStatuses: [404],
    schema: {
      querystring: {
        type: 'object',
        properties: { userId: { type: 'string', minLength: 1, maxLength: 64 }, object: { type: 'string', minLength: 1, maxLength: 64 }, recordId: { type: 'string', minLength: 1, maxLength: 64 } },
        required: ['userId', 'object'],
        additionalProperties: false,
      },
    },
    handler: (request) => {
      adminOnly(callerOf(request), PERMISSION);
      const q = request.query as { userId: string; object: string; recordId?: string };
      if (!/^[a-z][a-z0-9_]{0,62}$/.test(q.object)) throw codedError('NOT_FOUND', { what: `Object '${q.object.slice(0, 64)}'` });
      return grants.explain(request.environmentId, q.userId, q.object, q.recordId);
    },
  });
}
