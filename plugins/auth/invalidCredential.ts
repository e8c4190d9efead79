import { createHmac, timingSafeEqual } from 'node:crypto';
import { codedError, type CodedError } from '../../kernel/errors.ts';
import type { Credential } from './credentials.ts';

const NAMES = { apiKey: 'API key', bearer: 'bearer token', cookie: 'session cookie' } as const;

/** Whether a signed bearer token (`token.signature`) was signed with `secret`. */
export function signedWith(token: string, secret: string): boolean {
  let decoded = token;
  if (token.includes('%')) {
    try {
      decoded = decodeURIComponent(token);
    } catch {
      return false;
    }
  }
  const at = decoded.lastIndexOf('.');
  if (at <= 0) return false;
  const given = Buffer.from(decoded.slice(at + 1), 'base64');
  const expected = createHmac('sha256', secret).update(decoded.slice(0, at)).digest();
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * The 401 for a credential that was sent but is not valid here: never taken for an anonymous call,
 * whatever `api.requireAuth` says. A bearer token signed by another environment says which one.
 */
export function invalidCredential(credential: Credential, environmentId: string, issuedBy: string | null): CodedError {
  const name = NAMES[credential.kind];
  if (issuedBy !== null) {
    return codedError('UNAUTHENTICATED', { reason: 'OTHER_ENVIRONMENT', credential: credential.kind, environmentId, issuedBy },
      `The ${name} was issued by environment '${issuedBy}', not by '${environmentId}': a credential works only in its own environment. Send the request to /api/v1/environments/${issuedBy}/... (or with X-Environment-Id: ${issuedBy}), or sign in to '${environmentId}'.`);
  }
  const fix = credential.kind === 'apiKey'
    ? 'mint a key in this environment (POST /api/v1/keys); a key works only in the environment that minted it'
    : 'sign in again (POST /api/v1/auth/sign-in), or send no credential for an anonymous call';
  return codedError('UNAUTHENTICATED', { reason: 'CREDENTIAL_INVALID', credential: credential.kind, environmentId },
    `The ${name} sent is not valid in environment '${environmentId}': it is unknown, expired or revoked. Fix: ${fix}.`);
}
