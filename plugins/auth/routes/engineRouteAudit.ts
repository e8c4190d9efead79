import type { AuditEntry } from '../../../capabilities/auditRecord.ts';

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

/**
 * Routes that sign a user in (a session is made when they succeed): with a JSON answer, or ending
 * in a redirect (a sign-in link, a provider's callback; a generic provider's at /oauth2/callback).
 */
const SIGN_IN = /^\/(sign-in\/[a-z-]+|two-factor\/verify-[a-z-]+|magic-link\/verify|phone-number\/verify|passkey\/verify-authentication|(?:oauth2\/)?callback\/[A-Za-z0-9_-]+)$/;
const TWO_FACTOR = /^\/two-factor\/(enable|disable|generate-backup-codes)$/;
const PASSKEY = /^\/passkey\/(verify-registration|delete-passkey|update-passkey)$/;

export const isSignInPath = (path: string): boolean => SIGN_IN.test(path);

/** Whether the event of a 2xx answer of this route reads the answer's body (the user it names). */
export const readsAnswer = (path: string): boolean => SIGN_IN.test(path) || path === '/admin/stop-impersonating';

/** How a sign-in that ended in a redirect went: the user of the session it opened, else the error its Location names. */
export interface SignInRedirect {
  user: { id: string; email: string | null } | null;
  error: string | null;
}

/** The `error` a redirect's Location names (`/home?error=INVALID_TOKEN`), bounded to a code's characters. */
export function redirectError(location: string | null): string | null {
  if (!location) return null;
  let error: string | null;
  try {
    error = new URL(location, 'http://x').searchParams.get('error');
  } catch {
    return null;
  }
  return error ? error.replace(/[^A-Za-z0-9_.-]/g, '').slice(0, 60) || 'unknown' : null;
}

/** The context of an answer: who called, and how a redirecting sign-in went. */
export interface EngineRouteContext {
  callerId?: string | null;
  redirect?: SignInRedirect | null;
}

/** `sign-in.email`, `magic-link.verify`, `callback.github` (a generic provider's callback too). */
const methodOf = (path: string): string => path.replace(/^\/oauth2\//, '/').split('/').slice(1).join('.');

function signInEvent(path: string, status: number, requestBody: Body, answer: Body, redirect: SignInRedirect | null): EngineRouteEvent | null {
  if (status < 200 || refusedBeforeActing(status)) return null;
  const method = methodOf(path);
  const signedIn = (user: { id?: unknown; email?: unknown } | null): EngineRouteEvent | null => {
    const id = text(user?.id);
    // An answer without a user opened no session (a link or code was sent, a provider is next).
    if (id === null) return null;
    return { entry: { action: 'auth.sign_in', target: { type: 'user', id, label: text(user?.email) }, after: { method } }, actorId: id };
  };
  const failed = (extra: Record<string, unknown>): EngineRouteEvent => {
    const attempted = attemptedLabel(requestBody?.email) ?? attemptedLabel(requestBody?.phoneNumber);
    return { entry: { action: 'auth.sign_in_failed', outcome: 'failure', target: { type: 'user', label: attempted }, after: { method, status, ...extra } } };
  };
  if (status >= 200 && status < 300) {
    // A first factor that asks for the second is not a sign-in yet.
    if (answer && answer.twoFactorRedirect === true) return null;
    return signedIn(userOf(answer));
  }
  if (status >= 300 && status < 400) {
    if (redirect?.user) return signedIn(redirect.user);
    return redirect?.error ? failed({ reason: redirect.error }) : null;
  }
  return failed({});
}

/**
 * The audit event of one answered auth-engine request, or null when the route is not audited.
 * Pure: the path, the status, the request body, the answer's body and its context (the caller's
 * user id; for a sign-in that redirected, the session's user or the error). Only the attempted
 * email (or phone, when shaped like one) and ids are kept, never a password, code or token.
 */
export function engineRouteEvent(path: string, status: number, requestBody: Body, answer: Body, context: EngineRouteContext = {}): EngineRouteEvent | null {
  const ok = status >= 200 && status < 300;
  if (SIGN_IN.test(path)) return signInEvent(path, status, requestBody, answer, context.redirect ?? null);
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
  return adminRouteEvent(path, requestBody, answer, context.callerId ?? null) ?? sessionRouteEvent(path);
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
