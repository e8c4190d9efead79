import t from 'tap';
import { eachBackend } from '../auth/authHarness.ts';
import { buildWorld, iso } from './accessWorld.ts';

t.test('delegation, sharing routes, sharing rules and explain', async (t) => {
  await eachBackend(t, ['access-deleg'], async (t, site) => {
    const w = await buildWorld(t, site);
    const delegate = (body: object) => w.as('unitMember', 'POST', '/api/v1/data/sys_user_position', { user_id: w.users.sharee.id, position: w.ids.rep, ...body });

    await t.test('delegation is bounded, explained and never of an admin scope', async (t) => {
      const long = await delegate({ valid_from: iso(0), valid_until: iso(31), reason: 'holiday cover' });
      t.equal(long.status, 400);
      t.equal(long.body.error.code, 'DELEGATION_INVALID');
      t.match(long.body.error.message, /at most 30 days/);
      const noReason = await delegate({ valid_from: iso(0), valid_until: iso(7) });
      t.equal(noReason.status, 400);
      t.equal(noReason.body.error.details.errors[0].path, 'reason');
      const open = await delegate({ valid_from: iso(0), reason: 'cover' });
      t.equal(open.status, 400, 'a delegation without an end is refused');
      const admin = await w.as('euManager', 'POST', '/api/v1/data/sys_user_position', { user_id: w.users.sharee.id, position: w.ids.tenant_admin, valid_from: iso(0), valid_until: iso(3), reason: 'cover' });
      t.equal(admin.status, 403);
      t.equal(admin.body.error.code, 'DELEGATION_NOT_ALLOWED');
      t.match(admin.body.error.message, /admin scope/);
      const notHeld = await w.as('sharee', 'POST', '/api/v1/data/sys_user_position', { user_id: w.users.sharee.id, position: w.ids.rep, valid_from: iso(0), valid_until: iso(3), reason: 'self' });
      t.equal(notHeld.status, 403, 'only a holder may delegate');
      t.equal(notHeld.body.error.code, 'DELEGATION_NOT_ALLOWED');

      const before = await w.as('sharee', 'GET', '/api/v1/data/doc');
      t.notOk(JSON.stringify(before.body).includes('DOC-C'), 'before the delegation the sharee does not see the unit doc');
      const ok = await delegate({ valid_from: iso(0), valid_until: iso(7), reason: 'holiday cover' });
      t.equal(ok.status, 201, JSON.stringify(ok.body));
      t.equal(ok.body.delegated_by, w.users.unitMember.id, 'delegated_by is the delegator');
      const after = await w.as('sharee', 'GET', '/api/v1/data/doc');
      t.ok(JSON.stringify(after.body).includes('DOC-C'), 'the delegated position opens the unit doc at once');
      const self = await w.as('unitMember', 'POST', '/api/v1/data/sys_user_position', { user_id: w.users.unitMember.id, position: w.ids.rep, valid_from: iso(1), valid_until: iso(20), reason: 'extension' });
      t.equal(self.status, 201, 'self-delegation within 30 days is accepted');
    });

    await t.test('record shares: only the owner, modify all or an admin shares', async (t) => {
      const stranger = await w.as('sharee', 'POST', `/api/v1/data/doc/${w.ids.docB}/shares`, { recipient_type: 'user', recipient_id: w.users.owner.id });
      t.equal(stranger.status, 403, 'a read share does not allow resharing');
      t.equal(stranger.body.error.details.permission, 'doc:share');
      const hidden = await w.as('owner', 'GET', `/api/v1/data/doc/${w.ids.docB}/shares`);
      t.equal(hidden.status, 404, 'shares of a hidden record are hidden too');
      const listed = await w.as('other', 'GET', `/api/v1/data/doc/${w.ids.docB}/shares`);
      t.equal(listed.status, 200);
      t.same(listed.body.items.map((s: { recipient_id: string }) => s.recipient_id), [w.users.sharee.id]);
      const removed = await w.as('other', 'DELETE', `/api/v1/data/doc/${w.ids.docB}/shares/${w.ids.shareB}`);
      t.equal(removed.status, 204);
      const gone = await w.as('sharee', 'GET', `/api/v1/data/doc/${w.ids.docB}`);
      t.equal(gone.status, 404, 'removing the share hides the record at once');
      const bad = await w.as('other', 'POST', `/api/v1/data/doc/${w.ids.docB}/shares`, { recipient_type: 'role', recipient_id: 'x' });
      t.equal(bad.status, 400, 'recipient_type role is gone (now position)');
    });

    await t.test('sharing rules: admin only, dry run, then applied on reads', async (t) => {
      const rule = { name: 'eu_to_sales', object: 'doc', kind: 'criteria', criteria: { region: 'EU' }, recipient_type: 'unit_and_subordinates', recipient_id: w.ids.sales, access: 'read' };
      const member = await w.as('owner', 'POST', '/api/v1/sharing/rules', rule);
      t.equal(member.status, 403);
      t.equal(member.body.error.details.permission, 'sharing:manage');
      const badCriteria = await w.as('admin', 'POST', '/api/v1/sharing/rules', { ...rule, criteria: { nope: 1 } });
      t.equal(badCriteria.status, 400, 'a criteria naming an unknown field is refused');
      const created = await w.as('admin', 'POST', '/api/v1/sharing/rules', rule);
      t.equal(created.status, 201, JSON.stringify(created.body));
      const dry = await w.as('admin', 'POST', '/api/v1/sharing/rules/eu_to_sales/evaluate', { userId: w.users.owner.id });
      t.same({ recipient: dry.body.recipient }, { recipient: false });
      const list = await w.as('unitMember', 'GET', '/api/v1/data/doc?orderBy=title');
      t.same(list.body.items.map((d: { title: string }) => d.title), ['DOC-C', 'DOC-E'], 'the rule opens the EU doc to the sales unit');
      t.notOk(JSON.stringify(list.body).includes('SECRET-E'), 'a rule opens rows, not hidden fields');
      const deleted = await w.as('admin', 'DELETE', '/api/v1/sharing/rules/eu_to_sales');
      t.equal(deleted.status, 204);
      const dryAfter = await w.as('admin', 'POST', `/api/v1/sharing/rules`, { ...rule, name: 'again' });
      t.equal(dryAfter.status, 201);
      const evaluation = await w.as('admin', 'POST', '/api/v1/sharing/rules/again/evaluate', { userId: w.users.euManager.id });
      t.same({ recipient: evaluation.body.recipient, gained: evaluation.body.gained }, { recipient: false, gained: [] }, 'the EU manager already sees the EU doc through its policy');
      const gain = await w.as('admin', 'POST', '/api/v1/sharing/rules/again/evaluate', { userId: w.users.owner.id });
      t.same({ gained: gain.body.gained, count: gain.body.gainedCount }, { gained: [w.ids.docE], count: 1 }, 'the dry run lists the records a user would gain');
    });

    await t.test('a share or rule to a position that does not exist is 400 naming recipient_id, and nothing is stored', async (t) => {
      const before = (await w.as('admin', 'GET', '/api/v1/data/sys_record_share')).body.total as number;
      for (const recipient_type of ['position', 'unit_and_subordinates']) {
        const res = await w.as('other', 'POST', `/api/v1/data/doc/${w.ids.docB}/shares`, { recipient_type, recipient_id: 'no-such-position' });
        t.equal(res.status, 400, recipient_type);
        t.match(res.body, { error: { code: 'VALIDATION_ERROR', details: { errors: [{ path: 'recipient_id', message: "no position has id 'no-such-position' (recipient_id of a " + recipient_type + ' recipient is the id of a sys_position record)' }] } } });
      }
      const byName = await w.as('other', 'POST', `/api/v1/data/doc/${w.ids.docB}/shares`, { recipient_type: 'position', recipient_id: 'sales' });
      t.equal(byName.status, 400, 'a position name is not its id');
      t.equal((await w.as('admin', 'GET', '/api/v1/data/sys_record_share')).body.total, before, 'no share stored');
      const rule = await w.as('admin', 'POST', '/api/v1/sharing/rules', { name: 'to_nowhere', object: 'doc', kind: 'criteria', criteria: { region: 'EU' }, recipient_type: 'position', recipient_id: 'no-such-position' });
      t.equal(rule.status, 400, 'a rule too');
      t.equal(rule.body.error.details.errors[0].path, 'recipient_id');
      const real = await w.as('other', 'POST', `/api/v1/data/doc/${w.ids.docB}/shares`, { recipient_type: 'position', recipient_id: w.ids.eu_manager });
      t.equal(real.status, 201, 'an existing position is accepted');
      t.equal((await w.as('other', 'DELETE', `/api/v1/data/doc/${w.ids.docB}/shares/${String(real.body.id)}`)).status, 204);
    });

    await t.test('DELETE /sharing/rules deletes the named rules, all or none, admins only', async (t) => {
      const rule = (name: string) => ({ name, object: 'doc', kind: 'criteria', criteria: { region: 'US' }, recipient_type: 'user', recipient_id: w.users.sharee.id });
      for (const name of ['bulk_a', 'bulk_b', 'bulk_c']) t.equal((await w.as('admin', 'POST', '/api/v1/sharing/rules', rule(name))).status, 201, name);
      const names = async () => ((await w.as('admin', 'GET', '/api/v1/sharing/rules')).body.items as Array<{ name: string }>).map((r) => r.name).filter((n) => n.startsWith('bulk_')).sort();

      const member = await w.as('owner', 'DELETE', '/api/v1/sharing/rules?name=bulk_a');
      t.equal(member.status, 403, 'a member may not');
      t.equal(member.body.error.details.permission, 'sharing:manage');
      const none = await w.as('admin', 'DELETE', '/api/v1/sharing/rules');
      t.equal(none.status, 400, 'no rule named: nothing deleted, never everything');
      t.equal(none.body.error.code, 'VALIDATION_ERROR');
      const partly = await w.as('admin', 'DELETE', '/api/v1/sharing/rules?name=bulk_a&name=bulk_missing&id=no-such-id');
      t.equal(partly.status, 404, 'one missing rule refuses the whole request');
      t.same(partly.body.error.details.missing, ['bulk_missing', 'no-such-id']);
      t.same(await names(), ['bulk_a', 'bulk_b', 'bulk_c'], 'and deletes none');

      const idOfB = ((await w.as('admin', 'GET', '/api/v1/sharing/rules')).body.items as Array<{ id: string; name: string }>).find((r) => r.name === 'bulk_b')!.id;
      const res = await w.as('admin', 'DELETE', `/api/v1/sharing/rules?name=bulk_a&name=bulk_a&id=${idOfB}`);
      t.equal(res.status, 200);
      t.same(res.body.deleted.map((r: { name: string }) => r.name).sort(), ['bulk_a', 'bulk_b']);
      t.same(await names(), ['bulk_c'], 'the named rules are gone, the others stay');
      const single = await w.as('admin', 'DELETE', '/api/v1/sharing/rules?name=bulk_c');
      t.same({ status: single.status, deleted: single.body.deleted.map((r: { name: string }) => r.name) }, { status: 200, deleted: ['bulk_c'] }, 'one name alone');
    });

    await t.test('route permission keys come from permission sets, within their windows', async (t) => {
      const member = await w.as('owner', 'GET', '/api/v1/probe/ai');
      t.equal(member.status, 403);
      t.same({ permission: member.body.error.details.permission, subjectId: member.body.error.details.subjectId }, { permission: 'ai:chat', subjectId: w.users.owner.id });
      const granted = await w.as('viewAll', 'GET', '/api/v1/probe/ai');
      t.same({ status: granted.status, body: granted.body }, { status: 200, body: { ok: true } }, 'the auditor set grants ai:chat');
      // The next calls find the caller verified and its grants resolved moments ago (no promise):
      // the key still comes from the set, and a withdrawn assignment takes it away at once.
      t.equal((await w.as('viewAll', 'GET', '/api/v1/probe/ai')).status, 200, 'a second call holds the key too');
      const where = encodeURIComponent(JSON.stringify({ user_id: w.users.viewAll.id }));
      const assignments = (await w.as('admin', 'GET', `/api/v1/data/sys_user_permission_set?where=${where}`)).body.items as Array<Record<string, unknown>>;
      t.equal(assignments.length, 1, 'the auditor set is assigned once');
      const { id, user_id, permission_set, valid_from, valid_to } = assignments[0]!;
      t.equal((await w.as('admin', 'DELETE', `/api/v1/data/sys_user_permission_set/${String(id)}`)).status, 204, 'the assignment is withdrawn');
      t.equal((await w.as('viewAll', 'GET', '/api/v1/probe/ai')).status, 403, 'and the key is gone at once');
      const restored = await w.as('admin', 'POST', '/api/v1/data/sys_user_permission_set', { user_id, permission_set, valid_from, valid_to });
      t.equal(restored.status, 201, 'the assignment is given back');
      t.equal((await w.as('viewAll', 'GET', '/api/v1/probe/ai')).status, 200, 'and the key with it');
      t.equal((await w.as('expired', 'GET', '/api/v1/probe/ai')).status, 403, 'an expired assignment grants no key');
      t.equal((await w.as('future', 'GET', '/api/v1/probe/ai')).status, 403, 'a future assignment grants no key yet');
      t.equal((await w.as('admin', 'GET', '/api/v1/probe/ai')).status, 200, 'admins hold every key');
    });

    await t.test('explain says what grants or denies', async (t) => {
      const member = await w.as('owner', 'GET', `/api/v1/access/explain?userId=${w.users.sharee.id}&object=doc`);
      t.equal(member.status, 403, 'explain is admin-only');
      const owner = await w.as('admin', 'GET', `/api/v1/access/explain?userId=${w.users.owner.id}&object=doc&recordId=${w.ids.docA}`);
      t.equal(owner.status, 200, JSON.stringify(owner.body));
      t.same({ read: owner.body.read.allowed, edit: owner.body.edit.allowed }, { read: true, edit: true });
      t.ok(owner.body.read.reasons.some((r: { source: string }) => r.source === 'owner'), 'ownership is the reason');
      const other = await w.as('admin', 'GET', `/api/v1/access/explain?userId=${w.users.owner.id}&object=doc&recordId=${w.ids.docC}`);
      t.same({ read: other.body.read.allowed, edit: other.body.edit.allowed }, { read: false, edit: false });
      t.ok(other.body.read.reasons.some((r: { effect: string; source: string }) => r.effect === 'deny' && r.source === 'sharingModel'));
      const unit = await w.as('admin', 'GET', `/api/v1/access/explain?userId=${w.users.unitMember.id}&object=doc&recordId=${w.ids.docC}`);
      t.same({ read: unit.body.read.allowed, edit: unit.body.edit.allowed }, { read: true, edit: false });
      t.ok(unit.body.read.reasons.some((r: { source: string }) => r.source === 'share'), 'the unit share is the reason');
      const eu = await w.as('admin', 'GET', `/api/v1/access/explain?userId=${w.users.euManager.id}&object=doc&recordId=${w.ids.docE}`);
      t.ok(eu.body.read.reasons.some((r: { source: string; name: string }) => r.source === 'policy' && r.name === 'eu_managers_read_eu'), 'the row policy is the reason');
      const view = await w.as('admin', 'GET', `/api/v1/access/explain?userId=${w.users.viewAll.id}&object=doc&recordId=${w.ids.docC}`);
      t.ok(view.body.read.reasons.some((r: { source: string; name: string }) => r.source === 'permissionSet' && r.name === 'auditor'), 'the permission set is the reason');
      const expired = await w.as('admin', 'GET', `/api/v1/access/explain?userId=${w.users.expired.id}&object=doc&recordId=${w.ids.docC}`);
      t.same({ read: expired.body.read.allowed, sets: expired.body.permissionSets }, { read: false, sets: [] }, 'an expired assignment is no reason');
      const del = await w.as('owner', 'DELETE', `/api/v1/data/sys_user_position/${w.ids.upUnit}`);
      t.equal(del.status, 403, 'a member cannot delete an assignment');
    });
  });
});
