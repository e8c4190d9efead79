import type { RateFamily } from './authOptions.ts';

/** Where the auth engine is mounted; the path it expects in every request URL. */
export const AUTH_BASE_PATH = '/api/v1/auth';

const startsWithAny = (path: string, prefixes: readonly string[]) =>
  prefixes.some((p) => path === p || path.startsWith(p.endsWith('/') ? p : `${p}/`));

/** Which rate-limit family an engine path (below AUTH_BASE_PATH) belongs to, if any. */
export function rateFamilyOf(path: string): RateFamily | null {
  // Second-factor codes, sign-in links and passkey assertions are sign-in attempts too (six digits are guessable).
  if (startsWithAny(path, ['/sign-in/', '/sign-up/', '/sign-in', '/two-factor/verify-totp', '/two-factor/verify-backup-code', '/magic-link/verify', '/passkey/verify-authentication', '/phone-number/verify'])) return 'signIn';
  if (startsWithAny(path, ['/request-password-reset', '/forget-password', '/reset-password', '/change-password', '/phone-number/request-password-reset', '/phone-number/reset-password'])) return 'passwordReset';
  if (startsWithAny(path, ['/send-verification-email', '/verify-email'])) return 'verification';
  return null;
}

/**
 * Engine paths an account that must change its password may still use: the change itself,
 * reading and ending its session, and the flows that do not act as the account.
 */
const ALLOWED_WHILE_EXPIRED = [
  '/change-password', '/sign-out', '/get-session', '/ok', '/error',
  '/sign-in/', '/request-password-reset', '/forget-password', '/reset-password', '/verify-email', '/send-verification-email',
  '/phone-number/request-password-reset', '/phone-number/reset-password',
  '/two-factor/verify-totp', '/two-factor/verify-backup-code', '/magic-link/verify',
  '/passkey/generate-authenticate-options', '/passkey/verify-authentication',
];

export function allowedWhilePasswordExpired(path: string): boolean {
  return startsWithAny(path, ALLOWED_WHILE_EXPIRED);
}

/** The engine path of a request URL below AUTH_BASE_PATH (`/sign-in/email`), or null. */
export function enginePath(url: string): string | null {
  const pathname = new URL(url, 'http://x').pathname;
  if (pathname === AUTH_BASE_PATH) return '/';
  return pathname.startsWith(`${AUTH_BASE_PATH}/`) ? pathname.slice(AUTH_BASE_PATH.length) : null;
}

/**
 * The engine path that serves a request path, given the ids of the generic OAuth providers: their
 * callbacks live at /oauth2/callback/<id> and the engine's /callback/<id> serves only the built-in
 * social providers, so neither path reaches the other kind. Null: no such route.
 */
export function oauthCallbackRoute(path: string, genericIds: ReadonlySet<string>): string | null {
  const generic = /^\/oauth2\/callback\/([^/]+)$/.exec(path);
  if (generic) return genericIds.has(generic[1]!) ? `/callback/${generic[1]}` : null;
  const social = /^\/callback\/([^/]+)$/.exec(path);
  if (social && genericIds.has(social[1]!)) return null;
  return path;
}
