function normalize(origin: string): string | null {
  try {
    const parsed = new URL(origin);
    return parsed.origin === 'null' ? null : parsed.origin;
  } catch {
    return null;
  }
}

function matches(origin: string, pattern: string): boolean {
  if (!pattern.includes('*')) return normalize(pattern) === origin;
  // `https://*.example.com`: one or more subdomain labels, same scheme, nothing else.
  const source = pattern.replace(/[.+?^${}()|[\]\\/]/g, '\\$&').replace(/\*/g, '[a-z0-9-]+(?:\\.[a-z0-9-]+)*');
  return new RegExp(`^${source}$`, 'i').test(origin);
}

/**
 * Whether a browser request from `clientOrigin` may act: the server's own origin and the
 * configured ones are trusted; `null` or malformed origins never are.
 */
export function isTrustedOrigin(clientOrigin: string, ownOrigin: string, trusted: readonly string[]): boolean {
  const origin = normalize(clientOrigin);
  if (!origin) return false;
  if (origin === normalize(ownOrigin)) return true;
  return trusted.some((pattern) => matches(origin, pattern));
}
