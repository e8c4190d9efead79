/** A runtime with the CRM app on a real port, and plain HTTP calls to it, for the scope tests. */
import type { Site } from '../auth/authHarness.ts';
import type { TestRuntime } from '../harness/startTestRuntime.ts';

export interface Answer {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  headers: Headers;
}

export interface Served {
  rt: TestRuntime;
  base: string;
  call(method: string, path: string, options?: { headers?: Record<string, string>; body?: unknown }): Promise<Answer>;
}

/** Boot the CRM app on `site`, listening on a free port of 127.0.0.1. */
export async function serveCrm(site: Site, extra: { auth?: Record<string, unknown>; port?: number; env?: NodeJS.ProcessEnv } = {}): Promise<Served> {
  const rt = await site.boot({
    ...(extra.env ? { env: extra.env } : {}),
    config: {
      apps: ['metadata/apps/crm'],
      server: { listen: true, port: extra.port ?? 0, host: '127.0.0.1' },
      plugins: { email: { enabled: false }, crm: { enabled: true }, auth: { rateLimit: { enabled: false }, ...extra.auth } },
    },
  });
  const url = rt.runtime.http().url();
  if (!url) throw new Error('the runtime is not listening');
  const base = url.replace(/\/$/, '');
  return {
    rt,
    base,
    async call(method, path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      if (options.body !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(`${base}${path}`, { method, headers, ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}) });
      const text = await res.text();
      let body: unknown = text;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        // not JSON (an export file): the text itself
      }
      return { status: res.status, body, headers: res.headers };
    },
  };
}
