import type { FastifyRequest } from 'fastify';
import { auditSourceOf, type AuditRecord } from '../../../capabilities/auditRecord.ts';
import type { HttpRoutes } from '../../../capabilities/httpRoutes.ts';
import type { MetaView } from './metaView.ts';
import type { Caller } from './overlayStore.ts';

/** Writes need this key; admins hold every key. */
export const WRITE_PERMISSION = 'metadata:write';

const segment = { type: 'string', minLength: 1, maxLength: 200 };
const params = (...names: string[]) => ({ type: 'object', properties: Object.fromEntries(names.map((n) => [n, segment])), required: names });
const noQuery = { type: 'object', additionalProperties: false };
const tags = ['metadata'];

const caller = (request: FastifyRequest): Caller => ({ environmentId: request.environmentId, principal: request.principal, requestId: request.id });
const p = (request: FastifyRequest) => request.params as Record<string, string>;

/** The metadata API: introspection of every type, layers, references, history, book trees and overlays. */
export function addMetaRoutes(routes: HttpRoutes, view: MetaView, audit?: AuditRecord): void {
  /** An overlay written or removed, in the audit trail. */
  const overlayChanged = async (request: FastifyRequest, change: 'upsert' | 'remove') => {
    const { type, section, name } = p(request);
    await audit?.record(auditSourceOf(request), { action: 'metadata.overlay_changed', target: { type: `${type}.${section}`, id: name }, after: { type, section, name, change } });
  };
  routes.add({
    method: 'GET', path: '/meta', tags, summary: 'Metadata types with their item counts and overlay sections, and the metadata version',
    schema: { querystring: noQuery },
    handler: (request) => view.summary(caller(request)),
  });
  routes.add({
    method: 'GET', path: '/meta/:type', tags, summary: 'Items of a metadata type as they are in effect; ?package=<app> keeps one package\'s items',
    schema: { params: params('type'), querystring: { type: 'object', properties: { package: { type: 'string', maxLength: 100 } }, additionalProperties: false } },
    handler: async (request) => {
      const { package: pkg } = request.query as { package?: string };
      return { type: p(request).type, items: await view.list(p(request).type!, pkg, caller(request)) };
    },
  });
  routes.add({
    method: 'GET', path: '/meta/:type/:name', tags,
    summary: 'One item as in effect; ?layers=true: its base, package and overlay layers and the effective merge',
    schema: { params: params('type', 'name'), querystring: { type: 'object', properties: { layers: { type: 'boolean' } }, additionalProperties: false } },
    handler: async (request) => {
      const layers = await view.item(p(request).type!, p(request).name!, caller(request));
      return (request.query as { layers?: boolean }).layers ? layers : layers.effective;
    },
  });
  routes.add({
    method: 'GET', path: '/meta/:type/:name/references', tags, summary: 'Items that reference this one: lookups, book pages, package overrides',
    schema: { params: params('type', 'name'), querystring: noQuery },
    handler: async (request) => ({ items: await view.references(p(request).type!, p(request).name!, caller(request)) }),
  });
  routes.add({
    method: 'GET', path: '/meta/:type/:name/history', tags, summary: 'Audit trail of the overlays of this item, newest first: who, when, before and after',
    schema: {
      params: params('type', 'name'),
      querystring: { type: 'object', properties: { limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 }, cursor: { type: 'string', maxLength: 2000 } }, additionalProperties: false },
    },
    handler: (request) => {
      const { limit, cursor } = request.query as { limit: number; cursor?: string };
      return view.history(p(request).type!, p(request).name!, { limit, ...(cursor ? { cursor } : {}) }, caller(request));
    },
  });
  routes.add({
    method: 'GET', path: '/meta/book/:name/tree', tags, summary: 'Navigation tree of a book without the nodes whose audience the caller is not in',
    schema: { params: params('name'), querystring: noQuery },
    handler: (request) => view.tree(p(request).name!, request.principal),
  });
  routes.add({
    method: 'GET', path: '/meta/:type/:section/:name', tags, summary: 'A sectioned item (labels, fields, views of an object) in every layer',
    schema: { params: params('type', 'section', 'name'), querystring: noQuery },
    handler: (request) => view.getEntry(view.section(p(request).type!, p(request).section!), p(request).name!, caller(request)),
  });
  routes.add({
    method: 'POST', path: '/meta/:type/:section/:name', tags, permission: WRITE_PERMISSION, bodyLimit: 65_536,
    summary: 'Create or replace the overlay of a sectioned item in this environment; validated like metadata files, audited',
    schema: { params: params('type', 'section', 'name'), querystring: noQuery, body: { type: 'object' } },
    handler: async (request) => {
      const entry = await view.upsertEntry(view.section(p(request).type!, p(request).section!), p(request).name!, request.body, caller(request));
      await overlayChanged(request, 'upsert');
      return entry;
    },
  });
  routes.add({
    method: 'DELETE', path: '/meta/:type/:section/:name', tags, permission: WRITE_PERMISSION, successStatus: 204,
    summary: 'Remove the overlay of a sectioned item (back to the package and base layers); audited; 204',
    schema: { params: params('type', 'section', 'name'), querystring: noQuery },
    handler: async (request, reply) => {
      await view.removeEntry(view.section(p(request).type!, p(request).section!), p(request).name!, caller(request));
      await overlayChanged(request, 'remove');
      reply.code(204);
      return null;
    },
  });
}
