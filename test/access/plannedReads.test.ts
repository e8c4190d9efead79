import t from 'tap';
import { eachBackend } from '../auth/authHarness.ts';
import type { DataContext, DataEngine } from '../../capabilities/dataEngine.ts';
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

/**
 * A read without a principal (engine work on behalf of nobody) is planned under its environment's
 * anonymous owner: a signed-in caller who reads next is not answered from that plan, by the
 * engine's get or at once (getNow), on either route.
 */
t.test('a read without a principal plans for nobody else', async (t) => {
  await eachBackend(t, ['planned-anonymous'], async (t, site) => {
    const w = await buildWorld(t, site);
    t.teardown(() => w.rt.close());
    const kernel = w.rt.runtime.kernel;
    const engine = kernel.service<DataEngine>('data.engine')!;
    const nobody: DataContext = { environmentId: site.ids[0]!, principal: null };
    t.equal((await engine.get('doc', w.ids.docB!, {}, nobody)).title, 'DOC-B', 'a read without a principal sees doc B');
    t.equal(engine.getNow('doc', w.ids.docB!, nobody)?.title, site.backend === 'sqlite' ? 'DOC-B' : undefined, 'and is then answered at once on SQLite');
    const res = await w.as('owner', 'GET', `/api/v1/data/doc/${w.ids.docB}`);
    t.equal(res.status, 404, 'the owner still does not read doc B');
    const own = await w.as('owner', 'GET', `/api/v1/data/doc/${w.ids.docA}`);
    t.same({ status: own.status, secret: own.body?.secret }, { status: 200, secret: undefined }, 'and reads its own doc without the hidden field');
  });
});

/**
 * List queries without a cursor, aggregation or {$cel} reuse a plan the same way (listPlans.ts):
 * the same query text planned first by the admin must still give each caller its own rows and
 * fields, and a change of grants takes effect at once.
 */
t.test('planned list queries keep each caller to its own rows', async (t) => {
  await eachBackend(t, ['planned-list'], async (t, site) => {
    const w = await buildWorld(t, site);
    t.teardown(() => w.rt.close());
    const query = '/api/v1/data/doc?orderBy=title&limit=10';
    const list = async (user: Parameters<typeof w.as>[0]) => {
      const res = await w.as(user, 'GET', query);
      const items = (res.body?.items ?? []) as Array<{ title?: string; secret?: string }>;
      return { status: res.status, titles: items.map((i) => i.title), secrets: items.map((i) => i.secret ?? null), total: res.body?.total };
    };
    const all = await list('admin');
    t.same(all.titles, ['DOC-A', 'DOC-B', 'DOC-C', 'DOC-E'], 'the admin plans first and lists everything');
    t.same(all.secrets, ['SECRET-A', 'SECRET-B', 'SECRET-C', 'SECRET-E'], 'with the hidden field');
    t.same(await list('owner'), { status: 200, titles: ['DOC-A'], secrets: [null], total: 1 }, "the owner does not list through the admin's plan");
    t.same(await list('sharee'), { status: 200, titles: ['DOC-B'], secrets: [null], total: 1 }, "the sharee does not list through the owner's plan");
    t.same((await list('admin')).titles, ['DOC-A', 'DOC-B', 'DOC-C', 'DOC-E'], "the admin's plan is still the admin's");

    const share = await w.as('other', 'POST', `/api/v1/data/doc/${w.ids.docC}/shares`, { recipient_type: 'user', recipient_id: w.users.owner.id, access: 'read' });
    t.equal(share.status, 201, 'the other user shares doc C with the owner');
    t.same((await list('owner')).titles, ['DOC-A', 'DOC-C'], 'the new share shows in the same query at once');
    const removed = await w.as('other', 'DELETE', `/api/v1/data/doc/${w.ids.docC}/shares/${String(share.body.id)}`);
    t.equal(removed.status, 204, 'the share is removed');
    t.same((await list('owner')).titles, ['DOC-A'], 'and doc C is gone from it again at once');

    // A planned first page still hands out a cursor, and its next page (not planned) follows it.
    const first = await w.as('admin', 'GET', '/api/v1/data/doc?orderBy=title&limit=2');
    t.same((first.body.items as Array<{ title: string }>).map((i) => i.title), ['DOC-A', 'DOC-B']);
    t.type(first.body.nextCursor, 'string', 'the planned page has a next cursor');
    const again = await w.as('admin', 'GET', '/api/v1/data/doc?orderBy=title&limit=2');
    t.equal(again.body.nextCursor, first.body.nextCursor, 'the same cursor from the plan');
    const next = await w.as('admin', 'GET', `/api/v1/data/doc?orderBy=title&limit=2&cursor=${encodeURIComponent(String(first.body.nextCursor))}`);
    t.same((next.body.items as Array<{ title: string }>).map((i) => i.title), ['DOC-C', 'DOC-E'], 'the cursor leads to the next page');
  });
});

