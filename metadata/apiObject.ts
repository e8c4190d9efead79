import type { MetadataRegistry } from '../capabilities/metadataRegistry.ts';
import { codedError } from '../kernel/errors.ts';
import type { ApiMethod, ResolvedObject } from './types.ts';

/**
 * The object behind `:object` when the API surface serves it for this operation. An object with
 * apiEnabled false answers exactly like an unknown one (404); an operation outside apiMethods is 405.
 */
export function apiObject(metadata: MetadataRegistry, name: string, operation: ApiMethod): ResolvedObject {
  const object = metadata.object(name);
  if (!object || !object.apiEnabled) throw codedError('NOT_FOUND', { what: `Object '${name}'`, object: name });
  if (object.apiMethods && !object.apiMethods.includes(operation)) {
    throw codedError('METHOD_NOT_ALLOWED', { operation, object: name, allowed: object.apiMethods });
  }
  return object;
}
