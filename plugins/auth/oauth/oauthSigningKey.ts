import { createECDH, hkdfSync } from 'node:crypto';

const b64 = (bytes: Buffer) => bytes.toString('base64url');

/**
 * The authorization server's signing key (ES256), derived from the environment's secret: the same
 * in every process and after every restart, and changed with OS_AUTH_SECRET like everything else.
 */
export function oauthSigningKey(secret: string): Record<string, string> {
  const d = Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), Buffer.alloc(0), 'osr oauth signing key', 32));
  const ecdh = createECDH('prime256v1');
  ecdh.setPrivateKey(d);
  const point = ecdh.getPublicKey();
  const x = point.subarray(1, 33);
  const y = point.subarray(33, 65);
  const kid = b64(Buffer.from(hkdfSync('sha256', point, Buffer.alloc(0), 'osr oauth key id', 12)));
  return { kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig', kid, x: b64(x), y: b64(y), d: b64(d) };
}
