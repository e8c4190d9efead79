import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DataEngine, DataRecord } from '../../capabilities/dataEngine.ts';
import type { HttpRoutes } from '../../capabilities/httpRoutes.ts';
import type { MetadataRegistry } from '../../capabilities/metadataRegistry.ts';
import { codedError } from '../../kernel/errors.ts';
import { dataContextOf as dataContext } from '../../capabilities/dataEngine.ts';
import { apiObject } from '../../metadata/apiObject.ts';
import { capLimit, type CappedQuery } from './capLimit.ts';
import { expectedVersion, list } from './restContext.ts';

const NAME = { type: 'string', pattern: '^[a-z][a-z0-9_]{0,62}$' };
const ID = { type: 'string', minLength: 1, maxLength: 64 };
const objectParams = { type: 'object', properties: { object: NAME }, required: ['object'] };
const recordParams = { type: 'object', properties: { object: NAME, id: ID }, required: ['object', 'id'] };
const body = { type: 'object' };
const COUNT_VALUES = ['capped', 'exact', 'estimated', 'none', 'true', 'false'];
const countQuery = { type: 'object', properties: { count: { type: 'string', enum: COUNT_VALUES } }, additionalProperties: false };

/** How a list or query page counts its matches (docs/data-api.md, Counting). */
type CountMode = boolean | 'estimated' | 'capped';

/**
 * `?count=capped|exact|estimated|none` (`true` and `false` are exact and none); absent: `fallback`,
 * capped on v1 (exact up to COUNT_CAP, a bounded cost) and none on v2. Anything else is refused naming the values.
 */
function countMode(request: FastifyRequest, fallback: CountMode): CountMode {
  const count = (request.query as Record<string, unknown> | undefined)?.count;
  if (count === undefined) return fallback;
  if (count === 'exact' || count === 'true') return true;
  if (count === 'none' || count === 'false') return false;
  if (count === 'estimated') return 'estimated';
  if (count === 'capped') return 'capped';
  throw codedError('VALIDATION_ERROR', { summary: `count must be one of ${COUNT_VALUES.join(', ')}`, errors: [{ path: 'query.count', message: `must be one of ${COUNT_VALUES.join(', ')}` }] });
}

/** The list's query parameters; the structured query's other keys are POST /data/:object/query only. */
const LIST_KEYS = new Set(['where', 'orderBy', 'limit', 'offset', 'cursor', 'select', 'expand']);
const QUERY_ONLY = new Set(['groupBy', 'aggregations', 'having', 'distinct', 'joins', 'fields']);

function listQuery(query: Record<string, unknown>): Record<string, unknown> {
  const unknown = Object.keys(query).filter((key) => !LIST_KEYS.has(key));
  if (unknown.length > 0) {
    const errors = unknown.map((key) => ({
      path: `querystring/${key.slice(0, 64)}`,
      message: QUERY_ONLY.has(key)
        ? 'is not a list parameter: send it in the body of POST /data/:object/query'
        : `is not a list parameter; they are ${[...LIST_KEYS].join(', ')} and count (${COUNT_VALUES.join(', ')})${key === 'total' ? ': count=true adds total' : ''}`,
    }));
    throw codedError('VALIDATION_ERROR', { summary: errors.map((e) => `${e.path} ${e.message}`).join('; '), errors });
  }
  return query;
}

function asObject(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw codedError('VALIDATION_ERROR', { summary: `${what} must be a JSON object`, errors: [{ path: 'body', message: 'must be a JSON object' }] });
  }
  return value as Record<string, unknown>;
}

