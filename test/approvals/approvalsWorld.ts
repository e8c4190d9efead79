/** A runtime with the approvals fixture app, an admin, a submitter, three finance approvers, a boss and an outsider. */
import type { Test } from 'tap';
import { addUser, sendAs, type Reply } from '../access/accessWorld.ts';
import { signIn, type Site } from '../auth/authHarness.ts';
import type { TestRuntime } from '../harness/startTestRuntime.ts';

export type Who = 'admin' | 'owner' | 'a1' | 'a2' | 'a3' | 'boss' | 'outsider';

export interface ApprovalsWorld {
  rt: TestRuntime;
  users: Record<Who, { id: string; token: string }>;
  as(user: Who, method: string, url: string, payload?: unknown): Promise<Reply>;
  /** A project of the owner, answering its id. */
  project(name: string, budget: number): Promise<string>;
}

export async function buildApprovalsWorld(t: Test, site: Site): Promise<ApprovalsWorld> {
  const rt = await site.boot({ config: { apps: ['test/approvals/fixtures/app'] } });
  const admin = await signIn(rt);
  const users = { admin: { id: String(admin.user.id), token: admin.token } } as ApprovalsWorld['users'];
  for (const key of ['owner', 'a1', 'a2', 'a3', 'boss', 'outsider'] as const) users[key] = await addUser(rt, admin.token, `ap-${key}`);
  const as = (user: Who, method: string, url: string, payload?: unknown) => sendAs(rt, users[user].token, method, url, payload);
  const must = async (user: Who, method: string, url: string, payload: unknown, status = 201) => {
    const res = await as(user, method, url, payload);
    if (res.status !== status) t.fail(`${user} ${method} ${url} answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body as Record<string, unknown>;
  };
  const finance = String((await must('admin', 'POST', '/api/v1/data/sys_position', { name: 'finance' })).id);
  for (const key of ['a1', 'a2', 'a3'] as const) await must('admin', 'POST', '/api/v1/data/sys_user_position', { user_id: users[key].id, position: finance });
  const project = async (name: string, budget: number) => String((await must('owner', 'POST', '/api/v1/data/project', { name, budget })).id);
  return { rt, users, as, project };
}
