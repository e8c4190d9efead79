import type { HttpRoutes } from '../../capabilities/httpRoutes.ts';
import type { MetadataRegistry } from '../../capabilities/metadataRegistry.ts';
import type { SearchIndex } from '../../capabilities/searchIndex.ts';
import { codedError } from '../../kernel/errors.ts';
import type { ResolvedObject } from '../../metadata/types.ts';
import { DEFAULT_LIMIT, MAX_LIMIT } from './createSearchService.ts';

export const MAX_QUERY_LENGTH = 200;

const querystring = {
  type: 'object',
  properties: {
    q: { type: 'string', minLength: 1, maxLength: MAX_QUERY_LENGTH },
    object: { type: 'string', pattern: '^[a-z][a-z0-9_]{0,62}$' },
    limit: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT },
  },
  required: ['q'],
  additionalProperties: false,
};

const response = {
  200: {
    type: 'object',
    properties: {
      items: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            object: { type: 'string' },
            id: { type: 'string' },
            score: { type: 'number' },
            record: { type: 'object', additionalProperties: true },
          },
          required: ['object', 'id', 'score', 'record'],
        },
      },
    },
    required: ['items'],
  },
};

/** Served on the REST surface: API-enabled, `search` among its apiMethods (when set). */
function servesSearch(object: ResolvedObject): boolean {
  return object.apiEnabled && (object.apiMethods === null || object.apiMethods.includes('search'));
}

/**
 * The object named by `?object=`: unknown and API-disabled objects are 404 like on /data, an
 * object whose apiMethods leave out `search` is 405, one without searchable fields is 400.
 */
function namedObject(metadata: MetadataRegistry, index: SearchIndex, name: string): string {
  const object = metadata.object(name);
  if (!object || !object.apiEnabled) throw codedError('NOT_FOUND', { what: `Object '${name}'`, object: name });
  if (!servesSearch(object)) throw codedError('METHOD_NOT_ALLOWED', { operation: 'search', object: name, allowed: object.apiMethods });
  if (!index.objects().includes(name)) {
    throw codedError('VALIDATION_ERROR', { summary: `object '${name}' has no searchable fields`, errors: [{ path: 'querystring/object', message: 'has no searchable fields' }] });
  }
  return name;
}

/** GET /search: ranked hits over the searchable objects the REST surface serves. */
export function addSearchRoute(routes: HttpRoutes, index: SearchIndex, metadata: MetadataRegistry): void {
  routes.add({
    method: 'GET', path: '/search', tags: ['search'], errorStatuses: [404],
    summary: 'Full-text search over searchable fields, ranked by per-object field weights: q (1-200 characters), object, limit (1-100)',
    schema: { querystring, response },
    handler: (request) => {
      const { q, object, limit } = request.query as { q: string; object?: string; limit: number };
      if (q.trim() === '') {
        throw codedError('VALIDATION_ERROR', { summary: 'q must contain text to search for', errors: [{ path: 'querystring/q', message: 'must contain text to search for' }] });
      }
      const objects = object !== undefined
        ? [namedObject(metadata, index, object)]
        : index.objects().filter((name) => servesSearch(metadata.object(name)!));
      return index.search({ q, objects, limit }, { environmentId: request.environmentId, principal: request.principal, requestId: request.id });
    },
  });
}
