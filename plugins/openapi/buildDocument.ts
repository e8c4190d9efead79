import type { RegisteredRoute } from '../../capabilities/httpRoutes.ts';
import type { ResolvedObject } from '../../metadata/types.ts';
import { AUTHENTICATED, commonComponents, securitySchemes } from './commonComponents.ts';
import { DATA_PREFIX, dataOperation, reachable } from './dataOperations.ts';
import { objectSchemas } from './objectSchemas.ts';
import { routeOperation } from './routeOperation.ts';
import { API_PREFIX, documentedPath, operationIdOf } from './routePaths.ts';
import type { Schema } from './toOpenApiSchema.ts';

export interface DocumentInput {
  routes: readonly RegisteredRoute[];
  objects: readonly ResolvedObject[];
  version: string;
  metadataVersion: string;
  environments: readonly string[];
  defaultEnvironment: string;
  requireAuth: boolean;
  production: boolean;
  /** Content type of routes that do not answer JSON, by `METHOD fullPath`. */
  contentTypes?: Readonly<Record<string, string>>;
}

const METHOD_ORDER = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** Objects the REST surface serves (engine-owned ones too: they are readable). */
export const apiObjects = (objects: readonly ResolvedObject[]) => objects.filter((o) => o.apiEnabled);

function describeApi(input: DocumentInput): string {
  return [
    'Generated from the routes this runtime has mounted and from its metadata: every object the API serves has its own paths and schemas.',
    `Every path is served for the default environment ('${input.defaultEnvironment}') below ${API_PREFIX}, and for any environment below ${API_PREFIX}/environments/{environmentId} (the second server); the X-Environment-Id header selects one too.`,
    input.requireAuth
      ? 'Every operation needs a credential (session cookie, bearer token or API key) unless it lists no security requirement.'
      : 'This runtime runs with api.requireAuth false: operations without a permission also answer anonymous callers.',
    'Every non-2xx response is the error envelope { error: { code, message, details } }.',
    'Besides the statuses each operation lists, any request may be answered 405 METHOD_NOT_ALLOWED for a method its path does not serve, 414 for a URL or path parameter longer than the server reads, 408 REQUEST_TIMEOUT for a body not received in time, 431 HEADERS_TOO_LARGE, and 503 SERVICE_UNAVAILABLE while the server shuts down.',
  ].join('\n\n');
}

/** The OpenAPI 3.0.3 document of what is mounted, with one set of data paths and schemas per object. */
export function buildDocument(input: DocumentInput): Schema {
  const objects = apiObjects(input.objects);
  const paths: Record<string, Record<string, Schema>> = {};
  const ids = new Set<string>();
  const tags = new Map<string, Schema>();
  const authenticated = input.requireAuth ? AUTHENTICATED : [{}, ...AUTHENTICATED];

  const add = (path: string, method: string, operation: Schema, operationId: string, route: RegisteredRoute) => {
    let id = operationId;
    for (let n = 2; ids.has(id); n++) id = `${operationId}${n}`;
    ids.add(id);
    const security = route.public && !route.permission ? [] : route.permission ? AUTHENTICATED : null;
    const item = (paths[path] ??= {});
    item[method.toLowerCase()] = {
      operationId: id,
      ...operation,
      ...(security ? { security } : {}),
      ...(route.root ? { servers: [{ url: '/', description: 'Served from the site root' }] } : {}),
    };
    for (const tag of operation.tags as string[]) if (!tags.has(tag)) tags.set(tag, { name: tag });
  };

  const routes = [...input.routes].sort((a, b) => a.fullPath.localeCompare(b.fullPath) || METHOD_ORDER.indexOf(a.method) - METHOD_ORDER.indexOf(b.method));
  for (const route of routes) {
    const path = documentedPath(route.fullPath, route.root === true);
    const rest = path.startsWith(DATA_PREFIX) && !route.root ? path.slice(DATA_PREFIX.length) : null;
    if (rest !== null && (rest === '' || rest.startsWith('/'))) {
      for (const object of objects) {
        if (!reachable(object, route, rest)) continue;
        const { path: objectPath, operationId, operation } = dataOperation(object, route, rest);
        add(objectPath, route.method, operation, operationId, route);
      }
      continue;
    }
    const contentType = input.contentTypes?.[`${route.method} ${route.fullPath}`];
    add(path, route.method, routeOperation(route, path, contentType), operationIdOf(route.method, path), route);
  }

  const schemas: Record<string, Schema> = {};
  const served = new Set(objects.map((o) => o.name));
  for (const object of objects) {
    Object.assign(schemas, objectSchemas(object, served));
    tags.set(object.name, {
      name: object.name,
      description: object.description ? `${object.label}: ${object.description}` : object.label,
      'x-object': { name: object.name, label: object.label, pluralLabel: object.pluralLabel, package: object.app },
    });
  }
  const common = commonComponents();
  return {
    openapi: '3.0.3',
    info: { title: 'osr-runtime API', version: input.version, description: describeApi(input), 'x-metadata-version': input.metadataVersion },
    servers: [
      { url: API_PREFIX, description: `The default environment (${input.defaultEnvironment})` },
      {
        url: `${API_PREFIX}/environments/{environmentId}`,
        description: 'One environment, chosen in the path',
        variables: { environmentId: { default: input.defaultEnvironment, enum: [...input.environments], description: 'A hosted environment' } },
      },
    ],
    security: authenticated,
    tags: [...tags.values()],
    paths,
    components: {
      schemas: { ...common.schemas, ...schemas },
      responses: common.responses,
      parameters: common.parameters,
      securitySchemes: securitySchemes(input.defaultEnvironment, input.production),
    },
  };
}
