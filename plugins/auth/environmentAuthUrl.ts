import { AUTH_BASE_PATH } from './authPaths.ts';

/** The environment's own base path of the auth routes. */
export function environmentAuthBase(environmentId: string): string {
  return `/api/v1/environments/${environmentId}/auth`;
}

/**
 * A link the engine built (`.../api/v1/auth/reset-password/...`) rewritten to the environment's
 * path prefix, so following it reaches the environment that issued the token.
 */
export function environmentAuthUrl(url: string, environmentId: string): string {
  return url.replace(`${AUTH_BASE_PATH}/`, `${environmentAuthBase(environmentId)}/`);
}
