/**
 * `/access/delegations` (list, record with the delegate named by email, end) and
 * `PATCH /sharing/rules/:idOrName`, on SQLite and PostgreSQL: the delegation rules stay the
 * engine's (30 days, a reason, never an admin scope), a member sees and ends only the delegations it
 * gave or received, an address is looked up for delegators only, and a rule's change is checked as
 * a new rule is.
 */
import t from 'tap';
import { eachBackend } from '../auth/authHarness.ts';
import { delegablePositions } from '../../plugins/sharing/delegablePositions.ts';
import { buildWorld, iso } from './accessWorld.ts';

t.test('delegablePositions: direct, current, delegatable, no admin scope', async (t) => {
  const positions = [
    { id: 'p1', name: 'rep', delegatable: true },
    { id: 'p2', name: 'boss', delegatable: true, admin_scope: true },
    { id: 'p3', name: 'clerk', delegatable: false },
  ];
  const now = new Date('2030-01-10T00:00:00Z');
  const rows = [
    { id: 'a', user_id: 'u1', position: 'p1' },
    { id: 'b', user_id: 'u1', position: 'p2' },
    { id: 'c', user_id: 'u1', position: 'p3' },
    { id: 'd', user_id: 'u2', position: 'p1', delegated_by: 'u1', valid_from: '2030-01-01T00:00:00Z', valid_until: '2030-01-20T00:00:00Z' },
    { id: 'e', user_id: 'u3', position: 'p1', valid_until: '2030-01-05T00:00:00Z' },
    { id: 'f', user_id: 'u4', position: 'p1', valid_from: '2030-01-01T00:00:00Z', valid_until: '2030-02-01T00:00:00Z' },
  ];
  t.same(delegablePositions(positions, rows, now).map((d) => [d.delegator, d.name, d.valid_from, d.valid_until]), [
    ['u1', 'rep', null, null],
    ['u4', 'rep', '2030-01-01T00:00:00Z', '2030-02-01T00:00:00Z'],
  ], 'held directly and now: not through a delegation, not ended, not an admin scope, not undelegatable');
  t.same(delegablePositions(positions, rows, now, 'u2'), [], 'a delegate has nothing to hand on');
});

