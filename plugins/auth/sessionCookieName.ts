/**
 * The engine's session cookie name for an environment, known before the engine is loaded: the
 * engine options set the prefix `osr-<environment>` and secure cookies exactly in production,
 * and the engine names the cookie `[__Secure-]<prefix>.session_token`. The started engine's own
 * name is used once it exists; a difference is logged.
 */
export function sessionCookieName(environmentId: string, production: boolean): string {
  return `${production ? '__Secure-' : ''}osr-${environmentId}.session_token`;
}
