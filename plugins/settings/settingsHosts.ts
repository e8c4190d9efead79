import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { codedError } from '../../kernel/errors.ts';
import { withTimeout } from '../../kernel/withTimeout.ts';
import { privateRangeOf } from './isPrivateAddress.ts';
import { valuesAt } from './secretPaths.ts';

/** Where a namespace's values choose a host the runtime connects to: dotted patterns as for secrets (`providers.*.baseURL`). */
export type HostPattern = string;

/** `plugins.settings.privateHosts`: whether hosts chosen in settings may be loopback, private or link-local addresses. */
export type PrivateHosts = 'deny' | 'allow';

/** The longest wait for the addresses of one host chosen in settings. */
export const HOST_LOOKUP_TIMEOUT_MS = 5000;

/** Every address a name resolves to (the edge: node:dns, as the connection will resolve it). */
export type ResolveAll = (host: string) => Promise<string[]>;

const resolveAll: ResolveAll = async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

const FIX = "choose a host with a public address, or ask the operator to set plugins.settings.privateHosts: 'allow' (docs/settings.md, Hosts chosen in settings)";

/** The host a value names: a URL's host name, else the value itself (`smtp.host`); null when it names none (the schema judges it). */
export function hostOf(value: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(value) && value.includes('//')) {
    try {
      const name = new URL(value).hostname;
      return name === '' ? null : name.replace(/^\[(.*)\]$/, '$1');
    } catch {
      return null;
    }
  }
  const bare = value.trim().replace(/^\[(.*)\]$/, '$1');
  return bare === '' ? null : bare;
}

/** Why `host` may not be chosen (an address in a refused range, or a name that does not resolve or resolves to one), else null. */
export async function hostRefusal(host: string, resolve: ResolveAll = resolveAll, timeoutMs = HOST_LOOKUP_TIMEOUT_MS): Promise<string | null> {
  const literal = privateRangeOf(host);
  if (literal) return `which is ${literal}`;
  if (isIP(host) !== 0) return null;
  let addresses: string[];
  try {
    addresses = await withTimeout(() => resolve(host), timeoutMs, () => Object.assign(new Error(`no answer within ${timeoutMs} ms`), { code: 'ETIMEOUT' }));
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return `which does not resolve (${typeof code === 'string' ? code : 'lookup failed'}): a host whose addresses are unknown cannot be checked`;
  }
  if (addresses.length === 0) return 'which resolves to no address: a host whose addresses are unknown cannot be checked';
  for (const address of addresses) {
    const range = privateRangeOf(address);
    if (range) return `which resolves to ${address}, ${range}`;
  }
  return null;
}

/**
 * The check of a settings write while `plugins.settings.privateHosts` is `deny`: every host the
 * values choose at the namespace's host patterns must have only public addresses, else 400
 * `SETTINGS_HOST_REFUSED` naming the first path refused (all of them in `errors`). Hosts are
 * resolved once, here: a name re-pointed later (DNS rebinding) is not checked again.
 */
export async function checkSettingsHosts(values: Record<string, unknown>, patterns: readonly HostPattern[], resolve?: ResolveAll, timeoutMs?: number): Promise<void> {
  const chosen = valuesAt(values, patterns).flatMap(({ path, value }) => {
    const host = typeof value === 'string' ? hostOf(value) : null;
    return host === null ? [] : [{ path, host }];
  });
  const refusals = await Promise.all(chosen.map(async ({ path, host }) => ({ path, host, reason: await hostRefusal(host, resolve, timeoutMs) })));
  const refused = refusals.filter((r): r is { path: string; host: string; reason: string } => r.reason !== null);
  const first = refused[0];
  if (!first) return;
  throw codedError('SETTINGS_HOST_REFUSED', {
    path: first.path,
    host: first.host.slice(0, 200),
    reason: first.reason,
    fix: FIX,
    errors: refused.map((r) => ({ path: r.path, message: `host '${r.host.slice(0, 200)}' ${r.reason}` })),
  });
}
