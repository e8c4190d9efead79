import type { RegisteredRoute } from '../../capabilities/httpRoutes.ts';
import { SYSTEM_FIELDS, type ApiMethod, type ResolvedObject } from '../../metadata/types.ts';
import { errorResponses, pathParameters, queryParameters, successResponses } from './routeOperation.ts';
import { pascal } from './routePaths.ts';
import { toOpenApiSchema, type Schema } from './toOpenApiSchema.ts';
import { routeScope } from '../../capabilities/routeScope.ts';

/** The generic data routes, below `/data/:object`, by method and rest of the path. */
export const DATA_PREFIX = '/data/{object}';

interface Known {
  /** apiMethods that make it reachable (any of them); empty: not subject to apiMethods. */
  methods: ApiMethod[];
  verb: string;
  /** Served for engine-owned objects too (default true). */
  system?: boolean;
  /** Served only for objects with this feature (history, trash). */
  when?(object: ResolvedObject): boolean;
  build(object: ResolvedObject, route: RegisteredRoute, path: string): Schema;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: Schema, description = 'OK') => ({ description, content: { 'application/json': { schema } } });
const body = (schema: Schema) => ({ required: true, content: { 'application/json': { schema } } });
const query = (name: string, schema: Schema, description: string) => ({ name, in: 'query', required: false, description, schema });
const ifMatch = { $ref: '#/components/parameters/IfMatch' };

/** Fields a query may name: the system fields and the object's own. */
const fieldNames = (o: ResolvedObject) => [...SYSTEM_FIELDS.filter((f) => f !== 'owner_id' || o.owner), ...Object.keys(o.fields)];

/** A comma list of names, as `a,b` (form style, not exploded); the server also takes the parameter repeated. */
const commaList = (name: string, names: string[], description: string) => ({
  ...query(name, { type: 'array', uniqueItems: true, items: { type: 'string', enum: names } }, description),
  style: 'form', explode: false,
});

function selectParams(o: ResolvedObject): Schema[] {
  const lookups = Object.values(o.fields).filter((f) => f.type === 'lookup').map((f) => f.name);
  return [
    commaList('select', fieldNames(o), 'Comma list of fields to return (the id always is).'),
    lookups.length > 0
      ? commaList('expand', lookups, 'Comma list of lookups to resolve into records; dotted paths (lookup.lookup) for nested ones.')
      : query('expand', { type: 'string', maxLength: 0 }, 'This object has no lookup to expand.'),
  ];
}

/** `-priority,created_at`: fields of the object, each with an optional - for descending. */
function orderByPattern(o: ResolvedObject): string {
  const one = `-?(${fieldNames(o).join('|')})`;
  return `^${one}(,${one})*$`;
}