/**
 * Aggregations are planned too, and remembered until a write (countCache.ts): the same query text
 * planned and remembered first by the admin must still count each caller's own rows, refuse a
 * field the caller may not read, and follow a change of grants at once.
 */
t.test('planned aggregations keep each caller to its own rows', async (t) => {
  await eachBackend(t, ['planned-groups'], async (t, site) => {
    const w = await buildWorld(t, site);
    t.teardown(() => w.rt.close());
    const byRegion = { groupBy: ['region'], aggregations: [{ function: 'count', alias: 'n' }], orderBy: 'region' };
    const groups = async (user: Parameters<typeof w.as>[0], query: Record<string, unknown> = byRegion) => {
      const res = await w.as(user, 'POST', '/api/v1/data/doc/query', query);
      return { status: res.status, items: res.body?.items };
    };
    for (let i = 0; i < 2; i++) {
      t.same(await groups('admin'), { status: 200, items: [{ region: 'EU', n: 1 }, { region: 'US', n: 3 }] }, 'the admin plans first and counts every doc');
      t.same(await groups('owner'), { status: 200, items: [{ region: 'US', n: 1 }] }, "the owner does not count through the admin's plan or its remembered groups");
      t.same(await groups('sharee'), { status: 200, items: [{ region: 'US', n: 1 }] }, 'the sharee counts the doc shared with it');
      t.same(await groups('other'), { status: 200, items: [{ region: 'EU', n: 1 }, { region: 'US', n: 2 }] }, 'the other user counts its own three');
    }
    const bySecret = { groupBy: ['secret'], aggregations: [{ function: 'count', alias: 'n' }] };
    t.equal((await groups('admin', bySecret)).status, 200, 'the admin groups by the hidden field');
    const refused = await groups('owner', bySecret);
    t.equal(refused.status, 403, "the owner may not group by it, though the admin's plan of the same text exists");
    t.notOk(JSON.stringify(refused).includes('SECRET-'), 'and hears none of its values');

    const share = await w.as('other', 'POST', `/api/v1/data/doc/${w.ids.docC}/shares`, { recipient_type: 'user', recipient_id: w.users.owner.id, access: 'read' });
    t.equal(share.status, 201, 'the other user shares doc C with the owner');
    t.same(await groups('owner'), { status: 200, items: [{ region: 'US', n: 2 }] }, 'the new share counts in the same aggregation at once');
    const removed = await w.as('other', 'DELETE', `/api/v1/data/doc/${w.ids.docC}/shares/${String(share.body.id)}`);
    t.equal(removed.status, 204, 'the share is removed');
    t.same(await groups('owner'), { status: 200, items: [{ region: 'US', n: 1 }] }, 'and no longer counts at once');
  });
});

/**
 * Pages after a cursor use the plan of their query without the cursor, with the page after such a
 * cursor planned in it (cursorPages.ts): the plan is the caller's own, so a cursor, whoever it came
 * from, only ever moves through the rows and fields of the caller who sends it.
 */
