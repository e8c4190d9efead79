/** A runtime with real users, positions, permission sets, shares and documents, for the access tests. */
import type { Test } from 'tap';
import type { TestRuntime } from '../harness/startTestRuntime.ts';
import { definePlugin } from '../../kernel/definePlugin.ts';
import type { AnyPlugin } from '../../kernel/index.ts';
import type { RuntimeConfigInput } from '../../runtime/configSchema.ts';
import { bearer, signIn, type Site } from '../auth/authHarness.ts';

/** A route guarded by the `ai:chat` permission key, to see keys granted by permission sets at work. */
const keyProbe = definePlugin({
  name: 'key-probe',
  version: '1.0.0',
  kernel: '^16.0.0',
  requires: ['http.routes'],
  register(ctx) {
    ctx.resolve('http.routes').add({ method: 'GET', path: '/probe/ai', summary: 'probe', permission: 'ai:chat', handler: () => ({ ok: true }) });
  },
});

export interface Reply {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export type UserKey = 'admin' | 'owner' | 'other' | 'sharee' | 'unitMember' | 'viewAll' | 'expired' | 'future' | 'euManager';

export interface World {
  rt: TestRuntime;
  users: Record<UserKey, { id: string; token: string }>;
  /** Record ids by label: docA..docE, folder, positions and permission sets. */
  ids: Record<string, string>;
  as(user: UserKey, method: string, url: string, payload?: unknown): Promise<Reply>;
}

const DAY = 86_400_000;
export const iso = (offsetDays: number) => new Date(Date.now() + offsetDays * DAY).toISOString();

/** A request with a bearer token (a session token or an API key), its answer parsed. */
export async function sendAs(rt: TestRuntime, token: string, method: string, url: string, payload?: unknown): Promise<Reply> {
  const res = await rt.inject({ method: method as 'GET', url, headers: bearer(token), ...(payload === undefined ? {} : { payload: payload as object }) });
  return { status: res.statusCode, body: res.body === '' ? null : res.json() };
}

/** Creates a member through the admin route and signs it in. */
export async function addUser(rt: TestRuntime, adminToken: string, key: string): Promise<{ id: string; token: string }> {
  const email = `${key.toLowerCase()}@example.com`;
  const password = `pw-${key}-0123456789`;
  const created = await sendAs(rt, adminToken, 'POST', '/api/v1/auth/admin/create-user', { email, name: key, password, mustChangePassword: false });
  if (created.status !== 201) throw new Error(`create-user ${key}: ${created.status} ${JSON.stringify(created.body)}`);
  const session = await signIn(rt, email, password);
  return { id: String(session.user.id), token: session.token };
}

export interface WorldOptions {
  /** Apps booted after the access fixture app. */
  apps?: string[];
  /** Plugins enabled beside the key probe. */
  plugins?: AnyPlugin[];
  /** Config merged over the world's (its `plugins` replace the site's). */
  config?: RuntimeConfigInput;
}

export async function buildWorld(t: Test, site: Site, options: WorldOptions = {}): Promise<World> {
  const rt = await site.boot({ config: { ...options.config, apps: ['test/access/fixtures/app', ...(options.apps ?? [])] }, plugins: [keyProbe, ...(options.plugins ?? [])] });
  const admin = await signIn(rt);
  const users = { admin: { id: String(admin.user.id), token: admin.token } } as World['users'];
  const send = (token: string, method: string, url: string, payload?: unknown) => sendAs(rt, token, method, url, payload);
  const as = (user: UserKey, method: string, url: string, payload?: unknown) => send(users[user].token, method, url, payload);
  const must = async (user: UserKey, method: string, url: string, payload: unknown, status = 201) => {
    const res = await as(user, method, url, payload);
    if (res.status !== status) t.fail(`${user} ${method} ${url} answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body as Record<string, unknown>;
  };

  for (const key of ['owner', 'other', 'sharee', 'unitMember', 'viewAll', 'expired', 'future', 'euManager'] as const) {
    users[key] = await addUser(rt, admin.token, key);
  }

  const ids: Record<string, string> = {};
  const create = async (label: string, object: string, record: object, user: UserKey = 'admin') => {
    ids[label] = String((await must(user, 'POST', `/api/v1/data/${object}`, record)).id);
  };
  await create('sales', 'sys_position', { name: 'sales', label: 'Sales' });
  await create('rep', 'sys_position', { name: 'rep', parent: ids.sales, delegatable: true });
  await create('eu_manager', 'sys_position', { name: 'eu_manager' });
  await create('tenant_admin', 'sys_position', { name: 'tenant_admin', delegatable: true, admin_scope: true });
  await create('auditor', 'sys_permission_set', {
    name: 'auditor',
    objects: { doc: { viewAll: true }, folder: { viewAll: true } },
    fields: { 'doc.secret': { read: true } },
    permissions: ['ai:chat'],
  });
  await create('upUnit', 'sys_user_position', { user_id: users.unitMember.id, position: ids.rep });
  await create('upEu', 'sys_user_position', { user_id: users.euManager.id, position: ids.eu_manager });
  await create('upTenantAdmin', 'sys_user_position', { user_id: users.euManager.id, position: ids.tenant_admin });
  await create('usView', 'sys_user_permission_set', { user_id: users.viewAll.id, permission_set: ids.auditor });
  await create('usExpired', 'sys_user_permission_set', { user_id: users.expired.id, permission_set: ids.auditor, valid_from: iso(-30), valid_until: iso(-1) });
  await create('usFuture', 'sys_user_permission_set', { user_id: users.future.id, permission_set: ids.auditor, valid_from: iso(1), valid_until: iso(30) });

  await create('folder', 'folder', { name: 'FOLDER-1' }, 'owner');
  await create('docA', 'doc', { title: 'DOC-A', region: 'US', folder: ids.folder }, 'owner');
  await create('docB', 'doc', { title: 'DOC-B', region: 'US' }, 'other');
  await create('docC', 'doc', { title: 'DOC-C', region: 'US' }, 'other');
  await create('docE', 'doc', { title: 'DOC-E', region: 'EU' }, 'other');
  for (const key of ['A', 'B', 'C', 'E']) await must('admin', 'PATCH', `/api/v1/data/doc/${ids[`doc${key}`]}`, { secret: `SECRET-${key}`, ...(key === 'B' ? { folder: ids.folder } : {}) }, 200);
  ids.shareB = String((await must('other', 'POST', `/api/v1/data/doc/${ids.docB}/shares`, { recipient_type: 'user', recipient_id: users.sharee.id, access: 'read' })).id);
  ids.shareC = String((await must('other', 'POST', `/api/v1/data/doc/${ids.docC}/shares`, { recipient_type: 'unit_and_subordinates', recipient_id: ids.sales })).id);
  return { rt, users, ids, as };
}