const KNOWN: Record<string, Known> = {
  'GET ': {
    methods: ['list'], verb: 'list',
    build: (o) => ({
      summary: `List ${o.pluralLabel.toLowerCase()}`,
      parameters: [
        query('where', { type: 'string' }, 'JSON-encoded filter condition, e.g. {"name":{"$contains":"acme"}}.'),
        query('orderBy', { type: 'string', pattern: orderByPattern(o) }, 'Comma list of fields; a - prefix sorts descending: -priority,created_at.'),
        query('limit', { type: 'integer', minimum: 1, maximum: o.maxPageSize }, `Page size, at most ${o.maxPageSize}.`),
        query('offset', { type: 'integer', minimum: 0 }, 'Offset pagination.'),
        query('cursor', { type: 'string' }, 'nextCursor of the previous page (keyset pagination).'),
        ...selectParams(o),
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
    build: (o) => ({ summary: `One ${o.label.toLowerCase()}`, parameters: selectParams(o), responses: { 200: json(ref(o.name)) } }),
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
  // History, trash, restore and purge (plugins/rest/recordRoutes.ts): engine-owned objects have none.
  'GET /{id}/history': { methods: ['history'], verb: 'history', system: false, when: (o) => o.enable.trackHistory, build: (o, r) => generic(o, r, `History of a ${o.label.toLowerCase()}, newest first`) },
  'GET /trash': { methods: ['restore'], verb: 'listTrash', system: false, when: (o) => o.enable.trash, build: (o, r) => generic(o, r, `${o.pluralLabel} in the trash`) },
  'POST /{id}/restore': { methods: ['restore'], verb: 'restore', system: false, when: (o) => o.enable.trash, build: (o, r) => generic(o, r, `Restore a ${o.label.toLowerCase()} from the trash`) },
  'DELETE /{id}/purge': { methods: ['purge'], verb: 'purge', system: false, when: (o) => o.enable.trash, build: (o, r) => generic(o, r, `Purge a ${o.label.toLowerCase()} from the trash`) },
  // Comments (plugins/comments) and files (plugins/files): only on objects that enable them.
  'GET /{id}/comments': { methods: ['get'], verb: 'listComments', system: false, when: (o) => o.enable.feeds, build: (o, r) => generic(o, r, `Comments on a ${o.label.toLowerCase()}, newest first`) },
  'POST /{id}/comments': { methods: ['get'], verb: 'comment', system: false, when: (o) => o.enable.feeds, build: (o, r) => generic(o, r, `Comment on a ${o.label.toLowerCase()}`) },
  'PATCH /{id}/comments/{commentId}': { methods: ['get'], verb: 'editComment', system: false, when: (o) => o.enable.feeds, build: (o, r) => generic(o, r, `Edit a comment on a ${o.label.toLowerCase()} (author or admin)`) },
  'DELETE /{id}/comments/{commentId}': { methods: ['get'], verb: 'deleteComment', system: false, when: (o) => o.enable.feeds, build: (o, r) => generic(o, r, `Delete a comment on a ${o.label.toLowerCase()} (author or admin)`) },
  'GET /{id}/files': { methods: ['get'], verb: 'listFiles', system: false, when: (o) => o.enable.files, build: (o, r) => generic(o, r, `Files of a ${o.label.toLowerCase()}, newest first`) },
  'POST /{id}/files': {
    methods: ['update'], verb: 'uploadFile', system: false, when: (o) => o.enable.files,
    build: (o, r) => ({
      ...generic(o, r, `Upload a file to a ${o.label.toLowerCase()} (edit access)`),
      requestBody: { required: true, content: { 'multipart/form-data': { schema: { type: 'object', required: ['file'], properties: { file: { type: 'string', format: 'binary', description: 'The file; its part\'s filename and Content-Type are kept as its name and type.' } } } } } },
    }),
  },
  'GET /{id}/files/{fileId}': {
    methods: ['get'], verb: 'downloadFile', system: false, when: (o) => o.enable.files,
    build: (o, r) => ({
      ...generic(o, r, `Download a file of a ${o.label.toLowerCase()}: an attachment, nosniff`),
      responses: { 200: { description: 'The bytes, with Content-Disposition: attachment and X-Content-Type-Options: nosniff', content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } } },
    }),
  },
  'DELETE /{id}/files/{fileId}': { methods: ['update'], verb: 'deleteFile', system: false, when: (o) => o.enable.files, build: (o, r) => generic(o, r, `Delete a file of a ${o.label.toLowerCase()} (edit access)`) },
  // The activity timeline (plugins/activities): on unless enable.activities is false.
  'GET /{id}/activities': { methods: ['get'], verb: 'listActivities', system: false, when: (o) => o.enable.activities, build: (o, r) => generic(o, r, `Timeline of a ${o.label.toLowerCase()}, newest first: history, comments, files, approval requests`) },
  'POST /import': { methods: ['import'], verb: 'import', build: (o, r) => importOperation(o, r) },
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

/** JSON with exactly one of csv (format csv) or rows (format json); or the file itself as text/csv or multipart/form-data. */
function importOperation(o: ResolvedObject, route: RegisteredRoute): Schema {
  const json = toOpenApiSchema(route.schema?.body ?? { type: 'object' });
  const options = { mapping: { type: 'string', description: 'JSON text of { column: field or null }' }, dryRun: { type: 'string', enum: ['true', 'false'] }, atomic: { type: 'string', enum: ['true', 'false'] } };
  return {
    ...generic(o, route, `Import ${o.pluralLabel.toLowerCase()}`),
    description: 'The CSV file may come wrapped in JSON (format csv, the text as csv), as the body itself (text/csv, options in the query string) or as the part csv of a multipart form (options as form fields). Query parameters go with text/csv only.',
    ...(route.schema?.querystring ? { parameters: queryParameters(route.schema.querystring) } : {}),
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: {
            ...json,
            oneOf: [
              { properties: { format: { type: 'string', enum: ['csv'] } }, required: ['csv'], not: { required: ['rows'] } },
              { properties: { format: { type: 'string', enum: ['json'] } }, required: ['rows'], not: { required: ['csv'] } },
            ],
          },
        },
        'text/csv': { schema: { type: 'string', description: 'RFC 4180, UTF-8; the first line is the header' } },
        'multipart/form-data': {
          schema: { type: 'object', required: ['csv'], additionalProperties: false, properties: { csv: { type: 'string', format: 'binary', description: 'The CSV file' }, ...options } },
        },
      },
    },
  };
}
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
  if (known.when && !known.when(object)) return false;
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
  // 404 for an object or record the caller cannot see; 405 when the object's apiMethods leave the operation out.
  const extra = [404, ...(known && known.methods.length > 0 ? [405] : []), ...(['PATCH', 'DELETE'].includes(route.method) ? [409] : []), ...((route.method === 'POST' && rest === '') || rest === '/upsert' || rest === '/bulk' ? [409] : [])];
  const operation: Schema = {
    ...built,
    tags: [object.name],
    ...(parameters.length > 0 ? { parameters } : {}),
    responses: { ...(built.responses as Schema), ...errorResponses(route, path, extra) },
    'x-plugin': route.owner,
    'x-object': object.name,
    ...(known?.methods[0] ? { 'x-api-method': known.methods[0] } : {}),
    ...(route.permission ? { 'x-permission': route.permission } : {}),
    ...(route.public && route.scope === undefined ? {} : { 'x-credential-scope': routeScope(route) ?? 'none' }),
  };
  const verb = known?.verb ?? (route.method.toLowerCase() + pascal(rest.replace(/\{[^}]+\}/g, 'by')));
  return { path, operationId: `${verb}${pascal(object.name)}`, operation };
}
