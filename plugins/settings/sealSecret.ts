import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** HKDF purpose label of the key that encrypts settings secrets (with the environment id as salt). */
export const SETTINGS_KEY_PURPOSE = 'osr.settings.secrets.v1';

const VERSION = 'v1';

/**
 * AES-256-GCM: a fresh 96-bit nonce per value, the namespace as additional data (a sealed value
 * moved to another namespace or environment does not open). `v1.<nonce>.<tag>.<ciphertext>`, base64url.
 */
export function sealSecret(key: Buffer, plain: string, aad: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad));
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
}

/** The plain text, or null when the value was not sealed with this key and additional data. */
export function openSecret(key: Buffer, sealed: string, aad: string): string | null {
  const [version, iv, tag, body] = sealed.split('.');
  if (version !== VERSION || iv === undefined || tag === undefined || body === undefined) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(aad));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}
