import t from 'tap';
import type { Test } from 'tap';
import { definePlugin } from '../../kernel/definePlugin.ts';
import { eachBackend, signIn } from '../auth/authHarness.ts';
import { addUser, sendAs, type Reply } from '../access/accessWorld.ts';
import type { TestRuntime } from '../harness/startTestRuntime.ts';

/**
 * History, trash, restore and purge through the REST API, on both drivers: history entries are
 * written in the write's transaction and stripped of hidden fields, a trashed record is out of
 * every read path until restored, and restore and purge answer only to those who may.
 */

/** A title of FAIL makes the after-hooks throw: the write and everything it wrote roll back. */
const failing = definePlugin({
  name: 'failing-hook',
  version: '1.0.0',
  kernel: '^16.0.0',
  register(ctx) {
    const fail = (event: { record?: Record<string, unknown> }) => {
      if (event.record?.title === 'FAIL') throw new Error('the after-hook refuses FAIL');
    };
    ctx.hook('data.afterInsert', fail, { object: 'memo' });
    ctx.hook('data.afterUpdate', fail, { object: 'memo' });
  },
});

interface World {
  rt: TestRuntime;
  admin: { id: string; token: string };
  m1: { id: string; token: string };
  m2: { id: string; token: string };
  as(user: 'admin' | 'm1' | 'm2', method: string, url: string, payload?: unknown): Promise<Reply>;
}

async function world(t: Test, boot: (options: object) => Promise<TestRuntime>): Promise<World> {
  const rt = await boot({ config: { apps: ['test/rest/fixtures/records'] }, plugins: [failing] });
  const session = await signIn(rt);
  const admin = { id: String(session.user.id), token: session.token };
  const m1 = await addUser(rt, admin.token, 'memberOne');
  const m2 = await addUser(rt, admin.token, 'memberTwo');
  const users = { admin, m1, m2 };
  const as: World['as'] = (user, method, url, payload) => sendAs(rt, users[user].token, method, url, payload);
  const must = async (res: Promise<Reply>, status = 201) => {
    const reply = await res;
    if (reply.status !== status) t.fail(`answered ${reply.status}: ${JSON.stringify(reply.body)}`);
    return reply.body as Record<string, unknown>;
  };
  // Members may delete memos; the secret field is named by a set no member holds: hidden from them.
  const deleter = await must(as('admin', 'POST', '/api/v1/data/sys_permission_set', { name: 'memo_deleter', objects: { memo: { delete: true }, note: { delete: true } } }));
  await must(as('admin', 'POST', '/api/v1/data/sys_permission_set', { name: 'memo_secrets', fields: { 'memo.secret': { read: true, edit: true } } }));
  for (const m of [m1, m2]) await must(as('admin', 'POST', '/api/v1/data/sys_user_permission_set', { user_id: m.id, permission_set: deleter.id }));
  return { rt, admin, m1, m2, as };
}

const versions = (reply: Reply) => (reply.body.items as Array<{ version: number }>).map((i) => i.version);
const operations = (reply: Reply) => (reply.body.items as Array<{ operation: string }>).map((i) => i.operation);
const titles = (reply: Reply) => (reply.body.items as Array<{ title: string }>).map((i) => i.title).sort();

