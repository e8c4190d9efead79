import { connect as netConnect, type Socket } from 'node:net';
import type { SettingsConnections } from '../../capabilities/settingsStore.ts';
import { checkedLookup, hostRefusedError, type LookupAll, type OnRefused } from './checkedLookup.ts';
import { privateRangeOf } from './isPrivateAddress.ts';
import type { PrivateHosts } from './settingsHosts.ts';

type Lookup = ReturnType<typeof checkedLookup>;

const bare = (host: string) => host.replace(/^\[(.*)\]$/, '$1');

/**
 * How consumers connect to a host an environment's settings chose (docs/settings.md, Hosts chosen
 * in settings). With `privateHosts: 'deny'` every connection is checked as it is made, not only
 * the host at the settings write: a name is resolved by checkedLookup.ts and connected to the
 * addresses it checked; an address given literally (in the settings, or in a redirect a provider
 * answers with) is refused before any connection. With 'allow' they are plain connections.
 */
export function settingsConnections(privateHosts: PrivateHosts, onRefused: OnRefused, lookupAll?: LookupAll): SettingsConnections {
  if (privateHosts === 'allow') {
    return { checked: false, fetch: (input, init) => fetch(input, init), connect: (host, port, timeoutMs) => open(host, port, timeoutMs) };
  }
  const lookup = checkedLookup(onRefused, lookupAll);
  const literal = (host: string): Error | null => {
    const address = bare(host);
    const range = privateRangeOf(address);
    if (!range) return null;
    onRefused({ host: address, address, range });
    return hostRefusedError(address, address, range);
  };
  // undici (its fetch with an agent whose every connection goes through the checks) is loaded on first use.
  let loaded: Promise<{ fetch: typeof import('undici').fetch; dispatcher: import('undici').Agent }> | undefined;
  const undici = () => (loaded ??= import('undici').then(({ Agent, buildConnector, fetch: undiciFetch }) => {
    const connector = buildConnector({ lookup });
    const dispatcher = new Agent({
      connect: (options, callback) => {
        const refused = literal(options.hostname);
        if (refused) callback(refused, null);
        else connector(options, callback);
      },
    });
    return { fetch: undiciFetch, dispatcher };
  }));
  return {
    checked: true,
    async fetch(input, init) {
      const { fetch: undiciFetch, dispatcher } = await undici();
      return (await undiciFetch(input as Parameters<typeof undiciFetch>[0], { ...(init as Parameters<typeof undiciFetch>[1]), dispatcher })) as unknown as Response;
    },
    connect(host, port, timeoutMs) {
      const refused = literal(host);
      return refused ? Promise.reject(refused) : open(host, port, timeoutMs, lookup);
    },
  };
}

/** A TCP connection to host:port, within timeoutMs. */
function open(host: string, port: number, timeoutMs: number, lookup?: Lookup): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = netConnect({ host: bare(host), port, ...(lookup ? { lookup: lookup as never } : {}) });
    const fail = (error: Error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(error);
    };
    const timer = setTimeout(() => fail(Object.assign(new Error(`no connection to ${host}:${port} within ${timeoutMs} ms`), { code: 'ETIMEDOUT' })), timeoutMs);
    socket.once('error', fail);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.removeListener('error', fail);
      resolve(socket);
    });
  });
}
