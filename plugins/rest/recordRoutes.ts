import type { DataEngine, PageQuery } from '../../capabilities/dataEngine.ts';
import type { HttpRoutes } from '../../capabilities/httpRoutes.ts';
import type { MetadataRegistry } from '../../capabilities/metadataRegistry.ts';
import { dataContextOf as dataContext } from '../../capabilities/dataEngine.ts';
import { apiObject } from '../../metadata/apiObject.ts';
import { capLimit } from './capLimit.ts';

const NAME = { type: 'string', pattern: '^[a-z][a-z0-9_]{0,62}$' };
const ID = { type: 'string', minLength: 1, maxLength: 64 };
const objectParams = { type: 'object', properties: { object: NAME }, required: ['object'] };
const recordParams = { type: 'object', properties: { object: NAME, id: ID }, required: ['object', 'id'] };
const pageQuery = {
  type: 'object',
  properties: { limit: { type: 'integer', minimum: 1 }, offset: { type: 'integer', minimum: 0 }, cursor: { type: 'string', maxLength: 4096 } },
  additionalProperties: false,
};

/** The page asked for, its limit brought down to the object's maxPageSize (said in the answer's `limit`). */
function paged(query: unknown, maxPageSize: number): { page: PageQuery; capped: number | null } {
  const { query: page, capped } = capLimit({ ...(query as Record<string, unknown>) }, maxPageSize);
  return { page: page as PageQuery, capped };
}

/**
 * The record features beyond plain CRUD: history (apiMethod `history`), the trash and restore
 * (`restore`), purge (`purge`). Each is one engine call; security, hooks and versions live there.
 */
export function addRecordRoutes(routes: HttpRoutes, engine: DataEngine, metadata: MetadataRegistry): void {
  routes.add({
    method: 'GET', path: '/data/:object/trash', tags: ['data'],
    summary: 'Records in the trash: those the caller deleted (admins and modifyAll holders: all); limit, offset, cursor',
    schema: { params: objectParams, querystring: pageQuery },
    handler: async (request) => {
      const { object } = request.params as { object: string };
      const { maxPageSize } = apiObject(metadata, object, 'restore');
      const { page, capped } = paged(request.query, maxPageSize);
      const result = await engine.trash(object, page, dataContext(request));
      return capped === null ? result : { ...result, limit: capped };
    },
  });
  routes.add({
    method: 'GET', path: '/data/:object/:id/history', tags: ['data'],
    summary: 'History of a record, newest first: who, when, operation, version, changed fields; limit, offset, cursor',
    schema: { params: recordParams, querystring: pageQuery },
    handler: async (request) => {
      const { object, id } = request.params as { object: string; id: string };
      const { maxPageSize } = apiObject(metadata, object, 'history');
      const { page, capped } = paged(request.query, maxPageSize);
      const result = await engine.history(object, id, page, dataContext(request));
      return capped === null ? result : { ...result, limit: capped };
    },
  });
  routes.add({
    method: 'POST', path: '/data/:object/:id/restore', tags: ['data'],
    summary: 'Restore a record from the trash; its version is bumped; 200 with the record',
    schema: { params: recordParams },
    handler: async (request, reply) => {
      const { object, id } = request.params as { object: string; id: string };
      apiObject(metadata, object, 'restore');
      const record = await engine.restore(object, id, dataContext(request));
      reply.header('etag', `"${String(record.version)}"`);
      return record;
    },
  });
  routes.add({
    method: 'DELETE', path: '/data/:object/:id/purge', tags: ['data'],
    summary: 'Remove a record from the trash for good, with its history (admins and modifyAll holders); 204',
    schema: { params: recordParams },
    handler: async (request, reply) => {
      const { object, id } = request.params as { object: string; id: string };
      apiObject(metadata, object, 'purge');
      await engine.purge(object, id, dataContext(request));
      reply.code(204);
      return null;
    },
  });
}
