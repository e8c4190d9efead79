import type { ApiVersion } from '../../capabilities/httpRoutes.ts';

export const API_VERSIONS: readonly ApiVersion[] = ['v1', 'v2'];
export const CURRENT_VERSION: ApiVersion = 'v2';

/**
 * When the v1 form of a route that has a v2 variant was deprecated, and when it goes away: v1 is
 * served beside v2 for one minor release (docs/versioning.md). Sent as `Deprecation: @<unix seconds>`
 * (RFC 9745) and `Sunset: <HTTP-date>` (RFC 8594).
 */
export const V1_DEPRECATED_AT = Date.parse('2026-12-01T00:00:00Z');
export const V1_SUNSET = Date.parse('2027-06-01T00:00:00Z');

/** The discovery body's `api` part: versions, the current one and the deprecation horizon. */
export const DEPRECATION_POLICY = {
  current: CURRENT_VERSION,
  supported: [...API_VERSIONS],
  horizon: 'Breaking changes ship as a new /api/vN; the previous version is served beside it for one more minor release, then removed at its sunset.',
  deprecated: { v1: { deprecatedAt: new Date(V1_DEPRECATED_AT).toISOString(), sunset: new Date(V1_SUNSET).toISOString() } },
  migrationGuide: 'docs/versioning.md',
} as const;

export const prefixOf = (version: ApiVersion) => `/api/${version}`;

/** `/api/v1/...` (or the route's root path) as served in `version`. */
export function pathIn(version: ApiVersion, v1Path: string): string {
  return v1Path.startsWith('/api/v1/') || v1Path === '/api/v1' ? prefixOf(version) + v1Path.slice('/api/v1'.length) : v1Path;
}

/** The headers of a v1 answer from a route that has a v2 variant; `path` is the requested path. */
export function deprecationHeaders(path: string): Record<string, string> {
  const successor = pathIn('v2', path);
  return {
    deprecation: `@${Math.floor(V1_DEPRECATED_AT / 1000)}`,
    sunset: new Date(V1_SUNSET).toUTCString(),
    // The path is the one the router matched: characters that would break the header are encoded.
    link: `<${encodeURI(decodeSafe(successor))}>; rel="successor-version"`,
  };
}

function decodeSafe(path: string): string {
  try {
    return decodeURI(path);
  } catch {
    return path;
  }
}
