/**
 * File names and types as stored and served. A client's file name is a label only: it never
 * reaches a path on disk (files are stored under their id), and it is served in an attachment.
 */

const MAX_NAME = 255;

/** The last segment of a client's file name, without control characters or quotes; `file` if nothing is left. */
export function safeFileName(raw: string | undefined): string {
  const base = (raw ?? '').split(/[/\\]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex
  const clean = base.replace(/[\u0000-\u001f\u007f"]/g, '').trim().replace(/^\.+/, '').slice(0, MAX_NAME);
  return clean === '' ? 'file' : clean;
}

const TOKEN = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;

/** The media type a client declared for a part (parameters dropped), or application/octet-stream. */
export function declaredType(raw: string | undefined): string {
  const type = (raw ?? '').split(';')[0]!.trim().toLowerCase();
  return TOKEN.test(type) ? type : 'application/octet-stream';
}

/** Types a browser would run or render as a page; served as opaque bytes whatever was declared. */
const ACTIVE = new Set([
  'text/html', 'application/xhtml+xml', 'image/svg+xml', 'text/xml', 'application/xml', 'text/javascript',
  'application/javascript', 'application/ecmascript', 'text/ecmascript', 'application/x-javascript', 'text/xsl',
  'application/x-shockwave-flash', 'application/pdf+xml', 'multipart/x-mixed-replace',
]);

/** The Content-Type a file is served with: the declared one, unless it is active content. */
export function servedType(stored: string): string {
  return ACTIVE.has(stored) || stored.includes('xml') || stored.includes('html') || stored.includes('script') ? 'application/octet-stream' : stored;
}

/** `attachment` with an ASCII fallback name and the exact UTF-8 name (RFC 6266). */
export function contentDisposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;
}

/** Whether `type` matches one of the allowed patterns (`image/png`, `image/*`, `*\/*`). */
export function typeAllowed(type: string, allowed: readonly string[] | undefined): boolean {
  if (!allowed) return true;
  return allowed.some((pattern) => pattern === '*/*' || pattern === type || (pattern.endsWith('/*') && type.startsWith(pattern.slice(0, -1))));
}
