import { codedError, type CodedError } from '../../kernel/errors.ts';

/** Where the endpoint may be reached from: its public origin, extra hosts and browser origins. */
export interface HostPolicy {
  enabled: boolean;
  /** `https://mcp.example.com`; unset: loopback hosts only (localhost, 127.0.0.1, [::1], any port). */
  publicOrigin: string | null;
  allowedHosts: readonly string[];
  allowedOrigins: readonly string[];
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** `Host` split into its name and port; the name lower-cased, IPv6 kept in brackets. */
function splitHost(host: string): { name: string; port: string | null } {
  const lower = host.trim().toLowerCase();
  const match = /^(\[[0-9a-f:.]+\]|[^:]+)(?::(\d{1,5}))?$/.exec(lower);
  return match ? { name: match[1]!, port: match[2] ?? null } : { name: lower, port: null };
}

/** A configured host matches with its port when it names one, on any port when it does not. */
function hostMatches(entry: string, host: string): boolean {
  const want = splitHost(entry);
  const got = splitHost(host);
  return want.name === got.name && (want.port === null || want.port === got.port);
}

/** The public origin's host, on its own port only (the scheme's default when the origin names none). */
function publicHostMatches(publicOrigin: string, host: string): boolean {
  const url = new URL(publicOrigin);
  const got = splitHost(host);
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return got.name === splitHost(url.host).name && (got.port === null ? url.port === '' : got.port === port);
}

function originOf(value: string): string | null {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : null;
  } catch {
    return null;
  }
}

/**
 * DNS-rebinding protection: a request whose Host is not the endpoint's own, or whose Origin (sent
 * by browsers) is not an allowed one, is refused before anything else is read. Without a public
 * origin only loopback names are accepted, so a page of another site that resolves its name to
 * this machine cannot reach the server through a browser.
 */
export function hostRefusal(policy: HostPolicy, host: string | undefined, origin: string | undefined): CodedError | null {
  if (!policy.enabled) return null;
  const publicOrigin = policy.publicOrigin;
  const fix = policy.publicOrigin
    ? `reach it at ${policy.publicOrigin}, or list the host in plugins.mcp.allowedHosts`
    : 'set plugins.mcp.publicOrigin to the public origin of the server (only loopback hosts are accepted without it)';
  const hostOk = host !== undefined && host !== '' && (
    (publicOrigin !== null && publicHostMatches(publicOrigin, host))
    || policy.allowedHosts.some((entry) => hostMatches(entry, host))
    || (publicOrigin === null && LOOPBACK.has(splitHost(host).name)));
  if (!hostOk) return codedError('MCP_HOST_NOT_ALLOWED', { host: (host ?? '(none)').slice(0, 200), fix });
  if (origin === undefined) return null;
  const given = originOf(origin);
  const originOk = given !== null && (
    (policy.publicOrigin !== null && given === originOf(policy.publicOrigin))
    || policy.allowedOrigins.some((entry) => originOf(entry) === given)
    || (policy.publicOrigin === null && LOOPBACK.has(splitHost(new URL(given).host).name)));
  if (!originOk) {
    return codedError('MCP_ORIGIN_NOT_ALLOWED', {
      origin: origin.slice(0, 200),
      fix: policy.publicOrigin ? `call from ${new URL(policy.publicOrigin).origin}, or list the origin in plugins.mcp.allowedOrigins` : 'list the origin in plugins.mcp.allowedOrigins',
    });
  }
  return null;
}
