import type { AuditAction, AuditEntry } from '../../../capabilities/auditRecord.ts';

type Body = Record<string, unknown> | null;

/** An event to record, and the user who acted when it is not the request's caller. */
export interface EngineRouteEvent {
  entry: AuditEntry;
  actorId?: string | null;
}

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
const userOf = (body: Body): Record<string, unknown> | null =>
  body && typeof body.user === 'object' && body.user !== null ? (body.user as Record<string, unknown>) : null;

/**
 * A refusal that did nothing and is not recorded: a rate limit (429, the attempt never reached the
 * credentials) or an unknown route or environment (404).
 */
export const refusedBeforeActing = (status: number): boolean => status === 404 || status === 429;

const EMAIL_SHAPED = /^[^\s@]{1,64}@[^\s@.]+(\.[^\s@.]+)+$/;
const E164_SHAPED = /^\+[1-9][0-9]{6,14}$/;

/**
 * The identifier a failed sign-in tried, kept as its target label only when it is shaped like an
 * email address or an E.164 phone number: a password typed into the email box is never stored.
 */
export function attemptedLabel(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  return trimmed.length <= 254 && (EMAIL_SHAPED.test(trimmed) || E164_SHAPED.test(trimmed)) ? trimmed : null;
}

/** Routes that sign a user in (a session is made when they succeed). */
const SIGN_IN = /^\/(sign-in\/[a-z-]+|two-factor\/verify-[a-z-]+|magic-link\/verify|phone-number\/verify|passkey\/verify-authentication|callback\/[a-z0-9_-]+)$/;
const TWO_FACTOR = /^\/two-factor\/(enable|disable|generate-backup-codes)$/;
const PASSKEY = /^\/passkey\/(verify-registration|delete-passkey|update-passkey)$/;

/**
 * The audit event of one answered auth-engine request, or null when the route is not audited.
 * Pure: the path, the status, the request body, the answer's body and the caller's user id. Only the attempted email
 * (or phone, when shaped like one) and ids are kept, never a password, code or token.
 */
export function engineRouteEvent(path: string, status: number, requestBody: Body, answer: Body, callerId: string | null = null): EngineRouteEvent | null {
  const ok = status >= 200 && status < 300;
  if (SIGN_IN.test(path)) {
    if (status < 200 || (status >= 300 && status < 400) || refusedBeforeActing(status)) return null;
    const user = userOf(answer);
    const method = path.split('/').slice(1).join('.');
    if (ok) {
      // A first factor that asks for the second is not a sign-in yet.
      if (answer && answer.twoFactorRedirect === true) return null;
      return { entry: { action: 'auth.sign_in', target: { type: 'user', id: text(user?.id), label: text(user?.email) }, after: { method } }, actorId: text(user?.id) };
    }
    const attempted = attemptedLabel(requestBody?.email) ?? attemptedLabel(requestBody?.phoneNumber);
    return { entry: { action: 'auth.sign_in_failed', outcome: 'failure', target: { type: 'user', label: attempted }, after: { method, status } } };
  }
  if (!ok) return null;
  if (path === '/sign-out') return { entry: { action: 'auth.sign_out', target: { type: 'session' } } };
  if (path === '/change-password') return { entry: { action: 'auth.password_changed', target: { type: 'user' }, after: { otherSessionsRevoked: requestBody?.revokeOtherSessions === true } } };
  if (path === '/reset-password') return { entry: { action: 'auth.password_reset', target: { type: 'user' } } };
  if (path === '/admin/set-user-password') return { entry: { action: 'auth.password_reset', target: { type: 'user', id: text(requestBody?.userId) }, after: { by: 'admin' } } };
  const twoFactor = TWO_FACTOR.exec(path);
  if (twoFactor) return { entry: { action: 'auth.two_factor_changed', target: { type: 'user' }, after: { change: twoFactor[1] } } };
  const passkey = PASSKEY.exec(path);
  if (passkey) return { entry: { action: 'auth.passkey_changed', target: { type: 'passkey', id: text(requestBody?.id) }, after: { change: passkey[1] } } };
  if (path === '/admin/ban-user') {
    return { entry: { action: 'user.banned', target: { type: 'user', id: text(requestBody?.userId) }, after: { reason: text(requestBody?.banReason), expiresIn: typeof requestBody?.banExpiresIn === 'number' ? requestBody.banExpiresIn : null } } };
  }
  if (path === '/admin/unban-user') return { entry: { action: 'user.unbanned', target: { type: 'user', id: text(requestBody?.userId) } } };
  return adminRouteEvent(path, requestBody, answer, callerId) ?? sessionRouteEvent(path);
}

const roleOf = (value: unknown): string | string[] | null =>
  typeof value === 'string' ? value : Array.isArray(value) ? value.filter((r): r is string => typeof r === 'string') : null;

/** The engine's other admin routes that change a user or its sessions (answered 2xx). */
function adminRouteEvent(path: string, requestBody: Body, answer: Body, callerId: string | null): EngineRouteEvent | null {
  const user = { type: 'user', id: text(requestBody?.userId) };
  switch (path) {
    case '/admin/set-role': return { entry: { action: 'user.role_changed', target: user, after: { role: roleOf(requestBody?.role) } } };
    case '/admin/update-user': {
      const data = requestBody?.data;
      // The names of the fields changed, never their values.
      return { entry: { action: 'user.updated', target: user, after: { fields: data && typeof data === 'object' && !Array.isArray(data) ? Object.keys(data).slice(0, 30) : [] } } };
    }
    case '/admin/remove-user': return { entry: { action: 'user.removed', target: user } };
    case '/admin/impersonate-user': return { entry: { action: 'user.impersonation_started', target: user } };
    // Made in the impersonated session: the admin is the user the answer returns to.
    case '/admin/stop-impersonating': return { entry: { action: 'user.impersonation_stopped', target: { type: 'user', id: callerId } }, actorId: text(userOf(answer)?.id) };
    // The session is named by its token in the request: never kept.
    case '/admin/revoke-user-session': return { entry: { action: 'user.sessions_revoked', target: { type: 'session' }, after: { scope: 'session', by: 'admin' } } };
    case '/admin/revoke-user-sessions': return { entry: { action: 'user.sessions_revoked', target: user, after: { scope: 'all', by: 'admin' } } };
    default: return null;
  }
}

/** A user ending sessions of their own (answered 2xx). */
function sessionRouteEvent(path: string): EngineRouteEvent | null {
  const scope = path === '/revoke-session' ? 'session' : path === '/revoke-sessions' ? 'all' : path === '/revoke-other-sessions' ? 'others' : null;
  return scope ? { entry: { action: 'user.sessions_revoked', target: { type: 'user' }, after: { scope, by: 'self' } } } : null;
}

/** Whether the event of an answered engine route reads the answer's body (the user it names). */
export const readsAnswer = (action: AuditAction): boolean => action === 'auth.sign_in' || action === 'user.impersonation_stopped';
