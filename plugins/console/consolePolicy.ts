/**
 * The console's Content-Security-Policy: scripts, styles and requests of its own origin only, no
 * inline script or style, no eval, no frames, no plugins. Images may be data: URLs (file previews).
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Built files never change under their name (it holds their hash): a year, immutable. */
export const ASSET_CACHE = 'public, max-age=31536000, immutable';

/** br first (smaller), then gzip, else the file as is; `q=0` refuses an encoding. */
export function pickEncoding(acceptEncoding: string | undefined): 'brotli' | 'gzip' | 'identity' {
  const accepted = new Map<string, number>();
  for (const part of (acceptEncoding ?? '').split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    accepted.set(name, q ? Number(q.slice(2)) || 0 : 1);
  }
  const ok = (name: string) => (accepted.get(name) ?? accepted.get('*') ?? 0) > 0;
  if (ok('br')) return 'brotli';
  if (ok('gzip')) return 'gzip';
  return 'identity';
}
