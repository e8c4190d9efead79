import type { FastifyReply, FastifyRequest } from 'fastify';
import { defineCapability } from './defineCapability.ts';
import type { Principal } from './authSession.ts';
import type { CredentialScope } from './credentialScopes.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RouteSchema {
  params?: object;
  querystring?: object;
  body?: object;
  /** Status code -> JSON schema; used to serialize responses and to document them. */
  response?: Record<number, object>;
}

export interface RouteDefinition {
  method: HttpMethod;
  /** Path below the API prefix (`/data/:object` is served at `/api/v1/data/:object`), or from the site root when `root` is true. */
  path: string;
  root?: boolean;
  summary: string;
  tags?: string[];
  /** Served without authentication (health, auth routes, public forms, share links). */
  public?: boolean;
  /** Route permission key checked before the handler, for example `ai:chat`. */
  permission?: string;
  /**
   * The credential scope a scoped credential (an API key minted with scopes, an OAuth access
   * token) must hold to call the route, checked by the guard before the handler. Default: `data:read`
   * for GET, `data:write` for every other method. `none`: the route needs no scope of its own because
   * every operation it runs checks its scope itself (batch, MCP). Unscoped credentials pass.
   */
  scope?: CredentialScope | 'none';
  schema?: RouteSchema;
  /** Per-route body size limit in bytes (defaults to the server's). */
  bodyLimit?: number;
  /**
   * Media types besides JSON the route reads as a stream (e.g. `text/csv`): for those the body
   * schema is not applied and request.body is an AsyncIterable<Buffer> of the body as it
   * arrives, failing with PAYLOAD_TOO_LARGE past bodyLimit. JSON bodies are parsed as usual, unless
   * `application/json` is listed: then they arrive as bytes too (a signature over the raw body).
   */
  streamedBody?: readonly string[];
  /** The status of a success when it is not 200 (the handler sets it); documented by the API description. */
  successStatus?: 201 | 202 | 204;
  /**
   * Error statuses the handler itself can answer beyond those every route of its kind can (400
   * for a request failing its schemas, 401/403 for the guard, 404 for a path naming nothing, 413 and
   * 415 for bodies): for example 404 for a query parameter naming an unknown object, 409, 429.
   */
  errorStatuses?: readonly number[];
  /**
   * Media type of the answers when it is not JSON (an HTML page, a script): documented for the
   * success and for the errorStatuses, which the handler then answers in that type itself.
   */
  contentType?: string;
  handler: (request: FastifyRequest, reply: FastifyReply) => unknown;
  /**
   * What `/api/v2` serves at this path instead, when it differs from `/api/v1` (docs/versioning.md).
   * Without it the route is mounted on both versions unchanged; with it, its v1 form answers the
   * Deprecation, Sunset and successor-version Link headers.
   */
  v2?: RouteVariant;
}

/** The `/api/v2` form of a route: its own handler, and summary or schema when they change. */
export interface RouteVariant {
  summary?: string;
  schema?: RouteSchema;
  /** What changes for a client moving from v1, said in discovery and in the OpenAPI document. */
  change: string;
  handler: (request: FastifyRequest, reply: FastifyReply) => unknown;
}

export type ApiVersion = 'v1' | 'v2';

export interface RegisteredRoute extends Omit<RouteDefinition, 'handler' | 'v2'> {
  /** Plugin that declared the route. */
  owner: string;
  /** Full path as mounted (for the API version asked for in `list`; root routes keep their path). */
  fullPath: string;
  /** The route has a v2 variant: what changes in it. */
  v2?: { change: string };
}

export interface HttpRoutes {
  /** Declare a route; allowed during register and start. Mounted when the runtime is ready. */
  add(route: RouteDefinition): void;
  /** Routes as mounted (after ready) or as declared (before), with their paths in `version` (default v1). */
  list(version?: ApiVersion): RegisteredRoute[];
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Who is calling; set by the auth.session provider, `null` for anonymous calls. */
    principal: Principal | null;
    /** The environment the request addresses (X-Environment-Id or /api/v1/environments/:environmentId). */
    environmentId: string;
    /** The API version the request came through (`/api/v1` or `/api/v2`); root routes say v1. */
    apiVersion: ApiVersion;
  }
}

export const httpRoutes = defineCapability<HttpRoutes>()({
  id: 'http.routes',
  cardinality: 'single',
  description: 'Declare HTTP routes with method, path, permission, public flag and schemas; they are mounted, documented and listed in discovery.',
});
