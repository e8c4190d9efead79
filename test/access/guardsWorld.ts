/**
 * The access world (accessWorld.ts) plus what the guard tests need: a public_read object, a hook
 * that changes the record it is updating, a member allowed to delete docs without view all,
 * assignments and delegations outside their windows, an owner-based sharing rule, and the API
 * keys of a banned member.
 */
import type { Test } from 'tap';
import type { DataContext, DataEngine, DataRecord } from '../../capabilities/dataEngine.ts';
import { definePlugin } from '../../kernel/definePlugin.ts';
import type { Site } from '../auth/authHarness.ts';
import { addUser, buildWorld, iso, sendAs, type Reply, type UserKey, type World } from './accessWorld.ts';

/** A patched title that makes the race hook write the same record first. */
export const RACE_TITLE = 'LOST-UPDATE';
/** The title of a doc whose deletion makes the race hook write it first. */
export const RACE_DELETE_TITLE = 'DOC-RACE';
export const HOOK_REGION = 'HOOK-WRITE';

interface WriteEvent {
  id?: string;
  patch?: DataRecord;
  previous: DataRecord;
  ctx: DataContext;
  engine: DataEngine;
}

/** Inside the write's transaction, between its read and its write, the same record is changed. */
const raceHook = definePlugin({
  name: 'race-hook',
  version: '1.0.0',
  kernel: '^16.0.0',
  register(ctx) {
    const touch = (event: WriteEvent) => event.engine.update('doc', String(event.previous.id), { region: HOOK_REGION }, {}, event.ctx);
    ctx.hook('data.beforeUpdate', async (event: WriteEvent) => {
      if (event.patch?.title === RACE_TITLE) await touch(event);
    }, { object: 'doc' });
    ctx.hook('data.beforeDelete', async (event: WriteEvent) => {
      if (event.previous.title === RACE_DELETE_TITLE) await touch(event);
    }, { object: 'doc' });
  },
});

/** Members added to the access world; `bannedKey` and `bannedCachedKey` call with an API key of the banned member. */
export type GuardUser = UserKey | 'deleter' | 'reader' | 'banned' | 'bannedKey' | 'bannedCachedKey';

export interface GuardsWorld {
  base: World;
  users: Record<GuardUser, { id: string; token: string }>;
  ids: Record<string, string>;
  as(user: GuardUser, method: string, url: string, payload?: unknown): Promise<Reply>;
}

const data = (object: string) => `/api/v1/data/${object}`;

export async function buildGuardsWorld(t: Test, site: Site): Promise<GuardsWorld> {
  const base = await buildWorld(t, site, { apps: ['test/access/fixtures/guards-app'], plugins: [raceHook] });
  const users = { ...base.users } as GuardsWorld['users'];
  for (const key of ['deleter', 'reader', 'banned'] as const) users[key] = await addUser(base.rt, users.admin.token, key);
  const ids = { ...base.ids };
  const as = (user: GuardUser, method: string, url: string, payload?: unknown) => sendAs(base.rt, users[user].token, method, url, payload);
  const must = async (user: GuardUser, method: string, url: string, payload: unknown, status = 201) => {
    const res = await as(user, method, url, payload);
    if (res.status !== status) t.fail(`${user} ${method} ${url} answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body as Record<string, unknown>;
  };
  const create = async (label: string, user: GuardUser, object: string, record: object) => {
    ids[label] = String((await must(user, 'POST', data(object), record)).id);
  };

  // Delete on doc without view all.
  await create('deleterSet', 'admin', 'sys_permission_set', { name: 'doc_deleter', objects: { doc: { delete: true } } });
  await create('usDeleter', 'admin', 'sys_user_permission_set', { user_id: users.deleter.id, permission_set: ids.deleterSet });
  await create('docD', 'deleter', 'doc', { title: 'DOC-D', region: 'US' });
  await create('docRace', 'deleter', 'doc', { title: RACE_DELETE_TITLE, region: 'US' });

  // The EU manager position (which opens DOC-E through the row policy), held by expired until
  // yesterday and by future from tomorrow; the rep position (under sales, with which DOC-C is
  // shared) delegated to them by its holder, over the same kinds of windows.
  await create('upEuExpired', 'admin', 'sys_user_position', { user_id: users.expired.id, position: ids.eu_manager, valid_from: iso(-30), valid_until: iso(-1) });
  await create('upEuFuture', 'admin', 'sys_user_position', { user_id: users.future.id, position: ids.eu_manager, valid_from: iso(1), valid_until: iso(30) });
  await create('delegExpired', 'unitMember', 'sys_user_position', { user_id: users.expired.id, position: ids.rep, valid_from: iso(-10), valid_until: iso(-1), reason: 'past cover' });
  await create('delegFuture', 'unitMember', 'sys_user_position', { user_id: users.future.id, position: ids.rep, valid_from: iso(1), valid_until: iso(10), reason: 'coming cover' });

  // An owner-based rule: docs owned by field reps are open to the reader. Other holds the
  // position now, expired held it until yesterday, future holds it from tomorrow.
  await create('field_rep', 'admin', 'sys_position', { name: 'field_rep' });
  await create('upFieldOther', 'admin', 'sys_user_position', { user_id: users.other.id, position: ids.field_rep });
  await create('upFieldExpired', 'admin', 'sys_user_position', { user_id: users.expired.id, position: ids.field_rep, valid_from: iso(-30), valid_until: iso(-1) });
  await create('upFieldFuture', 'admin', 'sys_user_position', { user_id: users.future.id, position: ids.field_rep, valid_from: iso(1), valid_until: iso(30) });
  await create('docX', 'expired', 'doc', { title: 'DOC-X', region: 'US' });
  await create('docF', 'future', 'doc', { title: 'DOC-F', region: 'US' });
  ids.ownerRule = String((await must('admin', 'POST', '/api/v1/sharing/rules', {
    name: 'field_rep_docs', object: 'doc', kind: 'owner', owner_position: ids.field_rep, recipient_type: 'user', recipient_id: users.reader.id, access: 'read',
  })).id);

  // A public_read record of other's.
  await create('notice', 'other', 'notice', { title: 'NOTICE-1' });

  // The banned member: a doc, a key never used before the ban, a key used (and cached) before it.
  await create('docBanned', 'banned', 'doc', { title: 'DOC-BANNED', region: 'US' });
  users.bannedKey = { id: users.banned.id, token: String((await must('banned', 'POST', '/api/v1/keys', { name: 'unused' })).key) };
  users.bannedCachedKey = { id: users.banned.id, token: String((await must('banned', 'POST', '/api/v1/keys', { name: 'used' })).key) };
  const before = await as('bannedCachedKey', 'GET', data('doc'));
  if (!JSON.stringify(before.body).includes('DOC-BANNED')) t.fail(`the key works before the ban: ${before.status} ${JSON.stringify(before.body)}`);
  await must('admin', 'POST', '/api/v1/auth/admin/ban-user', { userId: users.banned.id, banReason: 'test' }, 200);
  return { base, users, ids, as };
}
