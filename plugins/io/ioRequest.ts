import type { FastifyRequest } from 'fastify';
import type { DataContext } from '../../capabilities/dataEngine.ts';
import type { MetadataRegistry } from '../../capabilities/metadataRegistry.ts';
import { codedError } from '../../kernel/errors.ts';
import type { ApiMethod, ResolvedObject } from '../../metadata/types.ts';

/** The caller as the engine sees it: every import and export call carries it, so security applies. */
export function dataContext(request: FastifyRequest): DataContext {
  return { environmentId: request.environmentId, principal: request.principal, requestId: request.id };
}

/**
 * The object behind `:object` when the REST surface serves it for this operation: apiEnabled
 * false answers exactly like an unknown object (404); an operation outside apiMethods is 405.
 */
export function apiObject(metadata: MetadataRegistry, name: string, operation: ApiMethod): ResolvedObject {
  const object = metadata.object(name);
  if (!object || !object.apiEnabled) throw codedError('NOT_FOUND', { what: `Object '${name}'`, object: name });
  if (object.apiMethods && !object.apiMethods.includes(operation)) {
    throw codedError('METHOD_NOT_ALLOWED', { operation, object: name, allowed: object.apiMethods });
  }
  return object;
}

export function badRequest(path: string, message: string): never {
  throw codedError('VALIDATION_ERROR', { summary: `${path} ${message}`, errors: [{ path, message }] });
}