t.test('history: one entry per write, newest first, paged, hidden fields left out, nothing from a rolled-back write', async (t) => {
  await eachBackend(t, ['history'], async (t, site) => {
    const w = await world(t, (o) => site.boot(o));
    const memo = (await w.as('m1', 'POST', '/api/v1/data/memo', { title: 'MEMO-ONE' })).body;
    t.equal((await w.as('admin', 'PATCH', `/api/v1/data/memo/${memo.id}`, { secret: 'SECRET-VALUE-1' })).status, 200, 'the admin sets the secret');
    t.equal((await w.as('m1', 'PATCH', `/api/v1/data/memo/${memo.id}`, { title: 'MEMO-ONE-B' })).status, 200, 'the member renames it');

    const mine = await w.as('m1', 'GET', `/api/v1/data/memo/${memo.id}/history`);
    t.equal(mine.status, 200, 'the member reads the history of its memo');
    t.same(versions(mine), [3, 2, 1], 'newest first, one entry per write');
    t.same(operations(mine), ['update', 'update', 'create'], 'the operations');
    t.same(mine.body.items[0].changes, { title: { old: 'MEMO-ONE', new: 'MEMO-ONE-B' } }, 'the changed field, old and new value');
    t.equal(mine.body.items[0].changedBy, w.m1.id, 'who changed it');
    t.equal(mine.body.items[1].changedBy, w.admin.id, 'the admin made the second change');
    t.same(mine.body.items[1].changes, {}, 'the hidden field is left out of the member\'s view');
    t.notOk(JSON.stringify(mine.body).includes('SECRET-VALUE-1'), 'the hidden value appears nowhere');
    t.notOk(JSON.stringify(mine.body).includes('"secret"'), 'the hidden field is not even named');
    t.same(mine.body.items[2].changes, { title: { old: null, new: 'MEMO-ONE' } }, 'the create: the values it set');

    const admins = await w.as('admin', 'GET', `/api/v1/data/memo/${memo.id}/history`);
    t.same(admins.body.items[1].changes, { secret: { old: null, new: 'SECRET-VALUE-1' } }, 'the admin sees the secret change');

    const first = await w.as('m1', 'GET', `/api/v1/data/memo/${memo.id}/history?limit=2`);
    t.same(versions(first), [3, 2], 'a page of two');
    t.type(first.body.nextCursor, 'string', 'a cursor to the next page');
    const next = await w.as('m1', 'GET', `/api/v1/data/memo/${memo.id}/history?limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`);
    t.same(versions(next), [1], 'the last page');
    t.same(versions(await w.as('m1', 'GET', `/api/v1/data/memo/${memo.id}/history?limit=1&offset=1`)), [2], 'offset paging');

    const other = await w.as('m2', 'GET', `/api/v1/data/memo/${memo.id}/history`);
    t.equal(other.status, 404, 'a member that cannot read the record gets 404');
    t.equal(other.body.error.code, 'NOT_FOUND', 'NOT_FOUND');

    const failed = await w.as('m1', 'PATCH', `/api/v1/data/memo/${memo.id}`, { title: 'FAIL' });
    t.equal(failed.status, 500, 'the failing after-hook fails the update');
    const failedCreate = await w.as('m1', 'POST', '/api/v1/data/memo', { title: 'FAIL' });
    t.equal(failedCreate.status, 500, 'and the create');
    t.same(versions(await w.as('m1', 'GET', `/api/v1/data/memo/${memo.id}/history`)), [3, 2, 1], 'no entry from the rolled-back update');
    const stored = await w.as('admin', 'GET', '/api/v1/data/sys_record_history?limit=100');
    t.equal(stored.status, 200, 'admins read the entries through /data');
    t.equal(stored.body.total, 3, 'three entries stored: nothing from the rolled-back create or update');

    t.equal((await w.as('m1', 'GET', '/api/v1/data/sys_record_history')).status, 403, 'members do not read the entries through /data');
    const write = await w.as('admin', 'POST', '/api/v1/data/sys_record_history', { object: 'memo', record_id: 'x', operation: 'create', record_version: 1 });
    t.equal(write.body?.error?.code, 'SYSTEM_OBJECT_READ_ONLY', 'nobody writes them through /data');
  });
});

