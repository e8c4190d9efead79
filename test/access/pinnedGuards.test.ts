/**
 * Five guards that a mutation audit (test/guards/guardList.ts) found unpinned, each pinned over HTTP
 * on both drivers. Each group goes red when the code it names is weakened:
 * - field security on import and createMany while the caller's access profile is not cached yet:
 *   plugins/data/engine/createRecords.ts, createBatch, `accessKnown(deps, ctx) !== null`;
 * - the version of a delete into the trash: plugins/data/engine/writeRecords.ts, deleteRecord,
 *   the `where({ id, version })` of the trash update;
 * - temporary bans: plugins/auth/userView.ts, isBanned, a ban whose expiry is still ahead;
 * - view all is not modify all: plugins/data/access/rowScope.ts, rowScope, `op === 'read' ? perms.viewAll : perms.modifyAll`;
 * - sharing rules are admins' even for a holder of sharing:manage: plugins/sharing/sharingContext.ts, adminOnly;
 * - restore respects row security: plugins/data/engine/trashRecords.ts, restoreRecord, its guardRow
 *   (a record outside the read scope is refused by the read-back of the restore as well; one
 *   outside the edit scope by guardRow alone, so that is the case pinned);
 * - restore needs the delete permission: plugins/data/engine/trashRecords.ts, restoreRecord, its
 *   requireAction(..., 'delete') (the member deleted its own memo, which it still edits).
 */
import t from 'tap';
import type { Principal } from '../../capabilities/authSession.ts';
import type { DataContext, DataEngine, DataRecord } from '../../capabilities/dataEngine.ts';
import { definePlugin } from '../../kernel/definePlugin.ts';
import { eachBackend } from '../auth/authHarness.ts';
import { addUser, buildWorld, sendAs, type Reply } from './accessWorld.ts';

/** The title of a memo whose deletion makes the hook write the same memo first. */
const RACE_TITLE = 'MEMO-RACE';
const HOOK_REGION = 'HOOK-WRITE';

interface DeleteEvent {
  previous: DataRecord;
  ctx: DataContext;
  engine: DataEngine;
}

/** Inside the delete's transaction, between its read and its write, the same memo is changed. */
const memoRace = definePlugin({
  name: 'memo-race',
  version: '1.0.0',
  kernel: '^16.0.0',
  register(ctx) {
    ctx.hook('data.beforeDelete', async (event: DeleteEvent) => {
      if (event.previous.title === RACE_TITLE) await event.engine.update('memo', String(event.previous.id), { region: HOOK_REGION }, {}, event.ctx);
    }, { object: 'memo' });
  },
});

type Extra = 'importer' | 'seer' | 'restorer' | 'demoted' | 'tempBanned';

