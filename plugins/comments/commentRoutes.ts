import type { FastifyRequest } from 'fastify';
import type { DataContext, DataEngine, DataRecord } from '../../capabilities/dataEngine.ts';
import type { HttpRoutes } from '../../capabilities/httpRoutes.ts';
import type { MetadataRegistry } from '../../capabilities/metadataRegistry.ts';
import type { NotificationsSend } from '../../capabilities/notificationsSend.ts';
import { codedError } from '../../kernel/errors.ts';
import type { ResolvedObject } from '../../metadata/types.ts';
import { author, readableRecord, systemCtx } from '../../capabilities/recordRouteAccess.ts';

export const COMMENT_OBJECT = 'sys_comment';
export const MAX_BODY = 10_000;
export const MAX_MENTIONS = 20;
export const DEFAULT_PAGE = 20;
export const MAX_PAGE = 100;

const NAME = { type: 'string', pattern: '^[a-z][a-z0-9_]{0,62}$' };
const ID = { type: 'string', minLength: 1, maxLength: 64 };
const recordParams = { type: 'object', properties: { object: NAME, id: ID }, required: ['object', 'id'] };
const commentParams = { type: 'object', properties: { object: NAME, id: ID, commentId: ID }, required: ['object', 'id', 'commentId'] };
const text = { type: 'string', minLength: 1, maxLength: MAX_BODY, description: `Plain text, 1 to ${MAX_BODY} characters.` };
const mentions = { type: 'array', maxItems: MAX_MENTIONS, uniqueItems: true, items: ID, description: `User ids to notify (at most ${MAX_MENTIONS}); only those who can read the record are notified.` };

const comment = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    body: { type: 'string' },
    author: { type: ['string', 'null'] },
    mentions: { type: 'array', items: { type: 'string' } },
    version: { type: 'integer' },
    createdAt: { type: 'string' },
    updatedAt: { type: 'string' },
    editedAt: { type: ['string', 'null'] },
  },
  required: ['id', 'body', 'author', 'mentions', 'version', 'createdAt', 'updatedAt', 'editedAt'],
};

function view(row: DataRecord) {
  return {
    id: String(row.id),
    body: String(row.body),
    author: (row.owner_id as string | null) ?? null,
    mentions: Array.isArray(row.mentions) ? (row.mentions as string[]) : [],
    version: Number(row.version),
    createdAt: String(row.created_at),
    updatedAt: String(row.updated_at),
    editedAt: (row.edited_at as string | null) ?? null,
  };
}

/** Engine-owned objects have no feed, whatever their flag says. */
function feedsOn(object: ResolvedObject): void {
  if (!object.enable.feeds || object.system) throw codedError('FEEDS_DISABLED', { object: object.name });
}

export interface CommentDeps {
  engine: DataEngine;
  metadata: MetadataRegistry;
  notifications: () => NotificationsSend | undefined;
  log: { warn(obj: object, msg: string): void };
}

/**
 * Comments on records: GET and POST /data/:object/:id/comments, PATCH and DELETE of one by its
 * author (or an admin). Every route first checks that the caller can read the record through the
 * engine (a hidden record is 404); the rows are the engine-owned sys_comment, written and read as
 * engine work once that check passed.
 */
