import type { IncomingHttpHeaders } from 'node:http';

export type Credential =
  | { kind: 'apiKey'; key: string }
  | { kind: 'bearer'; token: string }
  | { kind: 'cookie'; value: string };

export const API_KEY_PREFIX = 'osk_';
/** The longest credential read: longer ones are not credentials. */
export const MAX_CREDENTIAL_LENGTH = 4096;

function single(value: string | string[] | undefined): string | null {
  const v = Array.isArray(value) ? value[0] : value;
  return typeof v === 'string' && v.length > 0 && v.length <= MAX_CREDENTIAL_LENGTH ? v.trim() : null;
}

/** The value of one cookie in a Cookie header, as sent (still URL-encoded). */
export function readCookie(header: string | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim() || null;
  }
  return null;
}

/**
 * The credential a request carries, in order of precedence: an API key (`x-api-key`, or a bearer
 * starting with `osk_`), a bearer session token, the environment's session cookie. Only these:
 * user-id style headers are never read.
 */
export function readCredential(headers: IncomingHttpHeaders, sessionCookie: string): Credential | null {
  const apiKey = single(headers['x-api-key']);
  if (apiKey) return { kind: 'apiKey', key: apiKey };
  const authorization = single(headers.authorization);
  if (authorization) {
    const match = /^bearer\s+(\S+)$/i.exec(authorization);
    if (!match) return null;
    const token = match[1]!;
    return token.startsWith(API_KEY_PREFIX) ? { kind: 'apiKey', key: token } : { kind: 'bearer', token };
  }
  const cookie = readCookie(single(headers.cookie) ?? undefined, sessionCookie);
  return cookie && cookie.length <= MAX_CREDENTIAL_LENGTH ? { kind: 'cookie', value: cookie } : null;
}

/** A stable cache key for a credential (the kinds never collide). */
export function credentialKey(credential: Credential): string {
  switch (credential.kind) {
    case 'apiKey':
      return `k:${credential.key}`;
    case 'bearer':
      return `b:${credential.token}`;
    case 'cookie':
      return `c:${credential.value}`;
  }
}
