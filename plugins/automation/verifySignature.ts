import { createHmac, timingSafeEqual } from 'node:crypto';

/** Seconds a signature's timestamp may differ from the receiver's clock, either way. */
export const SIGNATURE_TOLERANCE_S = 300;

/** `signature`: the matching v1 (hex), the same for every replay of one signed request. */
export type SignatureCheck = { ok: true; signature: string } | { ok: false; reason: 'missing' | 'malformed' | 'stale' | 'mismatch' };

/** `t=<unix seconds>,v1=<hex>[,v1=<hex>...]`: the timestamp and every v1 signature (several during a secret rotation). */
export function parseSignatureHeader(header: string): { t: number; v1: string[] } | null {
  let t: number | null = null;
  const v1: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) return null;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      if (!/^\d{1,12}$/.test(value) || t !== null) return null;
      t = Number(value);
    } else if (key === 'v1') {
      if (!/^[0-9a-f]{64}$/i.test(value)) return null;
      v1.push(value.toLowerCase());
    }
  }
  return t === null || v1.length === 0 || v1.length > 5 ? null : { t, v1 };
}

/** The hex HMAC-SHA256 of `"<t>.<raw body>"` with the secret: what a sender puts after `v1=`. */
export function signPayload(secret: string, t: number, body: Buffer | string): string {
  return createHmac('sha256', secret).update(`${t}.`).update(body).digest('hex');
}

/**
 * Checks an `X-OSR-Signature` header against the raw body: a well-formed header, a timestamp
 * within the tolerance of `now`, and one v1 equal to the expected HMAC (compared in constant time).
 */
export function verifySignature(header: string | undefined, body: Buffer, secret: string, now: number = Date.now()): SignatureCheck {
  if (header === undefined || header === '') return { ok: false, reason: 'missing' };
  const parsed = parseSignatureHeader(header);
  if (!parsed) return { ok: false, reason: 'malformed' };
  if (Math.abs(Math.floor(now / 1000) - parsed.t) > SIGNATURE_TOLERANCE_S) return { ok: false, reason: 'stale' };
  const hex = signPayload(secret, parsed.t, body);
  const expected = Buffer.from(hex, 'hex');
  let match = false;
  // Every candidate is compared, so the time taken does not say which one matched.
  for (const candidate of parsed.v1) if (timingSafeEqual(Buffer.from(candidate, 'hex'), expected)) match = true;
  return match ? { ok: true, signature: hex } : { ok: false, reason: 'mismatch' };
}