t.test('pinned guards', async (t) => {
  await eachBackend(t, ['pinned'], async (t, site) => {
    const w = await buildWorld(t, site, { apps: ['test/access/fixtures/pinned-app'], plugins: [memoRace] });
    const users: Record<string, { id: string; token: string }> = { ...w.users };
    for (const key of ['importer', 'seer', 'restorer', 'demoted', 'tempBanned'] as const) users[key] = await addUser(w.rt, w.users.admin.token, key);
    const as = (user: Extra | 'admin' | 'other', method: string, url: string, payload?: unknown): Promise<Reply> => sendAs(w.rt, users[user]!.token, method, url, payload);
    const must = async (user: Extra | 'admin' | 'other', method: string, url: string, payload: unknown, status = 201) => {
      const res = await as(user, method, url, payload);
      t.equal(res.status, status, `setup: ${user} ${method} ${url} (${JSON.stringify(res.body).slice(0, 300)})`);
      return res.body as Record<string, unknown>;
    };
    const idOf = async (user: Extra | 'admin' | 'other', object: string, record: object) => String((await must(user, 'POST', `/api/v1/data/${object}`, record)).id);

    // View all without modify all, with delete: other's docs are readable, not editable nor deletable.
    const seerSet = await idOf('admin', 'sys_permission_set', { name: 'doc_seer', objects: { doc: { viewAll: true, delete: true } } });
    await idOf('admin', 'sys_user_permission_set', { user_id: users.seer!.id, permission_set: seerSet });

    // The restorer reads every memo and deletes memos; it edits EU memos while it holds eu_manager.
    const restorerSet = await idOf('admin', 'sys_permission_set', { name: 'memo_deleter', objects: { memo: { delete: true, viewAll: true } } });
    await idOf('admin', 'sys_user_permission_set', { user_id: users.restorer!.id, permission_set: restorerSet });
    const euSeat = await idOf('admin', 'sys_user_position', { user_id: users.restorer!.id, position: w.ids.eu_manager });
    const euMemo = await idOf('other', 'memo', { title: 'MEMO-EU', region: 'EU' });
    const raceMemo = await idOf('other', 'memo', { title: RACE_TITLE, region: 'US' });

    // A member with an API key, banned for an hour.
    const tempKey = String((await must('tempBanned', 'POST', '/api/v1/keys', { name: 'before the ban' })).key);
    const keyBefore = await sendAs(w.rt, tempKey, 'GET', '/api/v1/data/doc');
    t.equal(keyBefore.status, 200, 'the key works before the ban');

    await t.test('view all is not modify all', async (t) => {
      const seen = await as('seer', 'GET', `/api/v1/data/doc/${w.ids.docB}`);
      t.same([seen.status, seen.body?.title], [200, 'DOC-B'], 'view all reads the doc of another');
      const patched = await as('seer', 'PATCH', `/api/v1/data/doc/${w.ids.docB}`, { title: 'DOC-B-DEFACED' });
      t.same([patched.status, patched.body?.error?.code], [403, 'PERMISSION_DENIED'], `editing it is refused (${JSON.stringify(patched.body).slice(0, 200)})`);
      const deleted = await as('seer', 'DELETE', `/api/v1/data/doc/${w.ids.docB}`);
      t.same([deleted.status, deleted.body?.error?.code], [403, 'PERMISSION_DENIED'], `deleting it is refused (${JSON.stringify(deleted.body).slice(0, 200)})`);
      const after = await as('admin', 'GET', `/api/v1/data/doc/${w.ids.docB}`);
      t.same([after.status, after.body?.title, after.body?.version], [200, 'DOC-B', 2], 'the doc is unchanged');
    });

    await t.test('a stale delete into the trash is a conflict', async (t) => {
      const res = await as('admin', 'DELETE', `/api/v1/data/memo/${raceMemo}`);
      t.same([res.status, res.body?.error?.code], [409, 'CONCURRENT_UPDATE'], `the delete whose memo changed after it was read (${JSON.stringify(res.body).slice(0, 200)})`);
      t.same([res.body?.error?.details?.expectedVersion, res.body?.error?.details?.currentVersion], [1, 2], 'the versions named');
      const after = await as('other', 'GET', `/api/v1/data/memo/${raceMemo}`);
      t.same([after.status, after.body?.title, after.body?.region, after.body?.version], [200, RACE_TITLE, 'US', 1], 'the memo is still there, without the change of the hook');
      const trash = await as('admin', 'GET', '/api/v1/data/memo/trash');
      t.same(trash.body?.items?.map((m: { title: string }) => m.title), [], 'nothing went into the trash');
    });

    await t.test('restore respects row security', async (t) => {
      const deleted = await as('restorer', 'DELETE', `/api/v1/data/memo/${euMemo}`);
      t.equal(deleted.status, 204, 'the restorer trashes the EU memo while it may edit it');
      await must('admin', 'DELETE', `/api/v1/data/sys_user_position/${euSeat}`, undefined, 204);
      // Still readable (view all), no longer editable: a restore is refused as an update would be.
      const restored = await as('restorer', 'POST', `/api/v1/data/memo/${euMemo}/restore`, {});
      t.same([restored.status, restored.body?.error?.code, restored.body?.error?.details?.permission], [403, 'PERMISSION_DENIED', 'memo:edit'], `restoring it once the memo is out of its edit scope (${JSON.stringify(restored.body).slice(0, 200)})`);
      t.notOk(JSON.stringify(restored.body).includes('MEMO-EU'), 'the answer shows nothing of the memo');
      const trash = await as('admin', 'GET', '/api/v1/data/memo/trash');
      t.same(trash.body?.items?.map((m: { title: string }) => m.title), ['MEMO-EU'], 'the memo stays in the trash');
      const gone = await as('other', 'GET', `/api/v1/data/memo/${euMemo}`);
      t.equal(gone.status, 404, 'and out of the records');
      const listed = await as('restorer', 'GET', '/api/v1/data/memo?limit=100');
      t.same(listed.body?.items?.map((m: { title: string }) => m.title), [RACE_TITLE], 'the restorer reads every memo but the trashed one');
    });

    await t.test('restore needs the delete permission', async (t) => {
      // The demoted member deletes memos through a permission set, then loses it; it still owns
      // (and edits) its memo, and it is the one who deleted it.
      const deleterSet = await idOf('admin', 'sys_permission_set', { name: 'memo_delete_only', objects: { memo: { delete: true } } });
      const grant = await idOf('admin', 'sys_user_permission_set', { user_id: users.demoted!.id, permission_set: deleterSet });
      const memo = await idOf('demoted', 'memo', { title: 'MEMO-DEMOTED', region: 'US' });
      const deleted = await as('demoted', 'DELETE', `/api/v1/data/memo/${memo}`);
      t.equal(deleted.status, 204, 'the member trashes its memo while it holds delete');
      await must('admin', 'DELETE', `/api/v1/data/sys_user_permission_set/${grant}`, undefined, 204);
      const restored = await as('demoted', 'POST', `/api/v1/data/memo/${memo}/restore`, {});
      t.same([restored.status, restored.body?.error?.code, restored.body?.error?.details?.permission], [403, 'PERMISSION_DENIED', 'memo:delete'], `restoring it without delete (${JSON.stringify(restored.body).slice(0, 200)})`);
      t.notOk(JSON.stringify(restored.body).includes('MEMO-DEMOTED'), 'the answer shows nothing of the memo');
      const trash = await as('admin', 'GET', '/api/v1/data/memo/trash');
      t.ok(trash.body?.items?.some((m: { title: string }) => m.title === 'MEMO-DEMOTED'), 'the memo stays in the trash');
      const gone = await as('admin', 'GET', `/api/v1/data/memo/${memo}`);
      t.equal(gone.status, 404, 'and out of the records');
    });

    await t.test('a ban with an expiry ahead is a ban', async (t) => {
      await must('admin', 'POST', '/api/v1/auth/admin/ban-user', { userId: users.tempBanned!.id, banReason: 'cooling off', banExpiresIn: 3600 }, 200);
      const read = await sendAs(w.rt, tempKey, 'GET', '/api/v1/data/doc');
      t.same([read.status, read.body?.error?.code], [401, 'UNAUTHENTICATED'], 'its API key reads nothing');
      const write = await sendAs(w.rt, tempKey, 'POST', '/api/v1/data/doc', { title: 'DOC-BY-TEMP-BANNED' });
      t.same([write.status, write.body?.error?.code], [401, 'UNAUTHENTICATED'], 'and writes nothing');
      const list = await as('admin', 'GET', '/api/v1/data/doc?limit=100');
      t.notOk(JSON.stringify(list.body).includes('DOC-BY-TEMP-BANNED'), 'nothing was written');
    });

    await t.test('field security on import while the profile is not cached', async (t) => {
      // An access change drops every cached profile: the importer's first data request is the import.
      await idOf('admin', 'sys_user_permission_set', { user_id: users.other!.id, permission_set: seerSet });
      const json = await as('importer', 'POST', '/api/v1/data/doc/import', { format: 'json', rows: [{ title: 'DOC-IMPORTED', secret: 'IMPORTED-SECRET' }] });
      t.same([json.status, json.body?.error?.code, json.body?.error?.details?.created, json.body?.error?.details?.errors?.[0]?.code], [400, 'IMPORT_REJECTED', 0, 'PERMISSION_DENIED'], `a JSON import with the secret (${JSON.stringify(json.body).slice(0, 300)})`);
      await idOf('admin', 'sys_user_permission_set', { user_id: users.owner!.id, permission_set: seerSet });
      const csv = await as('importer', 'POST', '/api/v1/data/doc/import', { format: 'csv', csv: 'title,secret\nDOC-CSV,CSV-SECRET\n', atomic: false });
      t.same([csv.status, csv.body?.created, csv.body?.failed, csv.body?.errors?.[0]?.code], [200, 0, 1, 'PERMISSION_DENIED'], `a CSV import with the secret, not atomic (${JSON.stringify(csv.body).slice(0, 300)})`);
      // createMany for a caller whose profile nobody asked for yet (a plugin's or a flow's write).
      await idOf('admin', 'sys_user_permission_set', { user_id: users.other!.id, permission_set: restorerSet });
      const engine = w.rt.runtime.kernel.service<DataEngine>('data.engine')!;
      const env = site.ids[0]!;
      const importer: Principal = { kind: 'user', userId: users.importer!.id, environmentId: env, isAdmin: false, positions: [], permissionSets: [], permissions: [] };
      const outcomes = await engine.createMany('doc', [{ title: 'DOC-MANY', secret: 'MANY-SECRET' }], { environmentId: env, principal: importer });
      t.same(outcomes.map((o) => [o.record?.title, (o.error as { code?: string } | undefined)?.code]), [[undefined, 'PERMISSION_DENIED']], 'createMany with the secret is refused');
      const list = await as('admin', 'GET', '/api/v1/data/doc?limit=100');
      const text = JSON.stringify(list.body);
      t.same(['IMPORTED-SECRET', 'CSV-SECRET', 'MANY-SECRET', 'DOC-IMPORTED', 'DOC-CSV', 'DOC-MANY'].filter((s) => text.includes(s)), [], 'none of it was written');
    });

    await t.test('sharing rules are managed by admins, whatever a permission set grants', async (t) => {
      const keys = await idOf('admin', 'sys_permission_set', { name: 'rule_keys', permissions: ['sharing:manage'] });
      await idOf('admin', 'sys_user_permission_set', { user_id: users.seer!.id, permission_set: keys });
      const listed = await as('seer', 'GET', '/api/v1/sharing/rules');
      t.same([listed.status, listed.body?.error?.code], [403, 'PERMISSION_DENIED'], `listing them (${JSON.stringify(listed.body).slice(0, 200)})`);
      const made = await as('seer', 'POST', '/api/v1/sharing/rules', { name: 'seer_rule', object: 'doc', kind: 'criteria', criteria: { region: 'US' }, recipient_type: 'user', recipient_id: users.seer!.id, access: 'edit' });
      t.same([made.status, made.body?.error?.code], [403, 'PERMISSION_DENIED'], `making one (${JSON.stringify(made.body).slice(0, 200)})`);
      const rules = await as('admin', 'GET', '/api/v1/sharing/rules');
      t.same([rules.status, JSON.stringify(rules.body).includes('seer_rule')], [200, false], 'none was made');
    });
  });
});
