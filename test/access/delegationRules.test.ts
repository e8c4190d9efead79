/** Who may delegate a position, and for how long: only its direct holder or an admin, within the holder's own window. */
import t from 'tap';
import { eachBackend } from '../auth/authHarness.ts';
import { buildWorld, iso } from './accessWorld.ts';

t.test('delegation rules over HTTP', async (t) => {
  await eachBackend(t, ['access-delegation'], async (t, site) => {
    const w = await buildWorld(t, site);
    const url = '/api/v1/data/sys_user_position';
    const rowsOf = async (userId: string) => {
      const where = encodeURIComponent(JSON.stringify({ user_id: userId }));
      return ((await w.as('admin', 'GET', `${url}?where=${where}&orderBy=created_at`)).body.items as Array<Record<string, unknown>>);
    };
    // unitMember holds rep directly, with no end: the delegator.
    const given = await w.as('unitMember', 'POST', url, { user_id: w.users.sharee.id, position: w.ids.rep, valid_from: iso(0), valid_until: iso(7), reason: 'holiday cover' });
    t.equal(given.status, 201, JSON.stringify(given.body));
    t.equal(given.body.delegated_by, w.users.unitMember.id, 'the delegator delegates within the rules');

    await t.test('a delegate can neither extend its delegation nor pass it on', async (t) => {
      const before = await rowsOf(w.users.sharee.id);
      const extend = await w.as('sharee', 'POST', url, { user_id: w.users.sharee.id, position: w.ids.rep, valid_from: iso(7), valid_until: iso(30), reason: 'extension' });
      t.equal(extend.status, 403, JSON.stringify(extend.body));
      t.same({ code: extend.body.error.code, reason: extend.body.error.details.reason },
        { code: 'DELEGATION_NOT_ALLOWED', reason: 'the delegator holds it through a delegation, which is never passed on or extended; ask the delegator or an admin' });
      t.equal(extend.body.error.message, `Position rep cannot be delegated: ${extend.body.error.details.reason}`, 'the message says why');
      const later = await w.as('sharee', 'POST', url, { user_id: w.users.sharee.id, position: w.ids.rep, valid_from: iso(40), valid_until: iso(60), reason: 'later' });
      t.equal(later.status, 403, 'nor for a later window');
      const onward = await w.as('sharee', 'POST', url, { user_id: w.users.other.id, position: w.ids.rep, valid_from: iso(0), valid_until: iso(3), reason: 'cover' });
      t.same({ status: onward.status, code: onward.body.error?.code }, { status: 403, code: 'DELEGATION_NOT_ALLOWED' }, 'nor re-delegate to someone else');
      t.same((await rowsOf(w.users.sharee.id)).map((r) => r.id), before.map((r) => r.id), 'nothing was written for the delegate');
      t.same(await rowsOf(w.users.other.id), [], 'nor for anyone else');
    });

    await t.test('a delegator delegates at most 30 days, within its own assignment', async (t) => {
      const own = await w.as('admin', 'POST', url, { user_id: w.users.owner.id, position: w.ids.rep, valid_from: iso(-1), valid_until: iso(10) });
      t.equal(own.status, 201, 'the owner holds rep for ten more days');
      const past = await w.as('owner', 'POST', url, { user_id: w.users.other.id, position: w.ids.rep, valid_from: iso(0), valid_until: iso(20), reason: 'cover' });
      t.equal(past.status, 400, JSON.stringify(past.body));
      t.same({ code: past.body.error.code, path: past.body.error.details.errors[0].path }, { code: 'DELEGATION_INVALID', path: 'valid_until' });
      t.match(past.body.error.message, /within the delegator's own assignment of the position \(from .* until .*\)/, 'the message names the own window');
      const long = await w.as('unitMember', 'POST', url, { user_id: w.users.other.id, position: w.ids.rep, valid_from: iso(0), valid_until: iso(31), reason: 'cover' });
      t.same({ status: long.status, code: long.body.error?.code }, { status: 400, code: 'DELEGATION_INVALID' }, 'no more than 30 days');
      const inside = await w.as('owner', 'POST', url, { user_id: w.users.other.id, position: w.ids.rep, valid_from: iso(0), valid_until: iso(9), reason: 'cover' });
      t.same({ status: inside.status, by: inside.body.delegated_by }, { status: 201, by: w.users.owner.id }, 'inside its own window it is accepted');
    });

    await t.test('an admin delegates for a direct holder, and assigns freely', async (t) => {
      const forHolder = await w.as('admin', 'POST', url, { user_id: w.users.future.id, position: w.ids.rep, delegated_by: w.users.unitMember.id, valid_from: iso(0), valid_until: iso(5), reason: 'cover' });
      t.same({ status: forHolder.status, by: forHolder.body.delegated_by }, { status: 201, by: w.users.unitMember.id }, JSON.stringify(forHolder.body));
      const forDelegate = await w.as('admin', 'POST', url, { user_id: w.users.future.id, position: w.ids.rep, delegated_by: w.users.sharee.id, valid_from: iso(0), valid_until: iso(5), reason: 'cover' });
      t.same({ status: forDelegate.status, code: forDelegate.body.error?.code }, { status: 403, code: 'DELEGATION_NOT_ALLOWED' }, 'not in the name of a delegate');
      const plain = await w.as('admin', 'POST', url, { user_id: w.users.sharee.id, position: w.ids.rep, valid_from: iso(0), valid_until: iso(90) });
      t.same({ status: plain.status, by: plain.body.delegated_by ?? null }, { status: 201, by: null }, 'a plain assignment has no delegation limits');
    });

    await t.test('a delegated admin cannot stretch a delegation nor move an admin scope', async (t) => {
      const stretch = await w.as('euManager', 'PATCH', `${url}/${given.body.id}`, { valid_until: iso(60) });
      t.same({ status: stretch.status, code: stretch.body.error?.code }, { status: 400, code: 'DELEGATION_INVALID' }, JSON.stringify(stretch.body));
      const kept = await w.as('euManager', 'PATCH', `${url}/${given.body.id}`, { valid_until: iso(14) });
      t.equal(kept.status, 200, 'within the rules it may change');
      const moved = await w.as('euManager', 'PATCH', `${url}/${w.ids.upTenantAdmin}`, { user_id: w.users.other.id });
      t.same({ status: moved.status, code: moved.body.error?.code }, { status: 403, code: 'DELEGATION_NOT_ALLOWED' }, 'an admin-scope assignment is not handed over');
      const raised = await w.as('euManager', 'PATCH', `${url}/${w.ids.upUnit}`, { position: w.ids.tenant_admin });
      t.same({ status: raised.status, code: raised.body.error?.code }, { status: 403, code: 'DELEGATION_NOT_ALLOWED' }, 'nor granted by changing a position');
      const admin = await w.as('admin', 'PATCH', `${url}/${given.body.id}`, { valid_until: iso(60) });
      t.equal(admin.status, 200, 'a tenant admin changes assignments freely');
    });
  });
});
