import type { FastifyRequest } from 'fastify';
import { codedError } from '../../kernel/errors.ts';

export type EnvironmentSelector = (request: FastifyRequest) => string;

export const ENVIRONMENT_PREFIX = '/api/v1/environments/:environmentId';

/**
 * The environment of a request: the path prefix wins, then X-Environment-Id, then the default.
 * An unknown id is a 404, the same answer whether or not it exists elsewhere.
 */
export function selectEnvironment(known: readonly string[], fallback: string): EnvironmentSelector {
  const ids = new Set(known);
  return (request) => {
    const fromPath = (request.params as Record<string, string> | undefined)?.environmentId;
    const header = request.headers['x-environment-id'];
    const id = fromPath ?? (typeof header === 'string' && header !== '' ? header : fallback);
    if (!ids.has(id)) throw codedError('NOT_FOUND', { what: `Environment '${id.slice(0, 64)}'`, environmentId: id.slice(0, 64) });
    return id;
  };
}
