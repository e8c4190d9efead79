import type { FastifyRequest } from 'fastify';
import type { Principal } from '../../capabilities/authSession.ts';
import { clientOf, type DataContext } from '../../capabilities/dataEngine.ts';
import { codedError } from '../../kernel/errors.ts';

export const RECORD_SHARE = 'sys_record_share';
export const SHARING_RULE = 'sys_sharing_rule';

export function callerOf(request: FastifyRequest): Principal {
  if (!request.principal) throw codedError('UNAUTHENTICATED');
  return request.principal;
}

/** The caller's own context: reads of the shared record go through its security. */
export function userContext(request: FastifyRequest): DataContext {
  return { environmentId: request.environmentId, principal: callerOf(request), requestId: request.id, client: clientOf(request) };
}

/** Share and rule rows are engine-owned: written as engine work once the route has checked the caller. */
export function engineContext(request: FastifyRequest): DataContext {
  return { environmentId: request.environmentId, principal: request.principal, system: true, requestId: request.id, client: clientOf(request) };
}

export function body(request: FastifyRequest): Record<string, unknown> {
  const value = request.body;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw codedError('VALIDATION_ERROR', { summary: 'the body must be a JSON object', errors: [{ path: 'body', message: 'must be a JSON object' }] });
  }
  return value as Record<string, unknown>;
}

export function adminOnly(principal: Principal, permission: string): void {
  if (!principal.isAdmin) throw codedError('PERMISSION_DENIED', { permission, subjectId: principal.userId });
}
