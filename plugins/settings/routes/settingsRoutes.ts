import type { FastifyRequest } from 'fastify';
import { auditSourceOf, type AuditRecord } from '../../../capabilities/auditRecord.ts';
import type { HttpRoutes } from '../../../capabilities/httpRoutes.ts';
import { SETTINGS_NAMESPACES, type SettingsNamespace } from '../../../capabilities/settingsStore.ts';
import { codedError } from '../../../kernel/errors.ts';
import type { SettingsService } from '../createSettingsService.ts';

const params = { type: 'object', required: ['namespace'], properties: { namespace: { type: 'string', maxLength: 32 } } };

function namespaceOf(request: FastifyRequest): SettingsNamespace {
  const { namespace } = request.params as { namespace: string };
  if ((SETTINGS_NAMESPACES as readonly string[]).includes(namespace)) return namespace as SettingsNamespace;
  throw codedError('NOT_FOUND', { what: `Settings namespace '${namespace.slice(0, 32)}'`, namespace: namespace.slice(0, 32), namespaces: SETTINGS_NAMESPACES });
}

/** Tenant admins only, by the verified principal (never a header a client can set). */
function adminOf(request: FastifyRequest): string | null {
  const principal = request.principal;
  if (!principal) throw codedError('UNAUTHENTICATED', {});
  if (!principal.isAdmin) throw codedError('PERMISSION_DENIED', { permission: 'admin', reason: 'settings hold the providers and credentials of the environment' });
  return principal.kind === 'system' ? null : principal.userId;
}

/** GET/PUT /settings/:namespace of the request's environment. */
export function addSettingsRoutes(routes: HttpRoutes, service: SettingsService, audit?: AuditRecord): void {
  routes.add({
    method: 'GET', path: '/settings/:namespace', tags: ['settings'],
    summary: "The environment's settings of a namespace (email, sms, auth, ai); each secret shows only { set: true }. Tenant admins only",
    errorStatuses: [404],
    schema: { params },
    handler: (request) => {
      adminOf(request);
      return service.view(request.environmentId, namespaceOf(request));
    },
  });
  routes.add({
    method: 'PUT', path: '/settings/:namespace', tags: ['settings'],
    summary: "Replace the environment's settings of a namespace, validated like the config file; a secret left out or sent as { set: true } keeps its value, null clears it. Tenant admins only",
    errorStatuses: [400, 404],
    bodyLimit: 256 * 1024,
    schema: { params, body: { type: 'object' } },
    handler: async (request) => {
      const actor = adminOf(request);
      const namespace = namespaceOf(request);
      const view = await service.write(request.environmentId, namespace, request.body, actor);
      // The trail names the namespace and its revision; values stay out (secrets are write-only).
      await audit?.record(auditSourceOf(request), { action: 'settings.changed', target: { type: 'settings', id: namespace }, after: { revision: view.revision } });
      return view;
    },
  });
}
