import type { RegisteredRoute } from '../../capabilities/httpRoutes.ts';
import type { ApiMethod, ResolvedObject } from '../../metadata/types.ts';
import { errorResponses, pathParameters, queryParameters, successResponses } from './routeOperation.ts';
import { pascal } from './routePaths.ts';
import { toOpenApiSchema, type Schema } from './toOpenApiSchema.ts';

/** The generic data routes, below `/data/:object`, by method and rest of the path. */
export const DATA_PREFIX = '/data/{object}';

interface Known {
  /** apiMethods that make it reachable (any of them); empty: not subject to apiMethods. */
  methods: ApiMethod[];
  verb: string;
  /** Served for engine-owned objects too (default true). */
  system?: boolean;
  build(object: ResolvedObject, route: RegisteredRoute, path: string): Schema;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: Schema, description = 'OK') => ({ description, content: { 'application/json': { schema } } });
const body = (schema: Schema) => ({ required: true, content: { 'application/json': { schema } } });
const query = (name: string, schema: Schema, description: string) => ({ name, in: 'query', required: false, description, schema });
const ifMatch = { $ref: '#/components/parameters/IfMatch' };

const selectParams = [
  query('select', { type: 'string' }, 'Comma list of fields to return (the id always is).'),
  query('expand', { type: 'string' }, 'Comma list of lookups to resolve into records; dotted paths for nested ones.'),
];

const KNOWN: Record<string, Known> = {
  'GET ': {
    methods: ['list'], verb: 'list',
    build: (o) => ({
      summary: `List ${o.pluralLabel.toLowerCase()}`,
      parameters: [
        query('where', { type: 'string' }, 'JSON-encoded filter condition, e.g. {"name":{"$contains":"acme"}}.'),
        query('orderBy', { type: 'string' }, 'Comma list of fields; a - prefix sorts descending: -priority,created_at.'),
        query('limit', { type: 'integer', minimum: 1, maximum: o.maxPageSize }, `Page size, at most ${o.maxPageSize}.`),
        query('offset', { type: 'integer', minimum: 0 }, 'Offset pagination.'),
        query('cursor', { type: 'string' }, 'nextCursor of the previous page (keyset pagination).'),
        ...selectParams,
      ],
      responses: { 200: json(ref(`${o.name}.list`)) },
    }),
  },
  'POST /query': {
    methods: ['list', 'aggregate'], verb: 'query',
    build: (o) => ({
      summary: `Query ${o.pluralLabel.toLowerCase()}: where, orderBy, joins, groupBy, aggregations`,
      requestBody: body(ref('StructuredQuery')),
      responses: { 200: json(ref(`${o.name}.list`), 'The page; grouped queries answer one item per group.') },
    }),
  },
  'GET /{id}': {
    methods: ['get'], verb: 'get',
    build: (o) => ({ summary: `One ${o.label.toLowerCase()}`, parameters: selectParams, responses: { 200: json(ref(o.name)) } }),
  },
  'POST ': {
    methods: ['create'], verb: 'create',
    build: (o) => ({ summary: `Create a ${o.label.toLowerCase()}`, requestBody: body(ref(`${o.name}.create`)), responses: { 201: json(ref(o.name), 'Created; ETag holds the version.') } }),
  },
  'PATCH /{id}': {
    methods: ['update'], verb: 'update',
    build: (o) => ({ summary: `Update a ${o.label.toLowerCase()}`, parameters: [ifMatch], requestBody: body(ref(`${o.name}.update`)), responses: { 200: json(ref(o.name)) } }),
  },
  'DELETE /{id}': {
    methods: ['delete'], verb: 'delete',
    build: (o) => ({
      summary: `Delete a ${o.label.toLowerCase()}`,
      parameters: [ifMatch, query('expectedVersion', { type: 'integer', minimum: 1 }, 'The version the delete expects (or send If-Match).')],
      responses: { 204: { description: 'Deleted' } },
    }),
  },
  'PUT /upsert': {
    methods: ['upsert'], verb: 'upsert',
    build: (o) => ({
      summary: `Create or update a ${o.label.toLowerCase()} by a unique field`,
      parameters: [
        { ...query('on', uniqueFields(o).length > 0 ? { type: 'string', enum: uniqueFields(o) } : { type: 'string' }, 'The field declared unique to look the record up by; the body must carry its value.'), required: true },
        { ...ifMatch, description: 'Applies when the record exists (the update).' },
      ],
      requestBody: body(ref(`${o.name}.create`)),
      responses: { 200: json(ref(o.name), 'Updated the record holding the key.'), 201: json(ref(o.name), 'Created; ETag holds the version.') },
    }),
  },
  'POST /bulk': {
    methods: ['bulk'], verb: 'bulk',
    build: (o) => ({
      summary: `Create, update and delete up to 200 ${o.pluralLabel.toLowerCase()} in one transaction (all or nothing)`,
      requestBody: body({
        type: 'object', required: ['operations'],
        properties: {
          operations: {
            type: 'array', minItems: 1, maxItems: 200,
            items: {
              type: 'object', required: ['method'], additionalProperties: false,
              properties: {
                method: { type: 'string', enum: ['create', 'update', 'delete'] },
                id: { type: 'string', description: 'update and delete: the record id.' },
                values: { type: 'object', description: 'create: the record; update: the changes.' },
                expectedVersion: { type: 'integer', minimum: 1 },
              },
            },
          },
        },
      }),
      responses: {
        200: json({
          type: 'object',
          properties: { results: { type: 'array', items: { type: 'object', properties: { index: { type: 'integer' }, status: { type: 'integer', enum: [200, 201, 204] }, body: { allOf: [ref(o.name)], nullable: true, description: 'The record; null for a delete.' } } } } },
        }, 'Every operation was written; one result per operation, in order.'),
      },
    }),
  },
  // Per-record shares: not an apiMethods operation, and not offered on engine-owned objects.
  'GET /{id}/shares': { methods: [], verb: 'listShares', system: false, build: (o, r) => generic(o, r, `Shares of a ${o.label.toLowerCase()}`) },
  'POST /{id}/shares': { methods: [], verb: 'share', system: false, build: (o, r) => generic(o, r, `Share a ${o.label.toLowerCase()}`) },
  'DELETE /{id}/shares/{shareId}': { methods: [], verb: 'unshare', system: false, build: (o, r) => generic(o, r, `Remove a share of a ${o.label.toLowerCase()}`) },
  'POST /import': { methods: ['import'], verb: 'import', build: (o, r) => generic(o, r, `Import ${o.pluralLabel.toLowerCase()}`) },
  'POST /export': {
    methods: ['export'], verb: 'export',
    build: (o, r) => ({
      ...generic(o, r, `Export ${o.pluralLabel.toLowerCase()}`),
      responses: {
        200: {
          description: 'The exported records, streamed in the requested format.',
          content: {
            'text/csv': { schema: { type: 'string' } },
            'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': { schema: { type: 'string', format: 'binary' } },
            'application/pdf': { schema: { type: 'string', format: 'binary' } },
            'application/json': { schema: { type: 'array', items: ref(o.name) } },
          },
        },
      },
    }),
  },
};

