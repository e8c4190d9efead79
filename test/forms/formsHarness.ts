/** A runtime with the forms fixture app, real identity (admin and a member), for the forms tests. */
import type { Test } from 'tap';
import { addUser, sendAs, type Reply } from '../access/accessWorld.ts';
import { signIn, type Site } from '../auth/authHarness.ts';
import type { TestRuntime } from '../harness/startTestRuntime.ts';
import type { RuntimeConfigInput } from '../../runtime/configSchema.ts';

export const FORMS_APP = 'test/forms/fixtures/app';

export interface FormsWorld {
  rt: TestRuntime;
  admin: { id: string; token: string; cookie: string };
  member: { id: string; token: string };
  /** An anonymous JSON call, from `ip` (default 127.0.0.1). */
  anon(method: string, url: string, payload?: unknown, ip?: string): Promise<Reply & { headers: Record<string, unknown> }>;
  as(token: string, method: string, url: string, payload?: unknown): Promise<Reply>;
  /** Every ticket, read by the admin. */
  tickets(): Promise<Array<Record<string, unknown>>>;
}

export async function formsWorld(t: Test, site: Site, config: RuntimeConfigInput = {}): Promise<FormsWorld> {
  const rt = await site.boot({ config: { apps: [FORMS_APP], ...config } });
  const signed = await signIn(rt);
  const admin = { id: String(signed.user.id), token: signed.token, cookie: signed.cookie };
  const member = await addUser(rt, admin.token, 'member');
  const as = (token: string, method: string, url: string, payload?: unknown) => sendAs(rt, token, method, url, payload);
  return {
    rt, admin, member, as,
    async anon(method, url, payload, ip = '127.0.0.1') {
      const res = await rt.inject({ method: method as 'GET', url, remoteAddress: ip, ...(payload === undefined ? {} : { payload: payload as object }) });
      return { status: res.statusCode, body: res.body === '' ? null : res.json(), headers: res.headers };
    },
    async tickets() {
      const res = await as(admin.token, 'GET', '/api/v1/data/ticket?limit=200');
      if (res.status !== 200) t.fail(`listing tickets answered ${res.status}: ${JSON.stringify(res.body)}`);
      return res.body.items as Array<Record<string, unknown>>;
    },
  };
}
