import type { AccessGrants } from '../../capabilities/accessGrants.ts';
import type { HttpRoutes } from '../../capabilities/httpRoutes.ts';
import { adminOnly, body, callerOf } from './sharingContext.ts';

const PERMISSION = 'access:preview';

const previewBody = {
  type: 'object', required: ['fields'], additionalProperties: false,
  properties: {
    permissionSet: { type: 'string', minLength: 1, maxLength: 64, description: 'Id of the permission set changed; absent: a set not yet saved' },
    fields: {
      type: 'object', maxProperties: 500,
      description: 'The set\'s proposed field permissions, { "object.field": { read?, edit? } }, replacing its current ones',
      additionalProperties: { type: 'object' },
    },
  },
};

/**
 * Admin-only dry run of a permission set's field permissions: before they are saved, which users
 * would gain or lose read and edit of which fields (a field named in any set is hidden from
 * everyone who holds no set granting it). Writes nothing.
 */
export function addFieldPreviewRoute(routes: HttpRoutes, grants: AccessGrants): void {
  routes.add({
    method: 'POST', path: '/access/field-preview', tags: ['sharing'], scope: 'data:read', permission: PERMISSION,
    summary: 'Dry run: which users would gain or lose which fields with a permission set\'s new field permissions',
    errorStatuses: [404], schema: { body: previewBody },
    handler: (request) => {
      adminOnly(callerOf(request), PERMISSION);
      const input = body(request) as { permissionSet?: string; fields: Record<string, unknown> };
      return grants.previewFields(request.environmentId, input.permissionSet ?? null, input.fields);
    },
  });
}