const uniqueFields = (o: ResolvedObject) => Object.values(o.fields).filter((f) => f.unique).map((f) => f.name);

/** A data route without a dedicated description: what it declared, for this object. */
function generic(o: ResolvedObject, route: RegisteredRoute, summary?: string): Schema {
  return {
    summary: summary ?? `${route.summary} (${o.label})`,
    ...(route.schema?.querystring ? { parameters: queryParameters(route.schema.querystring) } : {}),
    ...(route.schema?.body ? { requestBody: body(toOpenApiSchema(route.schema.body)) } : {}),
    responses: successResponses(route),
  };
}

/** Writes an engine-owned object accepts from users only when its userActions say so. */
const WRITES: Partial<Record<ApiMethod, 'create' | 'update' | 'delete'>> = { create: 'create', import: 'create', update: 'update', delete: 'delete', upsert: 'create', bulk: 'create' };

/**
 * Whether the object's apiMethods let the route through (routes of no known operation always),
 * and, for an engine-owned object, whether its userActions accept the write.
 */
export function reachable(object: ResolvedObject, route: RegisteredRoute, rest: string): boolean {
  const known = KNOWN[`${route.method} ${rest}`];
  if (!known) return true;
  if (object.system && known.system === false) return false;
  // Upsert looks records up by a field declared unique: without one it cannot succeed.
  if (rest === '/upsert' && uniqueFields(object).length === 0) return false;
  if (known.methods.length === 0) return true;
  const allowed = known.methods.filter((m) => object.apiMethods === null || object.apiMethods.includes(m));
  if (!object.system) return allowed.length > 0;
  return allowed.some((m) => !WRITES[m] || object.userActions?.[WRITES[m]!] === true);
}

/**
 * The operation of a generic data route for one object: `/data/{object}<rest>` documented as
 * `/data/account<rest>`, with the object's schemas, its operation's errors and its own tag.
 */
export function dataOperation(object: ResolvedObject, route: RegisteredRoute, rest: string): { path: string; operationId: string; operation: Schema } {
  const path = `/data/${object.name}${rest}`;
  const known = KNOWN[`${route.method} ${rest}`];
  const built = known ? known.build(object, route, path) : generic(object, route);
  const own = (built.parameters as Schema[] | undefined) ?? [];
  const parameters = [...pathParameters(path, route.schema?.params, ['object']), ...own];
  const extra = [404, ...(['PATCH', 'DELETE'].includes(route.method) ? [409] : []), ...((route.method === 'POST' && rest === '') || rest === '/upsert' || rest === '/bulk' ? [409] : [])];
  const operation: Schema = {
    ...built,
    tags: [object.name],
    ...(parameters.length > 0 ? { parameters } : {}),
    responses: { ...(built.responses as Schema), ...errorResponses(route, extra) },
    'x-plugin': route.owner,
    'x-object': object.name,
    ...(known?.methods[0] ? { 'x-api-method': known.methods[0] } : {}),
    ...(route.permission ? { 'x-permission': route.permission } : {}),
  };
  const verb = known?.verb ?? (route.method.toLowerCase() + pascal(rest.replace(/\{[^}]+\}/g, 'by')));
  return { path, operationId: `${verb}${pascal(object.name)}`, operation };
}
