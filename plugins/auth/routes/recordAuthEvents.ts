import type { FastifyRequest } from 'fastify';
import { auditSourceOf, type AuditEntry, type AuditRecord } from '../../../capabilities/auditRecord.ts';
import { isCodedError } from '../../../kernel/errors.ts';
import { enginePath } from '../authPaths.ts';
import { engineRouteEvent, readsAnswer } from './engineRouteAudit.ts';
import { authUrlOf } from './fetchBridge.ts';

/** The audit trail as the auth routes use it: absent when no plugin provides audit.record. */
export type AuthAudit = AuditRecord | undefined;

/** Record one event of the request's caller (or of `actorId`, the user who just signed in). */
export async function recordAuth(audit: AuthAudit, request: FastifyRequest, entry: AuditEntry, actorId?: string | null): Promise<void> {
  if (!audit) return;
  const source = auditSourceOf(request);
  await audit.record(actorId ? { ...source, actorId, actorKind: 'user' } : source, entry);
}

/** The engine path of a request URL as the engine itself sees it (authPaths.ts): an environment prefix is not part of it. */
export const auditedEnginePath = (url: string): string | null => enginePath(authUrlOf(url));

const bodyOf = (request: FastifyRequest): Record<string, unknown> | null =>
  typeof request.body === 'object' && request.body !== null && !Array.isArray(request.body) ? (request.body as Record<string, unknown>) : null;

/**
 * Serve an auth-engine request and record its audit event, if the route is audited: the answer
 * (a Response) or the refusal (a coded error, recorded, then thrown on).
 */
export async function withEngineAudit(audit: AuthAudit, request: FastifyRequest, serve: () => Promise<Response>): Promise<Response> {
  if (!audit) return serve();
  const path = auditedEnginePath(request.url);
  if (path === null) return serve();
  const callerId = request.principal?.userId ?? null;
  let response: Response;
  try {
    response = await serve();
  } catch (error) {
    const status = isCodedError(error) ? error.status : 500;
    const event = status < 500 ? engineRouteEvent(path, status, bodyOf(request), null, callerId) : null;
    if (event) await recordAuth(audit, request, event.entry, event.actorId);
    throw error;
  }
  const sure = engineRouteEvent(path, response.status, bodyOf(request), {}, callerId);
  if (sure === null) return response;
  // Only an answer that names the user who acted is read; the body stays readable for the client.
  const answer = readsAnswer(sure.entry.action) ? ((await response.clone().json().catch(() => null)) as Record<string, unknown> | null) : null;
  const event = engineRouteEvent(path, response.status, bodyOf(request), answer, callerId);
  if (event) await recordAuth(audit, request, event.entry, event.actorId);
  return response;
}
