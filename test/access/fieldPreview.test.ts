/**
 * The dry run of a permission set's field permissions (`POST /access/field-preview`): the pure core
 * on a model in memory, then the route on SQLite and PostgreSQL, whose answer is compared with what
 * each user reads once the change is saved. Admin-only: a member is refused, even one holding the
 * route's permission key.
 */
import t from 'tap';
import { effectiveGrants, type AccessModel } from '../../plugins/data/access/effectiveGrants.ts';
import { fieldPreview, objectsTouched, type PreviewUser } from '../../plugins/data/access/fieldPreview.ts';
import { eachBackend } from '../auth/authHarness.ts';
import { buildWorld, iso, type UserKey } from './accessWorld.ts';

const now = new Date('2026-06-15T12:00:00Z');

t.test('the pure core: who gains and who loses, field by field', async (t) => {
  const model: AccessModel = {
    positions: [{ id: 'p-ops', name: 'ops', parent: null, delegatable: false, admin_scope: false }],
    permissionSets: [
      { id: 's-pay', name: 'payroll', objects: null, fields: { 'emp.salary': { read: true } }, permissions: null },
      { id: 's-ops', name: 'ops', objects: null, fields: JSON.stringify({ 'emp.phone': { edit: true } }), permissions: null },
    ],
    positionSets: [{ position: 'p-ops', permission_set: 's-ops' }],
    userPositions: [{ id: 'up1', user_id: 'carol', position: 'p-ops' }],
    userSets: [
      { id: 'us1', user_id: 'bob', permission_set: 's-pay' },
      { id: 'us2', user_id: 'dan', permission_set: 's-pay', valid_until: '2026-01-01T00:00:00Z' },
    ],
  };
  const users: PreviewUser[] = ['ann', 'bob', 'carol', 'dan'].map((id) => ({ id, email: `${id}@x.test`, name: id, isAdmin: false }));
  users.push({ id: 'root', email: 'root@x.test', name: 'root', isAdmin: true });
  const fields = () => ['name', 'salary', 'phone', 'yearly'];
  const reads = (_object: string, field: string) => (field === 'yearly' ? ['salary'] : undefined);
  const names = (list: PreviewUser[]) => list.map((u) => u.id);
  const run = (setId: string | null, change: Record<string, unknown>) => fieldPreview(model, users, { setId, fields: change }, fields, reads, now);

  const named = run('s-ops', { 'emp.phone': { edit: true }, 'emp.name': { read: true } });
  t.equal(named.users, 4, 'every user but the admin is compared');
  t.equal(named.admins, 1);
  t.same(named.changes.map((c) => c.field), ['emp.name'], 'only the newly named field moves');
  t.same(names(named.changes[0]!.read.lost), ['ann', 'bob', 'dan'], 'naming a field takes it from everyone who holds no set granting it (an expired assignment holds nothing)');
  t.same(names(named.changes[0]!.read.gained), [], 'nobody gains it');
  t.same(names(named.changes[0]!.edit.lost), ['ann', 'bob', 'carol', 'dan'], 'a read grant gives no edit: even the holder loses edit');

  const dropped = run('s-pay', {});
  t.same(dropped.changes.map((c) => c.field), ['emp.salary', 'emp.yearly'], 'removing the last mention opens the field, and the formula that reads it');
  t.same(names(dropped.changes[0]!.read.gained), ['ann', 'carol', 'dan'], 'to everyone who could not read it');
  t.same(names(dropped.changes[0]!.edit.gained), ['ann', 'bob', 'carol', 'dan'], 'read and edit alike');
  t.same(names(dropped.changes[1]!.read.gained), ['ann', 'carol', 'dan'], 'a formula follows the fields it reads');

  const fresh = run(null, { 'emp.salary': { read: true } });
  t.same(fresh.changes, [], 'a new set naming a field already named changes nobody (it is held by nobody yet)');
  const freshNamed = run(null, { 'emp.phone': { read: true }, 'emp.name': { read: true } });
  t.same(freshNamed.changes.map((c) => [c.field, names(c.read.lost)]), [['emp.name', ['ann', 'bob', 'carol', 'dan']]], 'a new set naming a new field hides it from every user');
  t.same(objectsTouched(model, { setId: 's-pay', fields: { 'task.x': { read: true } } }).sort(), ['emp', 'task'], 'the old keys and the new ones decide the objects compared');
  t.same(effectiveGrants('bob', false, model, now).permissionSets, ['payroll'], 'the model itself is left as it was');
});