export function addCommentRoutes(routes: HttpRoutes, deps: CommentDeps): void {
  const { engine, metadata } = deps;
  const record = (request: FastifyRequest) => readableRecord(request, engine, metadata, 'get', feedsOn);

  /** The comment `commentId` of this record, as engine work; one of another record is not found. */
  async function commentOf(ctx: DataContext, object: ResolvedObject, id: string, commentId: string): Promise<DataRecord> {
    const found = (await engine.query(COMMENT_OBJECT, { where: { id: { $eq: commentId }, object: { $eq: object.name }, record_id: { $eq: id } }, limit: 1 }, systemCtx(ctx), { total: false })).items[0];
    if (!found) throw codedError('NOT_FOUND', { what: `Comment '${commentId.slice(0, 64)}'` });
    return found;
  }

  /** Only the author or an admin edits or deletes a comment. */
  function mayChange(request: FastifyRequest, row: DataRecord): void {
    const principal = author(request);
    if (principal.isAdmin || row.owner_id === principal.userId) return;
    throw codedError('PERMISSION_DENIED', { permission: 'sys_comment:author', subjectId: principal.userId, reason: 'only the author of a comment or an admin may change it' });
  }

  routes.add({
    method: 'GET', path: '/data/:object/:id/comments', tags: ['data'],
    summary: `Comments on a record, newest first; limit (1-${MAX_PAGE}), cursor`,
    errorStatuses: [403],
    schema: {
      params: recordParams,
      querystring: { type: 'object', properties: { limit: { type: 'integer', minimum: 1, maximum: MAX_PAGE, default: DEFAULT_PAGE }, cursor: { type: 'string', maxLength: 4096 } }, additionalProperties: false },
      response: { 200: { type: 'object', properties: { items: { type: 'array', items: comment }, total: { type: 'integer' }, nextCursor: { type: ['string', 'null'] } }, required: ['items'] } },
    },
    handler: async (request) => {
      const { object, id, ctx } = await record(request);
      const { limit, cursor } = request.query as { limit: number; cursor?: string };
      const result = await engine.query(COMMENT_OBJECT, {
        where: { object: { $eq: object.name }, record_id: { $eq: id } },
        orderBy: [{ field: 'created_at', order: 'desc' }],
        limit,
        ...(cursor ? { cursor } : {}),
      }, systemCtx(ctx));
      return { items: result.items.map(view), ...(result.total !== undefined ? { total: result.total } : {}), nextCursor: result.nextCursor ?? null };
    },
  });

  routes.add({
    method: 'POST', path: '/data/:object/:id/comments', tags: ['data'],
    summary: 'Comment on a record (whoever can read it may); mentioned users who can read it are notified; 201 with the comment',
    successStatus: 201,
    errorStatuses: [403],
    schema: {
      params: recordParams,
      body: { type: 'object', properties: { body: text, mentions }, required: ['body'], additionalProperties: false },
      response: { 201: comment },
    },
    handler: async (request, reply) => {
      const principal = author(request);
      const { object, id, ctx } = await record(request);
      const body = request.body as { body: string; mentions?: string[] };
      const mentioned = (body.mentions ?? []).filter((userId) => userId !== principal.userId);
      const row = await engine.create(COMMENT_OBJECT, { object: object.name, record_id: id, body: body.body, mentions: mentioned, owner_id: principal.userId }, systemCtx(ctx));
      await notifyMentioned(deps, ctx, object, id, mentioned, body.body);
      reply.code(201);
      return view(row);
    },
  });

  routes.add({
    method: 'PATCH', path: '/data/:object/:id/comments/:commentId', tags: ['data'],
    summary: 'Edit a comment (its author or an admin); expectedVersion or If-Match guards against a concurrent edit',
    errorStatuses: [403, 409],
    schema: {
      params: commentParams,
      body: { type: 'object', properties: { body: text, expectedVersion: { type: 'integer', minimum: 1 } }, required: ['body'], additionalProperties: false },
      response: { 200: comment },
    },
    handler: async (request) => {
      const { object, id, ctx } = await record(request);
      const { commentId } = request.params as { commentId: string };
      const row = await commentOf(ctx, object, id, commentId);
      mayChange(request, row);
      const { body, expectedVersion } = request.body as { body: string; expectedVersion?: number };
      const updated = await engine.update(COMMENT_OBJECT, String(row.id), { body, edited_at: new Date().toISOString() }, expectedVersion === undefined ? {} : { expectedVersion }, systemCtx(ctx));
      return view(updated);
    },
  });

  routes.add({
    method: 'DELETE', path: '/data/:object/:id/comments/:commentId', tags: ['data'],
    summary: 'Delete a comment (its author or an admin); 204',
    successStatus: 204,
    errorStatuses: [403],
    schema: { params: commentParams },
    handler: async (request, reply) => {
      const { object, id, ctx } = await record(request);
      const { commentId } = request.params as { commentId: string };
      const row = await commentOf(ctx, object, id, commentId);
      mayChange(request, row);
      await engine.delete(COMMENT_OBJECT, String(row.id), {}, systemCtx(ctx));
      reply.code(204);
      return null;
    },
  });
}

/**
 * In-app notifications to the mentioned users who can read the record (read as each of them, with
 * their own grants): a mention never shows a record or a comment to someone who may not see it.
 * A notification that fails is logged; the comment stands.
 */
async function notifyMentioned(deps: CommentDeps, ctx: DataContext, object: ResolvedObject, id: string, userIds: string[], body: string): Promise<void> {
  const notifications = deps.notifications();
  if (!notifications || userIds.length === 0) return;
  const readers: string[] = [];
  for (const userId of userIds) {
    const principal = { kind: 'user' as const, userId, environmentId: ctx.environmentId, isAdmin: false, positions: [], permissionSets: [], permissions: [] };
    try {
      await deps.engine.get(object.name, id, { select: ['id'] }, { environmentId: ctx.environmentId, principal });
      readers.push(userId);
    } catch {
      // Not readable by that user (or no such user): no notification.
    }
  }
  if (readers.length === 0) return;
  try {
    await notifications.send({
      environmentId: ctx.environmentId,
      to: { userIds: readers },
      channels: ['in_app'],
      title: `You were mentioned in a comment on a ${object.label.toLowerCase()}`.slice(0, 200),
      body: body.slice(0, 4000),
      record: { object: object.name, id },
    });
  } catch (error) {
    deps.log.warn({ err: error, object: object.name }, 'comment mention notification failed');
  }
}
