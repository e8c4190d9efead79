/** Helpers for plugins serving routes about one record (comments, files): no capability token. */
import type { FastifyRequest } from 'fastify';
import type { Principal } from './authSession.ts';
import { dataContextOf, type DataContext, type DataEngine } from './dataEngine.ts';
import type { MetadataRegistry } from './metadataRegistry.ts';
import { codedError } from '../kernel/errors.ts';
import { apiObject } from '../metadata/apiObject.ts';
import type { ApiMethod, ResolvedObject } from '../metadata/types.ts';

/**
 * The record a route below /data/:object/:id (comments, files) is about, checked in the order that leaks nothing: the object
 * is served (404 as for /data), the feature is on for it (403, a fact about the object), and the
 * caller can read the record (a hidden record answers 404 exactly like a missing one).
 */
export async function readableRecord(
  request: FastifyRequest, engine: DataEngine, metadata: MetadataRegistry, operation: ApiMethod,
  feature: (object: ResolvedObject) => void,
): Promise<{ object: ResolvedObject; id: string; ctx: DataContext }> {
  const { object: name, id } = request.params as { object: string; id: string };
  const object = apiObject(metadata, name, operation);
  feature(object);
  const ctx = dataContextOf(request);
  await engine.get(object.name, id, { select: ['id'] }, ctx);
  return { object, id, ctx };
}

/** The signed-in user a write is made by: a comment has an author, a file an uploader. */
export function author(request: FastifyRequest): Principal {
  if (!request.principal || request.principal.kind === 'system') throw codedError('UNAUTHENTICATED');
  return request.principal;
}

/** Engine work on the plugin's own rows, recorded as done by `principal` (created_by, updated_by). */
export function systemCtx(ctx: DataContext, principal: Principal | null = ctx.principal ?? null): DataContext {
  return { ...ctx, principal, system: true };
}
