import { createHash, randomBytes } from 'node:crypto';

/** A token as minted: 32 random bytes, base64url (43 characters). */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export function mintToken(): string {
  return randomBytes(32).toString('base64url');
}

/** What is stored and looked up: the token's SHA-256 (a random 256-bit token needs no slow hash). */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function isTokenShaped(value: string): boolean {
  return TOKEN_SHAPE.test(value);
}