t.test('trash: a deleted record leaves every read path and comes back on restore; purge removes it for good', async (t) => {
  await eachBackend(t, ['trash'], async (t, site) => {
    const w = await world(t, (o) => site.boot(o));
    const keep = (await w.as('m1', 'POST', '/api/v1/data/memo', { title: 'MEMO-KEEP' })).body;
    const gone = (await w.as('m1', 'POST', '/api/v1/data/memo', { title: 'MEMO-GONE' })).body;
    const count = { aggregations: [{ function: 'count', alias: 'n' }] };
    const reads = async (user: 'admin' | 'm1') => {
      const list = await w.as(user, 'GET', '/api/v1/data/memo');
      const aggregate = await w.as(user, 'POST', '/api/v1/data/memo/query', count);
      const search = await w.as(user, 'GET', '/api/v1/search?q=memo&object=memo');
      const exported = await w.rt.inject({ method: 'POST', url: '/api/v1/data/memo/export', headers: { authorization: `Bearer ${w[user].token}` }, payload: { format: 'json' } });
      return {
        list: titles(list), total: list.body.total as number, count: Number(aggregate.body.items[0].n),
        search: (search.body.items as Array<{ record: { title: string } }>).map((i) => i.record.title).sort(),
        exported: exported.body.includes('MEMO-GONE'),
      };
    };
    // Warm every cached path (planned reads, list plans, count cache) before the delete.
    t.same(await reads('m1'), { list: ['MEMO-GONE', 'MEMO-KEEP'], total: 2, count: 2, search: ['MEMO-GONE', 'MEMO-KEEP'], exported: true }, 'both memos everywhere');
    t.equal((await w.as('m1', 'GET', `/api/v1/data/memo/${gone.id}`)).status, 200, 'read by id');
    t.equal((await w.as('m1', 'GET', `/api/v1/data/memo/${gone.id}`)).status, 200, 'read by id again (planned)');

    t.equal((await w.as('m1', 'DELETE', `/api/v1/data/memo/${gone.id}`)).status, 204, 'the member deletes it');
    for (const user of ['m1', 'admin'] as const) {
      t.same(await reads(user), { list: ['MEMO-KEEP'], total: 1, count: 1, search: ['MEMO-KEEP'], exported: false }, `${user}: the trashed memo is out of list, totals, aggregations, search and export`);
      t.equal((await w.as(user, 'GET', `/api/v1/data/memo/${gone.id}`)).status, 404, `${user}: get is 404`);
      t.equal((await w.as(user, 'GET', `/api/v1/data/memo/${gone.id}/history`)).status, 404, `${user}: its history is 404 while in the trash`);
    }
    const where = encodeURIComponent(JSON.stringify({ id: { $eq: gone.id } }));
    t.same(titles(await w.as('m1', 'GET', `/api/v1/data/memo?where=${where}`)), [], 'a query naming its id finds nothing');
    t.equal((await w.as('m1', 'PATCH', `/api/v1/data/memo/${gone.id}`, { title: 'X' })).status, 404, 'an update of a trashed record is 404');
    t.equal((await w.as('m1', 'DELETE', `/api/v1/data/memo/${gone.id}`)).status, 404, 'a second delete is 404');
    const pointing = await w.as('m1', 'POST', '/api/v1/data/memo', { title: 'POINTER', related: gone.id });
    t.equal(pointing.status, 400, 'a lookup to a trashed record is refused');
    t.equal(pointing.body.error.details.errors[0].path, 'related', 'on the lookup');

    const trash = await w.as('m1', 'GET', '/api/v1/data/memo/trash');
    t.equal(trash.status, 200, 'the trash listing');
    t.same(trash.body.items.map((r: { id: string }) => r.id), [gone.id], 'the member sees what it deleted');
    t.equal(trash.body.items[0].deleted_by, w.m1.id, 'who deleted it');
    t.type(trash.body.items[0].deleted_at, 'string', 'when');
    t.same((await w.as('m2', 'GET', '/api/v1/data/memo/trash')).body.items, [], 'another member sees nothing of it');
    t.same((await w.as('admin', 'GET', '/api/v1/data/memo/trash')).body.items.map((r: { id: string }) => r.id), [gone.id], 'admins see every trashed record');

    const stranger = await w.as('m2', 'POST', `/api/v1/data/memo/${gone.id}/restore`);
    t.equal(stranger.status, 404, 'another member cannot restore it: 404');
    t.equal(stranger.body.error.code, 'NOT_FOUND', 'NOT_FOUND');
    const strangerPurge = await w.as('m2', 'DELETE', `/api/v1/data/memo/${gone.id}/purge`);
    t.equal(strangerPurge.status, 403, 'a member cannot purge: 403');
    t.equal(strangerPurge.body.error.code, 'PERMISSION_DENIED', 'PERMISSION_DENIED');
    t.equal((await w.as('m1', 'DELETE', `/api/v1/data/memo/${gone.id}/purge`)).status, 403, 'not even the one who deleted it');

    const restored = await w.as('m1', 'POST', `/api/v1/data/memo/${gone.id}/restore`);
    t.equal(restored.status, 200, 'the one who deleted it restores it');
    t.equal(restored.body.version, 3, 'its version bumped (1 created, 2 trashed, 3 restored)');
    t.same(await reads('m1'), { list: ['MEMO-GONE', 'MEMO-KEEP'], total: 2, count: 2, search: ['MEMO-GONE', 'MEMO-KEEP'], exported: true }, 'back everywhere');
    t.equal((await w.as('m1', 'GET', `/api/v1/data/memo/${gone.id}`)).body.version, 3, 'get answers the bumped version');
    t.same(operations(await w.as('m1', 'GET', `/api/v1/data/memo/${gone.id}/history`)), ['restore', 'delete', 'create'], 'the history tells it');
    t.equal((await w.as('m1', 'POST', `/api/v1/data/memo/${gone.id}/restore`)).status, 404, 'a live record is not in the trash: 404');

    t.equal((await w.as('m1', 'DELETE', `/api/v1/data/memo/${gone.id}`)).status, 204, 'trashed again');
    t.equal((await w.as('admin', 'DELETE', `/api/v1/data/memo/${gone.id}/purge`)).status, 204, 'the admin purges it');
    t.same((await w.as('admin', 'GET', '/api/v1/data/memo/trash')).body.items, [], 'the trash is empty');
    t.equal((await w.as('admin', 'POST', `/api/v1/data/memo/${gone.id}/restore`)).status, 404, 'nothing to restore');
    const history = await w.as('admin', 'GET', `/api/v1/data/sys_record_history?where=${encodeURIComponent(JSON.stringify({ record_id: gone.id }))}`);
    t.equal(history.body.total, 0, 'its history went with it');
    t.equal((await w.as('admin', 'GET', `/api/v1/data/memo/${keep.id}/history`)).body.items.length, 1, 'other records keep theirs');

    // enable.trash without apiMethods: a note every member reads and edits.
    const note = (await w.as('m1', 'POST', '/api/v1/data/note', { title: 'NOTE' })).body;
    t.equal((await w.as('m2', 'GET', `/api/v1/data/note/${note.id}`)).status, 200, 'the other member reads the note');
    t.equal((await w.as('m1', 'DELETE', `/api/v1/data/note/${note.id}`)).status, 204, 'the first member trashes it');
    t.equal((await w.as('m2', 'GET', `/api/v1/data/note/${note.id}`)).status, 404, 'gone for the other member');
    const notMine = await w.as('m2', 'POST', `/api/v1/data/note/${note.id}/restore`);
    t.equal(notMine.status, 404, 'a member restores only what it deleted: 404 for a record it could read');
    t.same((await w.as('m2', 'GET', '/api/v1/data/note/trash')).body.items, [], 'nor does it list it');
    t.equal((await w.as('admin', 'POST', `/api/v1/data/note/${note.id}/restore`)).body.version, 3, 'an admin restores anyone\'s');
    // A credential that writes but does not read (data:write alone) restores, answered the id and version only.
    const writer = String((await w.as('admin', 'POST', '/api/v1/keys', { name: 'write-only', scopes: ['data:write'] })).body.key);
    t.equal((await w.as('admin', 'DELETE', `/api/v1/data/note/${note.id}`)).status, 204, 'trashed again');
    const blind = await sendAs(w.rt, writer, 'POST', `/api/v1/data/note/${note.id}/restore`);
    t.equal(blind.status, 200, 'a data:write key restores it');
    t.same(blind.body, { id: note.id, version: 5 }, 'answered the id and version, not the record');
    const untracked = await w.as('admin', 'GET', `/api/v1/data/note/${note.id}/history`);
    t.equal(untracked.status, 405, 'no history on an object that does not track it');
    t.equal(untracked.body.error.code, 'METHOD_NOT_ALLOWED', 'METHOD_NOT_ALLOWED');
  });
});
