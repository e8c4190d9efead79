import type { FastifyRequest } from 'fastify';
import { auditSourceOf, type AuditEntry, type AuditRecord } from '../../../capabilities/auditRecord.ts';
import { isCodedError } from '../../../kernel/errors.ts';
import { enginePath } from '../authPaths.ts';
import { engineRouteEvent, isSignInPath, readsAnswer, redirectError, type SignInRedirect } from './engineRouteAudit.ts';
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

/** The user of the session an answer's Set-Cookie opened (auth.identity's `sessionUserOf`). */
export type SessionUserOf = (environmentId: string, setCookies: readonly string[]) => Promise<{ id: string; email: string | null } | null>;

/**
 * Serve an auth-engine request and record its audit event, if the route is audited: the answer
 * (a Response) or the refusal (a coded error, recorded, then thrown on). A sign-in that ends in a
 * redirect (a sign-in link, a provider's callback) is read from the session cookie it set, else
 * from the error its Location names.
 */
export async function withEngineAudit(audit: AuthAudit, request: FastifyRequest, sessionUserOf: SessionUserOf, serve: () => Promise<Response>): Promise<Response> {
  if (!audit) return serve();
  const path = auditedEnginePath(request.url);
  if (path === null) return serve();
  const callerId = request.principal?.userId ?? null;
  let response: Response;
  try {
    response = await serve();
  } catch (error) {
    const status = isCodedError(error) ? error.status : 500;
    const event = status < 500 ? engineRouteEvent(path, status, bodyOf(request), null, { callerId }) : null;
    if (event) await recordAuth(audit, request, event.entry, event.actorId);
    throw error;
  }
  const { status } = response;
  let redirect: SignInRedirect | null = null;
  if (status >= 300 && status < 400 && isSignInPath(path)) {
    const cookies = response.headers.getSetCookie();
    redirect = { user: cookies.length > 0 ? await sessionUserOf(request.environmentId, cookies) : null, error: redirectError(response.headers.get('location')) };
  }
  // Only an answer that names the user who acted is read; the body stays readable for the client.
  const answer = status >= 200 && status < 300 && readsAnswer(path) ? ((await response.clone().json().catch(() => null)) as Record<string, unknown> | null) : null;
  const event = engineRouteEvent(path, status, bodyOf(request), answer, { callerId, redirect });
  if (event) await recordAuth(audit, request, event.entry, event.actorId);
  return response;
}