/** The /data routes: list, query, get, create, update, delete. Each translates HTTP to one engine call. */
export function addDataRoutes(routes: HttpRoutes, engine: DataEngine, metadata: MetadataRegistry): void {
  /** A list or query page; a limit brought down to maxPageSize is said in the answer's `limit`. */
  const page = ({ query, capped }: CappedQuery, object: string, request: FastifyRequest, signal?: AbortSignal, total: CountMode = true) => {
    const result = engine.query(object, query, dataContext(request, signal), total === true ? undefined : { total });
    return capped === null ? result : result.then((answer) => ({ ...answer, limit: capped }));
  };
  /** v1 lists count up to the cap unless told otherwise; v2 lists count only when asked (docs/versioning.md). */
  const listPage = (request: FastifyRequest, fallback: CountMode) => {
    const { object } = request.params as { object: string };
    const { maxPageSize } = apiObject(metadata, object, 'list');
    const { count: _count, ...query } = request.query as Record<string, unknown>;
    return page(capLimit({ ...listQuery(query) }, maxPageSize), object, request, undefined, countMode(request, fallback));
  };
  const structured = (request: FastifyRequest, reply: FastifyReply, fallback: CountMode) => {
    const { object } = request.params as { object: string };
    const query = asObject(request.body, 'the query');
    const { maxPageSize } = apiObject(metadata, object, query.groupBy !== undefined || query.aggregations !== undefined ? 'aggregate' : 'list');
    // A structured query may join its way to a long read: it stops when the client goes away.
    const closed = new AbortController();
    const res = reply.raw;
    const onClose = () => {
      if (!res.writableFinished) closed.abort();
    };
    res.once('close', onClose);
    return page(capLimit(query, maxPageSize), object, request, closed.signal, countMode(request, fallback)).finally(() => res.removeListener('close', onClose));
  };
  const LIST_CHANGE = 'The answer has no `total` (and the rows are not counted) unless the query string says count=true (or exact, capped or estimated).';
  routes.add({
    method: 'GET', path: '/data/:object', tags: ['data'],
    summary: 'List records: where (JSON), orderBy (-a,b), limit, offset, cursor, expand, select; count=capped|exact|estimated|none',
    schema: { params: objectParams },
    handler: (request) => listPage(request, 'capped'),
    v2: {
      summary: 'List records: where (JSON), orderBy (-a,b), limit, offset, cursor, expand, select; count=true adds total',
      change: LIST_CHANGE,
      handler: (request) => listPage(request, false),
    },
  });
  routes.add({
    method: 'POST', path: '/data/:object/query', tags: ['data'], scope: 'data:read',
    summary: 'Structured query: where, orderBy, cursor, expand, joins, groupBy, aggregations, having, distinct; ?count=capped|exact|estimated|none',
    schema: { params: objectParams, body, querystring: countQuery },
    handler: (request, reply) => structured(request, reply, 'capped'),
    v2: {
      summary: 'Structured query: where, orderBy, cursor, expand, joins, groupBy, aggregations, having, distinct; ?count=true adds total',
      schema: { params: objectParams, body, querystring: countQuery },
      change: LIST_CHANGE,
      handler: (request, reply) => structured(request, reply, false),
    },
  });
  routes.add({
    method: 'GET', path: '/data/:object/:id', tags: ['data'], summary: 'One record; select and expand as in the list',
    schema: { params: recordParams, querystring: { type: 'object', properties: { select: { type: 'string' }, expand: { type: 'string' } }, additionalProperties: false } },
    handler: (request, reply) => {
      const { object, id } = request.params as { object: string; id: string };
      apiObject(metadata, object, 'get');
      const q = request.query as { select?: string; expand?: string };
      const select = list(q.select);
      const expand = list(q.expand);
      const ctx = dataContext(request);
      // The version to send back as If-Match, when the selection includes it.
      const tagged = (record: DataRecord) => {
        if (typeof record.version === 'number') reply.header('etag', `"${record.version}"`);
        return record;
      };
      // A read the engine can answer at once is sent without a promise (see DataEngine.getNow).
      const now = select || expand ? undefined : engine.getNow(object, id, ctx);
      if (now) return tagged(now);
      return engine.get(object, id, { ...(select ? { select } : {}), ...(expand ? { expand } : {}) }, ctx).then(tagged);
    },
  });
  routes.add({
    method: 'POST', path: '/data/:object', tags: ['data'], summary: 'Create a record; 201 with the stored record',
    schema: { params: objectParams, body },
    handler: async (request, reply) => {
      const { object } = request.params as { object: string };
      apiObject(metadata, object, 'create');
      const record = await engine.create(object, asObject(request.body, 'the record'), dataContext(request));
      reply.code(201).header('etag', `"${String(record.version)}"`);
      return record;
    },
  });
  routes.add({
    method: 'PATCH', path: '/data/:object/:id', tags: ['data'],
    summary: 'Update fields; expectedVersion in the body or If-Match; 409 CONCURRENT_UPDATE on a stale version',
    schema: { params: recordParams, body },
    handler: async (request, reply) => {
      const { object, id } = request.params as { object: string; id: string };
      apiObject(metadata, object, 'update');
      const { expectedVersion: fromBody, ...patch } = asObject(request.body, 'the update');
      const version = expectedVersion(request, fromBody);
      const record = await engine.update(object, id, patch, version === undefined ? {} : { expectedVersion: version }, dataContext(request));
      reply.header('etag', `"${String(record.version)}"`);
      return record;
    },
  });
  routes.add({
    method: 'DELETE', path: '/data/:object/:id', tags: ['data'],
    summary: 'Delete a record; expectedVersion as a query parameter or If-Match; 204',
    schema: { params: recordParams, querystring: { type: 'object', properties: { expectedVersion: { type: 'string' } }, additionalProperties: false } },
    handler: async (request, reply) => {
      const { object, id } = request.params as { object: string; id: string };
      apiObject(metadata, object, 'delete');
      const version = expectedVersion(request, (request.query as { expectedVersion?: string }).expectedVersion);
      await engine.delete(object, id, version === undefined ? {} : { expectedVersion: version }, dataContext(request));
      reply.code(204);
      return null;
    },
  });
}
