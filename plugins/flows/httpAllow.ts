/**
 * The http step's URL allow-list (config `plugins.flows.http.allow`): each entry is an http(s) URL
 * prefix such as `https://api.example.com/` or `https://hooks.example.com/v1/`. A URL is allowed
 * when its scheme, host and port equal an entry's and its path starts with the entry's path (an
 * entry without a path allows the whole origin). Credentials in the URL are never allowed.
 */
export interface AllowEntry {
  protocol: string;
  host: string;
  path: string;
}

export function parseAllowEntry(entry: string): AllowEntry {
  const url = new URL(entry);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`'${entry}' must be an http or https URL`);
  if (url.username || url.password) throw new Error(`'${entry}' must not hold credentials`);
  if (url.search || url.hash) throw new Error(`'${entry}' must not hold a query or fragment`);
  return { protocol: url.protocol, host: url.host.toLowerCase(), path: url.pathname };
}

/** Null when allowed; else why not. */
export function refuseUrl(raw: string, allow: readonly AllowEntry[]): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'it is not an absolute URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `scheme ${url.protocol} is not http or https`;
  if (url.username || url.password) return 'URLs with credentials are refused: send them in a header';
  if (allow.length === 0) return 'the allow-list (plugins.flows.http.allow) is empty';
  const host = url.host.toLowerCase();
  const ok = allow.some((e) => e.protocol === url.protocol && e.host === host && (e.path === '/' || url.pathname === e.path || url.pathname.startsWith(e.path.endsWith('/') ? e.path : `${e.path}/`)));
  return ok ? null : 'it is not on the allow-list (plugins.flows.http.allow)';
}
