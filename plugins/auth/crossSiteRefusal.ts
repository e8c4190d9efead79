import type { IncomingHttpHeaders } from 'node:http';
import { codedError, type CodedError } from '../../kernel/errors.ts';
import { isTrustedOrigin } from './trustedOrigins.ts';

/** Methods that change nothing: a forged one gains the forger nothing it can read. */
const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Why a request that carries the session cookie as its credential must not act, or null. A
 * state-changing request is refused when the browser says it came from another site
 * (`Sec-Fetch-Site: cross-site`) or when its `Origin` is neither the server's own nor trusted: a
 * page elsewhere can make the browser send the cookie, but not an `Authorization` header or an API
 * key, so bearer and API-key calls are not concerned. A request without either header (a client
 * that is not a browser) goes on.
 */
export function crossSiteRefusal(method: string, headers: IncomingHttpHeaders, ownOrigin: string, trusted: readonly string[]): CodedError | null {
  if (SAFE.has(method)) return null;
  if (headers['sec-fetch-site'] === 'cross-site') {
    return codedError('PERMISSION_DENIED', { reason: 'CROSS_SITE_REQUEST', method },
      'Permission denied: the browser sent this request from another site with the session cookie. Call from a page of this server, or send a bearer token or an API key.');
  }
  const origin = headers.origin;
  if (origin !== undefined && !isTrustedOrigin(origin, ownOrigin, trusted)) {
    return codedError('PERMISSION_DENIED', { reason: 'INVALID_ORIGIN', origin: origin.slice(0, 200), method },
      'Permission denied: requests from this origin are not trusted with the session cookie (add it to auth.trustedOrigins, or send a bearer token or an API key).');
  }
  return null;
}