t.test('POST /access/field-preview', async (t) => {
  await eachBackend(t, ['access-preview'], async (t, site) => {
    const w = await buildWorld(t, site);
    const preview = (user: UserKey, body: unknown) => w.as(user, 'POST', '/api/v1/access/field-preview', body);
    const emails = (list: Array<{ email: string }>) => list.map((u) => u.email).sort();
    const members: UserKey[] = ['owner', 'other', 'sharee', 'unitMember', 'viewAll', 'expired', 'future', 'euManager'];

    await t.test('names who would lose a field, and the saved change does exactly that', async (t) => {
      const change = { 'doc.secret': { read: true }, 'doc.region': { read: true } };
      const res = await preview('admin', { permissionSet: w.ids.auditor, fields: change });
      t.equal(res.status, 200, res.status === 200 ? 'an admin previews' : JSON.stringify(res.body));
      t.same(res.body.permissionSet, { id: w.ids.auditor, name: 'auditor' }, 'the set is named');
      t.equal(res.body.users, members.length, 'every member is compared');
      t.equal(res.body.admins, 1, 'the admin is not');
      t.same(res.body.changes.map((c: { field: string }) => c.field), ['doc.region'], 'only the newly named field moves');
      const region = res.body.changes[0];
      const losers = members.filter((m) => m !== 'viewAll').map((m) => `${m.toLowerCase()}@example.com`).sort();
      t.same(emails(region.read.lost), losers, 'everyone without the set loses read (the expired and the future assignment hold nothing now)');
      t.equal(region.read.lostCount, losers.length);
      t.same(region.read.gained, [], 'nobody gains it');
      t.same(emails(region.edit.lost), [...losers, 'viewall@example.com'].sort(), 'the holder keeps read but loses edit: the set grants read only');

      const before = await w.as('owner', 'GET', `/api/v1/data/doc/${w.ids.docA}`);
      t.equal(before.body.region, 'US', 'a preview writes nothing: the owner still reads region');
      // Each member writes a document of its own while region is open, to read it back after the change.
      const own: Partial<Record<UserKey, string>> = {};
      for (const m of members) {
        const made = await w.as(m, 'POST', '/api/v1/data/doc', { title: `own ${m}`, region: 'APAC' });
        t.equal(made.status, 201, `${m} writes region while it is open`);
        own[m] = made.body.id;
      }

      const saved = await w.as('admin', 'PATCH', `/api/v1/data/sys_permission_set/${w.ids.auditor}`, { fields: change });
      t.equal(saved.status, 200, 'the change is saved');
      const admin = await w.as('admin', 'GET', `/api/v1/data/doc/${w.ids.docA}`);
      t.equal(admin.body.region, 'US', 'the admin still reads it');
      for (const m of members) {
        const read = await w.as(m, 'GET', `/api/v1/data/doc/${own[m]}`);
        t.equal(read.status, 200, `${m} reads its document`);
        const said = losers.includes(`${m.toLowerCase()}@example.com`);
        t.equal(read.body.region, said ? undefined : 'APAC', `${m}: ${said ? 'lost' : 'kept'} region, as the preview said`);
      }
      const viewAll = await w.as('viewAll', 'GET', `/api/v1/data/doc/${w.ids.docE}`);
      t.equal(viewAll.body.region, 'EU', 'the holder reads it');
      const write = await w.as('viewAll', 'PATCH', `/api/v1/data/doc/${w.ids.docE}`, { region: 'US' });
      t.equal(write.status, 403, 'and no longer writes it, as the preview said');
    });

    await t.test('removing the last mention opens the field and its formula to everyone', async (t) => {
      const res = await preview('admin', { permissionSet: w.ids.auditor, fields: {} });
      t.equal(res.status, 200);
      t.same(res.body.changes.map((c: { field: string }) => c.field), ['doc.region', 'doc.secret', 'doc.secret_shout'], 'the object\'s field order');
      const secret = res.body.changes[1];
      t.same(emails(secret.read.gained), members.filter((m) => m !== 'viewAll').map((m) => `${m.toLowerCase()}@example.com`).sort());
      t.same(secret.read.lost, []);
      t.same(emails(res.body.changes[2].read.gained), emails(secret.read.gained), 'the formula over secret opens with it');
    });

    await t.test('a set not yet saved: held by nobody, so a field it names is taken from every member', async (t) => {
      const res = await preview('admin', { fields: { 'folder.name': { read: true, edit: true } } });
      t.equal(res.status, 200);
      t.equal(res.body.permissionSet, null);
      t.same(res.body.changes.map((c: { field: string; read: { lostCount: number } }) => [c.field, c.read.lostCount]), [['folder.name', members.length]]);
    });

    await t.test('refusals', async (t) => {
      const unknown = await preview('admin', { fields: { 'nothing.here': { read: true }, 'doc.nope': { read: true }, 'doc.title': { read: 'yes' } } });
      t.equal(unknown.status, 400);
      t.equal(unknown.body.error.code, 'VALIDATION_ERROR');
      t.same(unknown.body.error.details.errors.map((e: { path: string }) => e.path), ['fields/nothing.here', 'fields/doc.nope', 'fields/doc.title'], 'each bad key is named');
      const missing = await preview('admin', { permissionSet: 'no-such-set', fields: {} });
      t.equal(missing.status, 404, 'an unknown set is not found');
      const member = await preview('owner', { fields: {} });
      t.equal(member.status, 403, 'a member is refused');
      t.equal(member.body.error.details.permission, 'access:preview');
      const key = await w.as('admin', 'POST', '/api/v1/data/sys_permission_set', { name: 'previewers', permissions: ['access:preview'] });
      t.equal(key.status, 201);
      const held = await w.as('admin', 'POST', '/api/v1/data/sys_user_permission_set', { user_id: w.users.other.id, permission_set: key.body.id, valid_from: iso(-1) });
      t.equal(held.status, 201);
      const holder = await preview('other', { fields: {} });
      t.equal(holder.status, 403, 'holding the permission key is not enough: the preview tells who reads which field, admins only');
      t.equal(holder.body.error.code, 'PERMISSION_DENIED');
    });
  });
});