t.test('delegation routes and sharing rule changes', async (t) => {
  await eachBackend(t, ['access-delegroutes'], async (t, site) => {
    const w = await buildWorld(t, site);
    const shareeEmail = 'sharee@example.com';

    await t.test('GET /access/delegations offers a holder its delegatable positions only', async (t) => {
      const holder = await w.as('unitMember', 'GET', '/api/v1/access/delegations');
      t.equal(holder.status, 200);
      t.same(holder.body.delegable.map((d: { name: string; delegator: string }) => [d.name, d.delegator]), [['rep', w.users.unitMember.id]], 'rep, held directly; never the admin scope');
      t.same(holder.body.items, [], 'no delegation yet');
      const other = await w.as('other', 'GET', '/api/v1/access/delegations');
      t.same([other.status, other.body.delegable, other.body.items], [200, [], []], 'a member without a delegatable position has none');
      const filtered = await w.as('other', 'GET', `/api/v1/access/delegations?user=${w.users.unitMember.id}`);
      t.equal(filtered.status, 403, 'only admins look at another user\'s delegations');
      const admin = await w.as('admin', 'GET', '/api/v1/access/delegations');
      t.same(admin.body.delegable.map((d: { name: string; delegator: string }) => [d.name, d.delegator]), [['rep', w.users.unitMember.id]], 'admins see every holder; the admin-scope position is never offered');
      t.same(admin.body.people[w.users.unitMember.id], { name: 'unitMember', email: 'unitmember@example.com' }, 'with the names of the people it mentions');
    });

    let id = '';
    await t.test('POST /access/delegations: the engine\'s rules, the delegate by email', async (t) => {
      const base = { position: w.ids.rep, email: shareeEmail, valid_from: iso(0), reason: 'holiday cover' };
      const long = await w.as('unitMember', 'POST', '/api/v1/access/delegations', { ...base, valid_until: iso(31) });
      t.equal(long.status, 400);
      t.same([long.body.error.code, long.body.error.details.errors[0].path, long.body.error.message], ['DELEGATION_INVALID', 'valid_until', 'The delegation is not valid: a delegation lasts at most 30 days'], 'over 30 days: refused on valid_until');
      const noReason = await w.as('unitMember', 'POST', '/api/v1/access/delegations', { ...base, reason: ' ', valid_until: iso(7) });
      t.same([noReason.status, noReason.body.error.details.errors[0].path], [400, 'reason'], 'a reason is required');
      const adminScope = await w.as('euManager', 'POST', '/api/v1/access/delegations', { ...base, position: w.ids.tenant_admin, valid_until: iso(7) });
      t.same([adminScope.status, adminScope.body.error.code], [403, 'DELEGATION_NOT_ALLOWED'], 'an admin scope is never delegated');
      const unknownAsHolder = await w.as('unitMember', 'POST', '/api/v1/access/delegations', { ...base, email: 'nobody@example.com', valid_until: iso(7) });
      t.same([unknownAsHolder.status, unknownAsHolder.body.error.details.errors[0].path], [400, 'email'], 'a holder learns that an address has no account');
      for (const email of [shareeEmail, 'nobody@example.com']) {
        const notHolder = await w.as('other', 'POST', '/api/v1/access/delegations', { ...base, email, valid_until: iso(7) });
        t.same([notHolder.status, notHolder.body.error.code], [403, 'DELEGATION_NOT_ALLOWED'], `a member holding nothing delegatable learns nothing of ${email}`);
      }
      const forOther = await w.as('unitMember', 'POST', '/api/v1/access/delegations', { ...base, delegated_by: w.users.owner.id, valid_until: iso(7) });
      t.same([forOther.status, forOther.body.error.details.errors[0].path], [400, 'delegated_by'], 'a member delegates as itself only');
      const adminNoHolder = await w.as('admin', 'POST', '/api/v1/access/delegations', { ...base, valid_until: iso(7) });
      t.same([adminNoHolder.status, adminNoHolder.body.error.details.errors[0].path], [400, 'delegated_by'], 'an admin names the holder');
      const both = await w.as('unitMember', 'POST', '/api/v1/access/delegations', { ...base, user_id: w.users.sharee.id, valid_until: iso(7) });
      t.same([both.status, both.body.error.details.errors[0].path], [400, 'email'], 'the delegate by email or by id, not both');

      const ok = await w.as('unitMember', 'POST', '/api/v1/access/delegations', { ...base, valid_until: iso(7) });
      t.equal(ok.status, 201, JSON.stringify(ok.body));
      t.same([ok.body.user_id, ok.body.position, ok.body.delegated_by, ok.body.reason], [w.users.sharee.id, w.ids.rep, w.users.unitMember.id, 'holiday cover'], 'recorded for the delegate found by its address');
      id = String(ok.body.id);
      const after = await w.as('sharee', 'GET', '/api/v1/data/doc?orderBy=title');
      t.ok(JSON.stringify(after.body).includes('DOC-C'), 'the delegate holds the position at once');
      const passOn = await w.as('sharee', 'POST', '/api/v1/access/delegations', { ...base, email: 'owner@example.com', valid_until: iso(3) });
      t.same([passOn.status, passOn.body.error.code], [403, 'DELEGATION_NOT_ALLOWED'], 'a delegate does not pass it on');
      const byAdmin = await w.as('admin', 'POST', '/api/v1/access/delegations', { ...base, email: 'owner@example.com', delegated_by: w.users.unitMember.id, valid_until: iso(40) });
      t.same([byAdmin.status, byAdmin.body.error.details.errors[0].path], [400, 'valid_until'], 'an admin recording one for a holder meets the same rules');
    });

    await t.test('the list: the delegator and the delegate see it, nobody else', async (t) => {
      for (const user of ['unitMember', 'sharee', 'admin'] as const) {
        const list = await w.as(user, 'GET', '/api/v1/access/delegations');
        t.same(list.body.items.map((r: { id: string }) => r.id), [id], `${user} sees it`);
      }
      const list = await w.as('sharee', 'GET', '/api/v1/access/delegations');
      t.same(list.body.positions[w.ids.rep], { name: 'rep', label: null }, 'its position named');
      t.equal(list.body.people[w.users.unitMember.id].email, 'unitmember@example.com', 'its delegator named');
      const other = await w.as('other', 'GET', '/api/v1/access/delegations');
      t.same(other.body.items, [], 'another member sees none');
      const byUser = await w.as('admin', 'GET', `/api/v1/access/delegations?user=${w.users.other.id}`);
      t.same(byUser.body.items, [], 'an admin filters by user');
    });

    await t.test('POST /access/delegations/:id/end: delegator, delegate or admin; 404 for anyone else', async (t) => {
      const stranger = await w.as('other', 'POST', `/api/v1/access/delegations/${id}/end`);
      t.same([stranger.status, stranger.body.error.code], [404, 'NOT_FOUND'], 'someone else\'s delegation does not exist for a stranger');
      const plain = await w.as('admin', 'POST', `/api/v1/access/delegations/${w.ids.upUnit}/end`);
      t.equal(plain.status, 404, 'an assignment that is no delegation is not ended here');
      const ended = await w.as('unitMember', 'POST', `/api/v1/access/delegations/${id}/end`);
      t.equal(ended.status, 200);
      t.ok(Date.parse(ended.body.valid_until) <= Date.now(), 'it ends now');
      const after = await w.as('sharee', 'GET', '/api/v1/data/doc?orderBy=title');
      t.notOk(JSON.stringify(after.body).includes('DOC-C'), 'and the delegate loses the position at once');
      const again = await w.as('unitMember', 'POST', `/api/v1/access/delegations/${id}/end`);
      t.same([again.status, again.body.valid_until], [200, ended.body.valid_until], 'ending an ended one changes nothing');
      const future = await w.as('unitMember', 'POST', '/api/v1/access/delegations', { position: w.ids.rep, user_id: w.users.owner.id, valid_from: iso(2), valid_until: iso(5), reason: 'next week' });
      t.equal(future.status, 201, 'a delegation from the day after tomorrow');
      const endFuture = await w.as('owner', 'POST', `/api/v1/access/delegations/${String(future.body.id)}/end`);
      t.equal(endFuture.status, 200, 'its delegate gives it up');
      t.equal(endFuture.body.valid_from, endFuture.body.valid_until, 'one not started yet never starts');
      const audit = await w.as('admin', 'GET', `/api/v1/data/sys_audit_event?where=${encodeURIComponent(JSON.stringify({ action: 'delegation.changed', target_id: id }))}`);
      t.equal(audit.status, 200);
      t.equal(audit.body.items.length, 2, 'recording and ending it are in the audit trail');
    });

    await t.test('PATCH /sharing/rules/:idOrName changes a rule, checked as a new one', async (t) => {
      const created = await w.as('admin', 'POST', '/api/v1/sharing/rules', { name: 'us_to_sharee', object: 'doc', kind: 'criteria', criteria: { region: 'US' }, recipient_type: 'user', recipient_id: w.users.sharee.id });
      t.equal(created.status, 201);
      const member = await w.as('owner', 'PATCH', '/api/v1/sharing/rules/us_to_sharee', { access: 'edit' });
      t.same([member.status, member.body.error.details.permission], [403, 'sharing:manage'], 'admins only');
      const keepers = await w.as('admin', 'POST', '/api/v1/data/sys_permission_set', { name: 'rule_keepers', permissions: ['sharing:manage'] });
      t.equal((await w.as('admin', 'POST', '/api/v1/data/sys_user_permission_set', { user_id: w.users.other.id, permission_set: keepers.body.id })).status, 201, 'a member holding sharing:manage');
      const holder = await w.as('other', 'PATCH', '/api/v1/sharing/rules/us_to_sharee', { access: 'edit' });
      t.same([holder.status, holder.body.error.details.permission], [403, 'sharing:manage'], 'is no admin: refused too');
      const before = await w.as('admin', 'POST', '/api/v1/sharing/rules/us_to_sharee/evaluate', { userId: w.users.owner.id });
      t.same(before.body.recipient, false, 'the owner is not its recipient');
      const bad = await w.as('admin', 'PATCH', '/api/v1/sharing/rules/us_to_sharee', { criteria: { nope: 1 } });
      t.equal(bad.status, 400, 'a criteria naming an unknown field is refused');
      const nowhere = await w.as('admin', 'PATCH', '/api/v1/sharing/rules/us_to_sharee', { recipient_type: 'position', recipient_id: 'no-such-position' });
      t.same([nowhere.status, nowhere.body.error.details.errors[0].path], [400, 'recipient_id'], 'a recipient position must exist');
      const ownerKind = await w.as('admin', 'PATCH', '/api/v1/sharing/rules/us_to_sharee', { kind: 'owner' });
      t.same([ownerKind.status, ownerKind.body.error.details.errors[0].path], [400, 'owner_position'], 'an owner rule needs its position');
      const unknownKey = await w.as('admin', 'PATCH', '/api/v1/sharing/rules/us_to_sharee', { colour: 'red' });
      t.equal(unknownKey.status, 400, 'an unknown key is refused');
      const changed = await w.as('admin', 'PATCH', `/api/v1/sharing/rules/${String(created.body.id)}`, { recipient_id: w.users.owner.id, criteria: { region: 'EU' }, access: 'edit', expectedVersion: created.body.version });
      t.equal(changed.status, 200, JSON.stringify(changed.body));
      t.same([changed.body.recipient_id, changed.body.criteria, changed.body.access, changed.body.name], [w.users.owner.id, { region: 'EU' }, 'edit', 'us_to_sharee'], 'changed');
      const stale = await w.as('admin', 'PATCH', '/api/v1/sharing/rules/us_to_sharee', { access: 'read', expectedVersion: created.body.version });
      t.same([stale.status, stale.body.error.code], [409, 'CONCURRENT_UPDATE'], 'a stale edit is refused');
      const after = await w.as('admin', 'POST', '/api/v1/sharing/rules/us_to_sharee/evaluate', { userId: w.users.owner.id });
      t.same([after.body.recipient, after.body.gainedCount], [true, 0], 'the evaluation follows the change: the owner is the recipient, and already reads what the stored rule opens');
      const docs = await w.as('owner', 'GET', '/api/v1/data/doc?orderBy=title');
      t.ok(docs.body.items.some((d: { title: string }) => d.title === 'DOC-E'), 'the changed rule opens the EU doc to the owner');
      const gone = await w.as('admin', 'PATCH', '/api/v1/sharing/rules/no_such_rule', { access: 'read' });
      t.equal(gone.status, 404);
      t.equal((await w.as('admin', 'DELETE', '/api/v1/sharing/rules/us_to_sharee')).status, 204);
    });
  });
});
