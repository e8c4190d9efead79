import type { RegisteredRoute } from '../../capabilities/httpRoutes.ts';
import { ERROR_RESPONSE } from './commonComponents.ts';
import { pathParams, WILDCARD } from './routePaths.ts';
import { toOpenApiSchema, type Schema } from './toOpenApiSchema.ts';
import { routeScope } from '../../capabilities/routeScope.ts';

const isSchema = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Path parameters of a documented path, typed from the route's params schema when it has one. */
export function pathParameters(path: string, params: unknown, skip: readonly string[] = []): Schema[] {
  const properties = isSchema(params) && isSchema(params.properties) ? params.properties : {};
  return pathParams(path).filter((name) => !skip.includes(name)).map((name) => {
    const declared = properties[name === WILDCARD ? '*' : name];
    return {
      name, in: 'path', required: true,
      ...(name === WILDCARD ? { description: 'The rest of the path; may contain /.' } : {}),
      schema: declared ? toOpenApiSchema(declared) : { type: 'string' },
    };
  });
}

/** Query parameters from a route's querystring schema. */
export function queryParameters(querystring: unknown): Schema[] {
  if (!isSchema(querystring) || !isSchema(querystring.properties)) return [];
  const required = new Set(Array.isArray(querystring.required) ? querystring.required : []);
  return Object.entries(querystring.properties).map(([name, schema]) => {
    const s = toOpenApiSchema(schema);
    const description = typeof s.description === 'string' ? s.description : undefined;
    return { name, in: 'query', required: required.has(name), ...(description ? { description } : {}), schema: s };
  });
}

type ErrorSource = Pick<RegisteredRoute, 'public' | 'permission' | 'schema' | 'method' | 'errorStatuses'>;

/**
 * Error statuses a route can answer, each pointing to the shared envelope: 400 for a request
 * its schemas refuse, 401/403 from the guard, 404 for a path naming nothing, 413/415 for bodies,
 * 414 for a URL or a path parameter longer than the server reads, 500, and what it declared.
 */
export function errorResponses(route: ErrorSource, path: string, extra: number[] = []): Record<string, unknown> {
  const statuses = new Set<number>([...extra, ...(route.errorStatuses ?? []), 414, 500]);
  if (!route.public || route.permission) statuses.add(401).add(403);
  const s = route.schema;
  if (s?.params || s?.querystring || s?.body || ['POST', 'PUT', 'PATCH'].includes(route.method)) statuses.add(400);
  if (pathParams(path).length > 0) statuses.add(404);
  if (['POST', 'PUT', 'PATCH'].includes(route.method)) statuses.add(413).add(415);
  return Object.fromEntries([...statuses].sort((a, b) => a - b).map((status) => [String(status), ERROR_RESPONSE]));
}

/** Success responses from the route's response schemas, else its success status with a JSON body (none for 204). */
export function successResponses(route: RegisteredRoute, contentType = 'application/json'): Record<string, unknown> {
  const declared = Object.entries(route.schema?.response ?? {}).filter(([status]) => Number(status) < 400);
  if (route.successStatus === 204) return { 204: { description: 'Done; no content' } };
  if (declared.length === 0) {
    const status = route.successStatus ?? 200;
    return { [status]: { description: status === 201 ? 'Created' : status === 202 ? 'Accepted' : 'OK', content: { [contentType]: { schema: contentType === 'application/json' ? {} : { type: 'string' } } } } };
  }
  return Object.fromEntries(declared.map(([status, schema]) => [status, { description: 'OK', content: { 'application/json': { schema: toOpenApiSchema(schema) } } }]));
}

/**
 * The errors a page route (HTML or plain text) renders itself, in its own media type. Other
 * non-JSON routes (an event stream, a script file) answer their errors in the envelope.
 */
function ownErrorPages(route: RegisteredRoute): Record<string, unknown> {
  if (!route.contentType || !/^text\/(html|plain)\b/.test(route.contentType)) return {};
  return Object.fromEntries((route.errorStatuses ?? []).map((status) => [String(status), { description: 'Error page', content: { [route.contentType!]: { schema: { type: 'string' } } } }]));
}

/** A mounted route as an OpenAPI operation, from what it declared. */
export function routeOperation(route: RegisteredRoute, path: string, contentType?: string): Schema {
  const parameters = [...pathParameters(path, route.schema?.params), ...queryParameters(route.schema?.querystring)];
  const operation: Schema = {
    summary: route.summary,
    tags: route.tags && route.tags.length > 0 ? [...route.tags] : ['other'],
    ...(parameters.length > 0 ? { parameters } : {}),
    responses: { ...successResponses(route, contentType ?? route.contentType), ...errorResponses(route, path), ...ownErrorPages(route) },
    'x-plugin': route.owner,
    ...(route.permission ? { 'x-permission': route.permission } : {}),
    ...(route.public && route.scope === undefined ? {} : { 'x-credential-scope': routeScope(route) ?? 'none' }),
  };
  if (route.schema?.body) {
    operation.requestBody = { required: true, content: { 'application/json': { schema: toOpenApiSchema(route.schema.body) } } };
  }
  return operation;
}
