/** A runtime with the record-features fixture app, an admin and two members, on one backend. */
import type { Test } from 'tap';
import type { AnyPlugin } from '../../kernel/definePlugin.ts';
import type { Logger } from '../../kernel/logger.ts';
import { signIn, type Site } from '../auth/authHarness.ts';
import { addUser, sendAs, type Reply } from '../access/accessWorld.ts';
import type { TestRuntime } from '../harness/startTestRuntime.ts';
import type { RuntimeConfigInput } from '../../runtime/configSchema.ts';

export type Who = 'admin' | 'm1' | 'm2';

export interface RecordsWorld {
  rt: TestRuntime;
  users: Record<Who, { id: string; token: string }>;
  as(user: Who, method: string, url: string, payload?: unknown): Promise<Reply>;
  /** Fails the test unless the answer has `status`; returns the body. */
  must(reply: Promise<Reply>, status?: number): Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export async function recordsWorld(t: Test, site: Site, options: { config?: RuntimeConfigInput; plugins?: AnyPlugin[]; logger?: Logger } = {}): Promise<RecordsWorld> {
  const rt = await site.boot({ config: { apps: ['test/records/fixtures/app'], ...options.config }, ...(options.plugins ? { plugins: options.plugins } : {}), ...(options.logger ? { logger: options.logger } : {}) });
  const session = await signIn(rt);
  const admin = { id: String(session.user.id), token: session.token };
  const users = { admin, m1: await addUser(rt, admin.token, 'memberOne'), m2: await addUser(rt, admin.token, 'memberTwo') };
  const as: RecordsWorld['as'] = (user, method, url, payload) => sendAs(rt, users[user].token, method, url, payload);
  const must: RecordsWorld['must'] = async (reply, status = 201) => {
    const answer = await reply;
    if (answer.status !== status) t.fail(`answered ${answer.status}, expected ${status}: ${JSON.stringify(answer.body)}`);
    return answer.body;
  };
  // Members may read and edit every deal field but `secret`, which a set no member holds names.
  await must(as('admin', 'POST', '/api/v1/data/sys_permission_set', { name: 'deal_secrets', fields: { 'deal.secret': { read: true, edit: true } } }));
  return { rt, users, as, must };
}
