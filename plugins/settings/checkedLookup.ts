import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import { privateRangeOf } from './isPrivateAddress.ts';

/** Every address of a name, as a connection would use them (the edge: node:dns). */
export type LookupAll = (host: string) => Promise<LookupAddress[]>;

const systemLookup: LookupAll = (host) => dnsLookup(host, { all: true, verbatim: true });

/** The code of a connection refused because its host is, or resolves to, a refused address. */
export const HOST_REFUSED = 'SETTINGS_HOST_REFUSED';

/** Told of each refusal (the host, the address and what kind of address it is), for the log. */
export type OnRefused = (refusal: { host: string; address: string; range: string }) => void;

export function hostRefusedError(host: string, address: string, range: string): Error {
  const what = host === address ? `is ${range}` : `resolves to ${address}, ${range}`;
  return Object.assign(new Error(`host '${host.slice(0, 200)}' chosen in settings ${what}: not connected (plugins.settings.privateHosts: 'deny')`), { code: HOST_REFUSED });
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for `net.connect` (and so for undici's connector and TLS) that resolves a name and
 * refuses it when any of its addresses is loopback, private, link-local, unspecified, shared,
 * multicast or reserved (isPrivateAddress.ts): the connection then uses exactly the addresses
 * that were checked, so a name re-pointed after a settings write (DNS rebinding, a record with a
 * zero TTL) is judged by what it resolves to now. Every address counts, not only the one a
 * connection would try first, as at the write.
 */
export function checkedLookup(onRefused: OnRefused = () => undefined, lookupAll: LookupAll = systemLookup) {
  return (hostname: string, options: { family?: number | string; all?: boolean } | number | undefined, callback: LookupCallback): void => {
    const wanted = typeof options === 'number' ? options : Number(options?.family ?? 0) || (options?.family === 'IPv6' ? 6 : options?.family === 'IPv4' ? 4 : 0);
    const all = typeof options === 'object' && options?.all === true;
    lookupAll(hostname).then(
      (found) => {
        for (const { address } of found) {
          const range = privateRangeOf(address);
          if (range) {
            onRefused({ host: hostname, address, range });
            callback(hostRefusedError(hostname, address, range), all ? [] : '');
            return;
          }
        }
        const usable = wanted === 4 || wanted === 6 ? found.filter((a) => a.family === wanted) : found;
        const first = usable[0];
        if (!first) {
          callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname }), all ? [] : '');
          return;
        }
        if (all) callback(null, usable);
        else callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, all ? [] : ''),
    );
  };
}
