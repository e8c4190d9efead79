import type { FastifyRequest } from 'fastify';
import type { Principal } from '../../capabilities/authSession.ts';
import type { DataDatabase } from '../../capabilities/dataDatabase.ts';
import type { DataEngine, DataRecord } from '../../capabilities/dataEngine.ts';
import type { HttpRoutes } from '../../capabilities/httpRoutes.ts';
import { codedError } from '../../kernel/errors.ts';
import { NOTIFICATION_OBJECT } from './createNotificationService.ts';

export const DEFAULT_PAGE = 20;
export const MAX_PAGE = 100;

const notification = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    title: { type: 'string' },
    body: { type: 'string' },
    link: { type: ['string', 'null'] },
    record: { type: ['object', 'null'], properties: { object: { type: 'string' }, id: { type: 'string' } } },
    source: { type: ['string', 'null'] },
    read: { type: 'boolean' },
    readAt: { type: ['string', 'null'] },
    createdAt: { type: 'string' },
  },
  required: ['id', 'title', 'body', 'link', 'record', 'read', 'readAt', 'createdAt'],
};

const idParams = { type: 'object', properties: { id: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,64}$' } }, required: ['id'] };

/** The caller's own user id; these routes are a user's own inbox, never anonymous (even with requireAuth off). */
function ownerOf(request: FastifyRequest): Principal {
  if (!request.principal || request.principal.kind === 'system') throw codedError('UNAUTHENTICATED');
  return request.principal;
}

function view(row: DataRecord) {
  return {
    id: String(row.id),
    title: String(row.title),
    body: String(row.body),
    link: (row.link as string | null) ?? null,
    record: row.record_object ? { object: String(row.record_object), id: String(row.record_id) } : null,
    source: (row.source as string | null) ?? null,
    read: row.read_at !== null && row.read_at !== undefined,
    readAt: (row.read_at as string | null) ?? null,
    createdAt: String(row.created_at),
  };
}

/**
 * The caller's notifications. Reads go through the engine as the caller, so the owner-private row
 * scope of sys_notification holds here as on /data; marking read is engine work on a row the
 * caller was just shown to own.
 */
export function addNotificationRoutes(routes: HttpRoutes, engine: DataEngine, database: DataDatabase): void {
  routes.add({
    method: 'GET', path: '/notifications', tags: ['notifications'],
    summary: `The caller's notifications, newest first: unread (true for unread only), limit (1-${MAX_PAGE}), cursor`,
    schema: {
      querystring: {
        type: 'object',
        properties: {
          unread: { type: 'boolean', default: false },
          limit: { type: 'integer', minimum: 1, maximum: MAX_PAGE, default: DEFAULT_PAGE },
          cursor: { type: 'string', maxLength: 2000 },
        },
        additionalProperties: false,
      },
      response: { 200: { type: 'object', properties: { items: { type: 'array', items: notification }, total: { type: 'integer' }, nextCursor: { type: ['string', 'null'] } }, required: ['items'] } },
    },
    handler: async (request) => {
      const principal = ownerOf(request);
      const { unread, limit, cursor } = request.query as { unread: boolean; limit: number; cursor?: string };
      const result = await engine.query(NOTIFICATION_OBJECT, {
        where: { owner_id: principal.userId, ...(unread ? { read_at: { $null: true } } : {}) },
        orderBy: [{ field: 'created_at', order: 'desc' }],
        limit,
        ...(cursor ? { cursor } : {}),
      }, { environmentId: request.environmentId, principal, requestId: request.id });
      return { items: result.items.map(view), ...(result.total !== undefined ? { total: result.total } : {}), nextCursor: result.nextCursor ?? null };
    },
  });

  routes.add({
    method: 'POST', path: '/notifications/:id/read', tags: ['notifications'],
    summary: 'Mark one of the caller\'s notifications read (another user\'s answers 404)',
    schema: { params: idParams, response: { 200: notification } },
    handler: async (request) => {
      const principal = ownerOf(request);
      const { id } = request.params as { id: string };
      const caller = { environmentId: request.environmentId, principal, requestId: request.id };
      // As the caller first: a row it does not own is NOT_FOUND, exactly like a missing one.
      const row = await engine.get(NOTIFICATION_OBJECT, id, {}, caller);
      if (String(row.owner_id) !== principal.userId) throw codedError('NOT_FOUND', { what: `Notification '${id}'` });
      if (row.read_at) return view(row);
      const updated = await engine.update(NOTIFICATION_OBJECT, id, { read_at: new Date().toISOString() }, {}, { environmentId: request.environmentId, principal: null, system: true, requestId: request.id });
      return view(updated);
    },
  });

  routes.add({
    method: 'POST', path: '/notifications/read-all', tags: ['notifications'],
    summary: 'Mark every unread notification of the caller read; answers how many were marked',
    schema: { response: { 200: { type: 'object', properties: { updated: { type: 'integer' } }, required: ['updated'] } } },
    handler: async (request) => {
      const principal = ownerOf(request);
      const now = new Date().toISOString();
      // One statement, however many are unread; only the caller's rows, only read_at and the row's version.
      const updated = await database.withDatabase(request.environmentId, ({ knex }) =>
        knex(NOTIFICATION_OBJECT).where({ owner_id: principal.userId }).whereNull('read_at')
          .update({ read_at: now, updated_at: now, updated_by: principal.userId, version: knex.raw('version + 1') }));
      return { updated: Number(updated) };
    },
  });
}
