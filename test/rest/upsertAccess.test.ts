/** Upsert by a member onto a record it may not see: answered as a PATCH of it would be, without its id, and left unchanged. */
import t from 'tap';
import { eachBackend, signIn } from '../auth/authHarness.ts';
import { addUser, sendAs } from '../access/accessWorld.ts';

const url = '/api/v1/data/badge/upsert?on=code';

await eachBackend(t, ['rest-upsert-access'], async (t, site) => {
  const rt = await site.boot({ config: { apps: ['test/rest/fixtures/upsert'] } });
  const admin = await signIn(rt);
  const owner = await addUser(rt, admin.token, 'owner');
  const member = await addUser(rt, admin.token, 'member');

  const mine = await sendAs(rt, owner.token, 'PUT', url, { code: 'B-1', holder: 'Owner' });
  t.equal(mine.status, 201, 'the owner creates B-1');
  const hiddenId = String(mine.body.id);
  t.equal((await sendAs(rt, member.token, 'GET', `/api/v1/data/badge/${hiddenId}`)).status, 404, 'the member cannot see it');

  await t.test("a member's upsert onto the hidden row: 404 as its PATCH, nothing revealed or changed", async (t) => {
    const res = await sendAs(rt, member.token, 'PUT', url, { code: 'B-1', holder: 'Member' });
    const patch = await sendAs(rt, member.token, 'PATCH', `/api/v1/data/badge/${hiddenId}`, { holder: 'Member' });
    t.same([res.status, res.body.error.code], [patch.status, patch.body.error.code], 'the same answer as the PATCH of it (404 NOT_FOUND)');
    t.equal(res.status, 404, '404');
    t.notOk(JSON.stringify(res.body).includes(hiddenId), 'the hidden record id is not in the answer');
    t.match(res.body.error.message, /with code 'B-1' was not found/, 'named by the key the caller sent');
    const stored = await sendAs(rt, owner.token, 'GET', `/api/v1/data/badge/${hiddenId}`);
    t.same([stored.body.holder, stored.body.version], ['Owner', 1], 'unchanged');
    const list = await sendAs(rt, admin.token, 'GET', '/api/v1/data/badge');
    t.equal(list.body.items.length, 1, 'no second record');
  });

  await t.test('the same through a batch and a bulk: nothing revealed, nothing written', async (t) => {
    const batch = await sendAs(rt, member.token, 'POST', '/api/v1/batch', {
      operations: [
        { id: 'mine', method: 'POST', object: 'badge', body: { code: 'M-1' } },
        { id: 'theirs', method: 'PATCH', object: 'badge', recordId: hiddenId, body: { holder: 'Member' } },
      ],
    });
    t.same([batch.status, batch.body.error.code, batch.body.error.details.operation], [404, 'NOT_FOUND', 'theirs'], '404 naming the operation');
    const bulk = await sendAs(rt, member.token, 'POST', '/api/v1/data/badge/bulk', { operations: [{ method: 'create', values: { code: 'M-3' } }, { method: 'update', id: hiddenId, values: { holder: 'Member' } }] });
    t.same([bulk.status, bulk.body.error.code, bulk.body.error.details.index], [404, 'NOT_FOUND', 1], 'bulk: 404 naming index 1');
    const del = await sendAs(rt, member.token, 'POST', '/api/v1/data/badge/bulk', { operations: [{ method: 'delete', id: hiddenId }] });
    const direct = await sendAs(rt, member.token, 'DELETE', `/api/v1/data/badge/${hiddenId}`);
    t.same([del.status, del.body.error.code, del.body.error.details.index], [direct.status, direct.body.error.code, 0], 'a bulk delete answers as the DELETE would (members may not delete here), naming index 0');
    const list = await sendAs(rt, admin.token, 'GET', '/api/v1/data/badge');
    t.same(list.body.items.map((r: { code: string; holder: string }) => [r.code, r.holder]), [['B-1', 'Owner']], 'only the owner record, unchanged; M-1 rolled back');
  });

  await t.test('a key field the caller may not write: 403 whether or not a record holds the value', async (t) => {
    const set = await sendAs(rt, admin.token, 'POST', '/api/v1/data/sys_permission_set', { name: 'serial_keeper', fields: { 'badge.serial': { edit: true } } });
    t.equal(set.status, 201, 'a set naming serial, not held by the member: serial is closed to it');
    t.equal((await sendAs(rt, admin.token, 'PUT', url, { code: 'A-1', serial: 'S-1' })).status, 201, 'the admin stores serial S-1');
    const taken = await sendAs(rt, member.token, 'PUT', '/api/v1/data/badge/upsert?on=serial', { code: 'M-9', serial: 'S-1' });
    const free = await sendAs(rt, member.token, 'PUT', '/api/v1/data/badge/upsert?on=serial', { code: 'M-9', serial: 'S-2' });
    t.same([taken.status, taken.body.error.code, taken.body.error.details.permission], [403, 'PERMISSION_DENIED', 'badge.serial:edit'], '403 naming badge.serial:edit');
    t.same(free.body, taken.body, 'the same answer for a taken and a free value');
    const list = await sendAs(rt, admin.token, 'GET', '/api/v1/data/badge?where=' + encodeURIComponent(JSON.stringify({ code: 'M-9' })));
    t.equal(list.body.items.length, 0, 'nothing written');
  });

  await t.test('the member upserts its own records as usual', async (t) => {
    const created = await sendAs(rt, member.token, 'PUT', url, { code: 'M-2', holder: 'Member' });
    const updated = await sendAs(rt, member.token, 'PUT', url, { code: 'M-2', holder: 'Member again' });
    t.same([created.status, updated.status, updated.body.id, updated.body.holder], [201, 200, created.body.id, 'Member again'], '201 then 200');
  });
});
