/**
 * A tiny browser for redirect flows across the runtime (in-process, host `localhost`) and real
 * HTTP servers: a cookie jar per host, and redirects followed by hand.
 */
import type { TestRuntime } from '../harness/startTestRuntime.ts';

export const APP_ORIGIN = 'http://localhost';

export class CookieJar {
  readonly #hosts = new Map<string, Map<string, string>>();

  store(url: string, setCookies: string[]): void {
    const host = new URL(url).host;
    const jar = this.#hosts.get(host) ?? new Map<string, string>();
    this.#hosts.set(host, jar);
    for (const line of setCookies) {
      const [pair = '', ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === '';
      if (expired) jar.delete(name);
      else jar.set(name, value);
    }
  }

  header(url: string): string {
    const jar = this.#hosts.get(new URL(url).host);
    return jar ? [...jar].map(([n, v]) => `${n}=${v}`).join('; ') : '';
  }

  get(url: string, name: string): string | undefined {
    return this.#hosts.get(new URL(url).host)?.get(name);
  }
}

export interface Hop {
  url: string;
  status: number;
  location: string | null;
}

const setCookiesOf = (value: string | string[] | number | undefined) => ([] as string[]).concat((value as string | string[] | undefined) ?? []);

/** One GET as a browser would send it, to the runtime (at `app`) or to a real server. */
export async function get(rt: TestRuntime, jar: CookieJar, url: string, app = APP_ORIGIN): Promise<Hop & { body: string }> {
  const cookie = jar.header(url);
  const parsed = new URL(url);
  if (parsed.origin === app) {
    const res = await rt.inject({ url: `${parsed.pathname}${parsed.search}`, headers: { host: parsed.host, ...(cookie ? { cookie } : {}) } });
    jar.store(url, setCookiesOf(res.headers['set-cookie']));
    return { url, status: res.statusCode, location: typeof res.headers.location === 'string' ? res.headers.location : null, body: res.body };
  }
  const res = await fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} });
  jar.store(url, res.headers.getSetCookie());
  return { url, status: res.status, location: res.headers.get('location'), body: await res.text() };
}

/** Follow redirects from `url` until an answer that is not one, or until `stopAt` (a path of the app) is reached. */
export async function follow(rt: TestRuntime, jar: CookieJar, url: string, stopAt?: string, app = APP_ORIGIN): Promise<Hop[]> {
  const hops: Hop[] = [];
  let next: string | null = url;
  for (let i = 0; next && i < 20; i++) {
    const target = new URL(next, hops.at(-1)?.url ?? app);
    // The runtime knows itself as localhost:80 under inject; a browser drops the default port.
    const href = target.origin === 'http://localhost:80' ? `${APP_ORIGIN}${target.pathname}${target.search}` : target.href;
    if (stopAt && (target.origin === app || href.startsWith(`${app}/`)) && target.pathname === stopAt) {
      hops.push({ url: href, status: 0, location: null });
      break;
    }
    const hop = await get(rt, jar, href, app);
    hops.push({ url: hop.url, status: hop.status, location: hop.location });
    next = hop.status >= 300 && hop.status < 400 ? hop.location : null;
  }
  return hops;
}
