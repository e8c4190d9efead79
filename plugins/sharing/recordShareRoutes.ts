import type { FastifyRequest } from 'fastify';
import type { AccessGrants } from '../../capabilities/accessGrants.ts';
import type { DataEngine } from '../../capabilities/dataEngine.ts';
import type { HttpRoutes } from '../../capabilities/httpRoutes.ts';
import type { MetadataRegistry } from '../../capabilities/metadataRegistry.ts';
import { codedError } from '../../kernel/errors.ts';
import { checkRecipient } from './checkRecipient.ts';
import { RECORD_SHARE, body, callerOf, engineContext, userContext } from './sharingContext.ts';

const NAME = { type: 'string', pattern: '^[a-z][a-z0-9_]{0,62}$' };
const ID = { type: 'string', minLength: 1, maxLength: 64 };
/** A share as sent; the object and the record come from the path. */
const shareBody = {
  type: 'object',
  required: ['recipient_type', 'recipient_id'],
  additionalProperties: false,
  properties: {
    recipient_type: { type: 'string', enum: ['user', 'position', 'unit_and_subordinates'] },
    recipient_id: { type: 'string', minLength: 1, maxLength: 64 },
    access: { type: 'string', enum: ['read', 'edit'], default: 'read' },
  },
};
const recordParams = { type: 'object', properties: { object: NAME, id: ID }, required: ['object', 'id'] };
const shareParams = { type: 'object', properties: { object: NAME, id: ID, shareId: ID }, required: ['object', 'id', 'shareId'] };

/** Per-record shares. Anyone who can read the record lists them; its owner, a modify-all holder or an admin changes them. */
export function addRecordShareRoutes(routes: HttpRoutes, engine: DataEngine, grants: AccessGrants, metadata: MetadataRegistry): void {
  /** The record as the caller sees it (404 when hidden), and whether the caller may share it. */
  async function sharable(request: FastifyRequest, manage: boolean) {
    const { object, id } = request.params as { object: string; id: string };
    const resolved = metadata.object(object);
    if (!resolved || !resolved.apiEnabled || resolved.system) throw codedError('NOT_FOUND', { what: `Object '${object}'`, object });
    const record = await engine.get(object, id, {}, userContext(request));
    if (manage) {
      const principal = callerOf(request);
      const mayShare = principal.isAdmin || (resolved.owner && record.owner_id === principal.userId) || (await grants.objectAccess(principal, object)).modifyAll;
      if (!mayShare) throw codedError('PERMISSION_DENIED', { permission: `${object}:share`, subjectId: principal.userId, object, id });
    }
    return { object, id };
  }

  routes.add({
    method: 'GET', path: '/data/:object/:id/shares', tags: ['sharing'], summary: 'Shares of a record',
    schema: { params: recordParams },
    handler: async (request) => {
      const { object, id } = await sharable(request, false);
      return engine.query(RECORD_SHARE, { where: { object, record_id: id }, orderBy: 'created_at', limit: 200 }, engineContext(request));
    },
  });
  routes.add({
    method: 'POST', path: '/data/:object/:id/shares', tags: ['sharing'], summary: 'Share a record with a user, a position or a unit and its subordinates',
    successStatus: 201,
    schema: { params: recordParams, body: shareBody },
    handler: async (request, reply) => {
      const { object, id } = await sharable(request, true);
      const input = body(request);
      const unknown = Object.keys(input).filter((k) => !['recipient_type', 'recipient_id', 'access'].includes(k));
      if (unknown.length > 0) throw codedError('VALIDATION_ERROR', { summary: `unknown key(s) ${unknown.join(', ')}; send recipient_type, recipient_id and access`, errors: unknown.map((path) => ({ path, message: 'unknown key' })) });
      await checkRecipient(engine, input, engineContext(request));
      const share = await engine.create(RECORD_SHARE, { access: 'read', ...input, object, record_id: id }, engineContext(request));
      reply.code(201);
      return share;
    },
  });
  routes.add({
    method: 'DELETE', path: '/data/:object/:id/shares/:shareId', tags: ['sharing'], summary: 'Remove a share', successStatus: 204,
    schema: { params: shareParams },
    handler: async (request, reply) => {
      const { object, id } = await sharable(request, true);
      const { shareId } = request.params as { shareId: string };
      const found = await engine.query(RECORD_SHARE, { where: { id: shareId, object, record_id: id }, limit: 1 }, engineContext(request), { total: false });
      if (found.items.length === 0) throw codedError('NOT_FOUND', { what: `Share '${shareId}'`, id: shareId });
      await engine.delete(RECORD_SHARE, shareId, {}, engineContext(request));
      reply.code(204);
      return null;
    },
  });
}
