import t from 'tap';
import { eachBackend } from '../auth/authHarness.ts';
import { buildWorld } from './accessWorld.ts';

/**
 * Reads by id reuse a plan (parsed and compiled once per caller and object). The plan must carry
 * each caller's own row scope: whoever planned first, nobody reads through another's plan, and a
 * change of grants (a share) takes effect at once.
 */
t.test('planned reads by id keep each caller to its own rows', async (t) => {
  await eachBackend(t, ['planned'], async (t, site) => {
    const w = await buildWorld(t, site);
    t.teardown(() => w.rt.close());
    const get = async (user: Parameters<typeof w.as>[0], label: string) => {
      const res = await w.as(user, 'GET', `/api/v1/data/doc/${w.ids[label]}`);
      return { status: res.status, title: res.body?.title as string | undefined, secret: res.body?.secret as string | undefined };
    };

    t.same(await get('admin', 'docB'), { status: 200, title: 'DOC-B', secret: 'SECRET-B' }, 'the admin plans first and reads everything');
    t.same(await get('owner', 'docB'), { status: 404, title: undefined, secret: undefined }, "the owner does not read through the admin's plan");
    t.same(await get('owner', 'docA'), { status: 200, title: 'DOC-A', secret: undefined }, 'the owner reads its own doc, without the hidden field');
    t.same(await get('sharee', 'docB'), { status: 200, title: 'DOC-B', secret: undefined }, 'the sharee reads the shared doc');
    t.same(await get('sharee', 'docA'), { status: 404, title: undefined, secret: undefined }, "the sharee does not read through the owner's plan");
    t.same(await get('owner', 'docB'), { status: 404, title: undefined, secret: undefined }, 'still hidden from the owner');
    t.same(await get('admin', 'docA'), { status: 200, title: 'DOC-A', secret: 'SECRET-A' }, "the admin's plan still shows every field");

    const share = await w.as('other', 'POST', `/api/v1/data/doc/${w.ids.docB}/shares`, { recipient_type: 'user', recipient_id: w.users.owner.id, access: 'read' });
    t.equal(share.status, 201, 'the other user shares doc B with the owner');
    t.same(await get('owner', 'docB'), { status: 200, title: 'DOC-B', secret: undefined }, 'the new share opens doc B at once');
    const removed = await w.as('other', 'DELETE', `/api/v1/data/doc/${w.ids.docB}/shares/${String(share.body.id)}`);
    t.equal(removed.status, 204, 'the share is removed');
    t.same(await get('owner', 'docB'), { status: 404, title: undefined, secret: undefined }, 'and doc B is hidden again at once');
  });
});