t.test('planned cursor pages keep each caller to its own rows', async (t) => {
  await eachBackend(t, ['planned-cursor'], async (t, site) => {
    const w = await buildWorld(t, site);
    t.teardown(() => w.rt.close());
    const base = '/api/v1/data/doc?orderBy=title&limit=1';
    type Page = { titles: Array<string | undefined>; secrets: Array<string | null>; next: string | null };
    const page = async (user: Parameters<typeof w.as>[0], cursor: string | null): Promise<Page> => {
      const res = await w.as(user, 'GET', cursor ? `${base}&cursor=${encodeURIComponent(cursor)}` : base);
      t.equal(res.status, 200, `${user}: 200`);
      const items = (res.body?.items ?? []) as Array<{ title?: string; secret?: string }>;
      return { titles: items.map((i) => i.title), secrets: items.map((i) => i.secret ?? null), next: (res.body?.nextCursor as string | null) ?? null };
    };
    const walk = async (user: Parameters<typeof w.as>[0]) => {
      const pages: Page[] = [];
      let cursor: string | null = null;
      do {
        const next: Page = await page(user, cursor);
        pages.push(next);
        cursor = next.next;
      } while (cursor && pages.length < 10);
      return pages;
    };
    const admin = await walk('admin');
    t.same(admin.map((p) => p.titles[0]), ['DOC-A', 'DOC-B', 'DOC-C', 'DOC-E'], 'the admin walks everything first, its cursor pages planned');
    t.same(admin.map((p) => p.secrets[0]), ['SECRET-A', 'SECRET-B', 'SECRET-C', 'SECRET-E'], 'with the hidden field');
    t.same((await walk('owner')).map((p) => p.titles), [['DOC-A']], 'the owner walks only its own doc');
    const afterA = admin[0]!.next;
    t.same(await page('owner', afterA), { titles: [], secrets: [], next: null }, "the admin's cursor leads the owner to none of the admin's rows");
    t.same((await page('sharee', afterA)).titles, ['DOC-B'], 'the sharee, after the same cursor, sees the doc shared with it');
    t.same((await page('sharee', afterA)).secrets, [null], 'without the hidden field');
    t.same((await page('admin', afterA)).secrets, ['SECRET-B'], "the admin's planned page still shows it");

    const share = await w.as('other', 'POST', `/api/v1/data/doc/${w.ids.docC}/shares`, { recipient_type: 'user', recipient_id: w.users.owner.id, access: 'read' });
    t.equal(share.status, 201, 'the other user shares doc C with the owner');
    t.same((await page('owner', afterA)).titles, ['DOC-C'], 'the new share shows on the same cursor page at once');
    const removed = await w.as('other', 'DELETE', `/api/v1/data/doc/${w.ids.docC}/shares/${String(share.body.id)}`);
    t.equal(removed.status, 204, 'the share is removed');
    t.same((await page('owner', afterA)).titles, [], 'and doc C is gone from it again at once');
  });
});

t.test('a list query with {$cel} is evaluated on every call, not planned', async (t) => {
  await eachBackend(t, ['planned-cel'], async (t, site) => {
    const w = await buildWorld(t, site);
    t.teardown(() => w.rt.close());
    const where = encodeURIComponent(JSON.stringify({ created_at: { $lte: { $cel: 'now()' } } }));
    const count = async () => (await w.as('admin', 'GET', `/api/v1/data/doc?where=${where}&limit=50`)).body.total as number;
    const before = await count();
    t.equal(before, 4, 'every doc was created before now');
    await w.as('admin', 'POST', '/api/v1/data/doc', { title: 'DOC-LATER', region: 'US' });
    await new Promise((resolve) => setTimeout(resolve, 5));
    t.equal(await count(), 5, 'a doc created after the first call is counted: now is read again');
  });
});
