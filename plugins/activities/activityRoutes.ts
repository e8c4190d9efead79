import { dataContextOf } from '../../capabilities/dataEngine.ts';
import type { HttpRoutes } from '../../capabilities/httpRoutes.ts';
import { codedError } from '../../kernel/errors.ts';
import { apiObject } from '../../metadata/apiObject.ts';
import type { ResolvedObject } from '../../metadata/types.ts';
import { sourcesFor, type SourceDeps } from './activitySources.ts';
import { mergeTimeline, type SourcePage } from './mergeTimeline.ts';
import { decodeCursor, encodeCursor, startOffsets, type Source } from './timelineCursor.ts';

export const DEFAULT_PAGE = 50;
export const MAX_PAGE = 200;

const NAME = { type: 'string', pattern: '^[a-z][a-z0-9_]{0,62}$' };
const ID = { type: 'string', minLength: 1, maxLength: 64 };

const activity = {
  type: 'object',
  properties: {
    kind: { type: 'string', enum: ['history', 'comment', 'file', 'approval', 'email'] },
    at: { type: 'string' },
    by: { type: ['string', 'null'] },
    summary: { type: 'string' },
    ref: { type: 'object', additionalProperties: { type: 'string' } },
    data: { type: 'object', additionalProperties: true },
  },
  required: ['kind', 'at', 'by', 'summary', 'ref', 'data'],
};

/** Engine-owned objects have no timeline, whatever their flag says. */
function activitiesOn(object: ResolvedObject): void {
  if (!object.enable.activities || object.system) throw codedError('ACTIVITIES_DISABLED', { object: object.name });
}

/**
 * GET /data/:object/:id/activities: a record's timeline, newest first, merging its history,
 * comments, files, approval requests and the emails sent about it. Checked in the order that leaks
 * nothing: the object is served for `get` (404, 405), its timeline is on (403), the caller can read
 * the record (a hidden record is 404 like a missing one); then each source is read with a bound and
 * filtered for the caller.
 */
export function addActivityRoutes(routes: HttpRoutes, deps: SourceDeps): void {
  routes.add({
    method: 'GET', path: '/data/:object/:id/activities', tags: ['data'],
    summary: `A record's timeline, newest first: history, comments, files, approval requests and emails sent about it; limit (1-${MAX_PAGE}), cursor`,
    errorStatuses: [403],
    schema: {
      params: { type: 'object', properties: { object: NAME, id: ID }, required: ['object', 'id'] },
      querystring: { type: 'object', properties: { limit: { type: 'integer', minimum: 1, maximum: MAX_PAGE, default: DEFAULT_PAGE }, cursor: { type: 'string', maxLength: 1024 } }, additionalProperties: false },
      response: { 200: { type: 'object', properties: { items: { type: 'array', items: activity }, nextCursor: { type: ['string', 'null'] } }, required: ['items', 'nextCursor'] } },
    },
    handler: async (request) => {
      const { object: name, id } = request.params as { object: string; id: string };
      const { limit, cursor } = request.query as { limit: number; cursor?: string };
      const object = apiObject(deps.metadata, name, 'get');
      activitiesOn(object);
      const ctx = dataContextOf(request);
      await deps.engine.get(object.name, id, { select: ['id'] }, ctx);
      const offsets = cursor ? decodeCursor(cursor, object.name, id) : startOffsets();
      const sources = sourcesFor(deps, object);
      const pages: Partial<Record<Source, SourcePage>> = {};
      for (const [source, read] of Object.entries(sources) as Array<[Source, NonNullable<(typeof sources)[Source]>]>) {
        pages[source] = await read({ object, id, ctx, offsets, limit });
      }
      const merged = mergeTimeline(pages, offsets, limit);
      return { items: merged.items, nextCursor: merged.more ? encodeCursor(object.name, id, merged.offsets) : null };
    },
  });
}
