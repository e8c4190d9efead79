/**
 * Datasets run as the caller through the data engine: a widget on a dataset answers the numbers
 * POST /data/:object/query answers for the same caller, its measures labelled as declared; a
 * member sums only her own rows; a dataset's freshnessMs lets its group counts be served from
 * memory whatever is written meanwhile, but never to a request carrying X-OSR-Write-Token, and
 * never once what decides access changed (a permission set, a share given or taken); a dataset's
 * limit bounds its rows.
 */
import t from 'tap';
import { addUser, sendAs } from '../access/accessWorld.ts';
import { bearer, eachBackend, signIn } from '../auth/authHarness.ts';

const SALES = [
  // [owner, region, amount, sold_on, status]
  ['admin', 'EU', 100, '2026-01-05', 'closed'],
  ['admin', 'US', 250, '2026-01-20', 'closed'],
  ['admin', 'EU', 999, '2026-02-01', 'open'],
  ['ann', 'EU', 40, '2026-02-11', 'closed'],
  ['ann', 'EU', 2, '2026-03-01', 'closed'],
  ['ann', 'US', 7, '2026-03-15', 'open'],
  ['bob', 'US', 5000, '2026-02-02', 'closed'],
] as const;

t.test('dashboards on datasets', async (t) => {
  await eachBackend(t, ['datasets'], async (t, site) => {
    const rt = await site.boot({ config: { apps: ['test/reports/fixtures/sales'] } });
    const admin = await signIn(rt);
    const users = { admin: { token: admin.token }, ann: await addUser(rt, admin.token, 'ann'), bob: await addUser(rt, admin.token, 'bob') };
    type Who = keyof typeof users;
    const as = (who: Who, method: string, url: string, payload?: unknown) => sendAs(rt, users[who].token, method, url, payload);
    const saleIds: string[] = [];
    for (const [owner, region, amount, sold_on, status] of SALES) {
      const res = await as(owner, 'POST', '/api/v1/data/sale', { region, amount, sold_on, status });
      t.equal(res.status, 201, JSON.stringify(res.body));
      saleIds.push(String(res.body.id));
    }
    type Widgets = Record<string, { items: Array<Record<string, unknown>>; columns: Array<{ key: string; label: string }>; truncated: boolean; error?: unknown }>;
    const board = async (who: Who, headers: Record<string, string> = {}) => {
      const res = await rt.inject({ method: 'POST', url: '/api/v1/dashboards/sales_board/run', headers: { ...bearer(users[who].token), ...headers } });
      t.equal(res.statusCode, 200, res.body);
      return Object.fromEntries((res.json().widgets as Array<{ id: string }>).map((w) => [w.id, w])) as unknown as Widgets;
    };
    const data = async (who: Who, body: Record<string, unknown>) => {
      const res = await as(who, 'POST', '/api/v1/data/sale/query', body);
      t.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.items as Array<Record<string, unknown>>;
    };
    const closed = { status: 'closed' };
    const sum = [{ function: 'sum', field: 'amount', alias: 'total' }];
    const both = [...sum, { function: 'count', alias: 'deals' }];

    for (const who of ['admin', 'ann', 'bob'] as const) {
      const widgets = await board(who);
      t.same(widgets.total!.items, await data(who, { where: closed, aggregations: sum }), `${who}: the metric equals the data route`);
      t.same(widgets.by_region!.items, await data(who, { where: closed, groupBy: ['region'], aggregations: both, orderBy: 'region' }), `${who}: the chart equals the data route`);
      t.same(widgets.by_month!.items, await data(who, { where: { $and: [closed, { region: 'EU' }] }, groupBy: [{ field: 'sold_on', dateGranularity: 'month' }], aggregations: both, orderBy: 'sold_on' }), `${who}: the month buckets equal the data route`);
    }
    const admin_ = await board('admin');
    t.same(admin_.by_region!.columns, [{ key: 'region', label: 'Region' }, { key: 'total', label: 'Revenue' }, { key: 'deals', label: 'Deals' }], "a measure's declared label is its column's label");
    t.same(admin_.total!.columns, [{ key: 'total', label: 'Revenue' }]);
    t.same(admin_.top!.items, [{ region: 'EU', deals: 4 }], "a dataset's limit bounds the rows of a use without one");
    t.equal(admin_.top!.truncated, true, 'and says more rows match');
    t.same(admin_.total!.items, [{ total: 5392 }], 'the admin sums every closed sale');
    t.same(admin_.by_region!.items, [{ region: 'EU', total: 142, deals: 3 }, { region: 'US', total: 5250, deals: 2 }]);
    const ann = await board('ann');
    t.same(ann.total!.items, [{ total: 42 }], 'a member sums only her own closed sales');
    t.same(ann.by_region!.items, [{ region: 'EU', total: 42, deals: 2 }]);
    t.same(ann.by_month!.items.map((r) => [r.total, r.deals]), [[40, 1], [2, 1]], 'her months only');
    t.notOk(JSON.stringify(ann).includes('5000') || JSON.stringify(ann).includes('999'), "no number of another's rows");

    // freshnessMs: the same caller's group counts come from memory after a write; another caller computes her own.
    const before = (await board('admin')).fresh!.items;
    t.same(before, [{ region: 'EU', deals: 4 }, { region: 'US', deals: 3 }]);
    t.equal((await as('admin', 'POST', '/api/v1/data/sale', { region: 'EU', amount: 1, sold_on: '2026-04-01', status: 'open' })).status, 201);
    t.same((await board('admin')).fresh!.items, before, 'within freshnessMs the remembered counts are served, whatever was written');
    t.same((await board('admin')).by_region!.items, admin_.by_region!.items, 'a dataset without freshnessMs reads afresh (the write was open, not closed)');
    t.same((await data('admin', { groupBy: ['region'], aggregations: [{ function: 'count', alias: 'deals' }], orderBy: 'region' })), [{ region: 'EU', deals: 5 }, { region: 'US', deals: 3 }], 'the data route sees the write');
    t.same((await board('ann')).fresh!.items, [{ region: 'EU', deals: 2 }, { region: 'US', deals: 1 }], "another caller never gets the admin's remembered counts");

    // A read-your-writes token asks for the state after the caller's write: never from memory.
    const write = await rt.inject({ method: 'POST', url: '/api/v1/data/sale', headers: bearer(users.admin.token), payload: { region: 'EU', amount: 1, sold_on: '2026-04-02', status: 'open' } });
    t.equal(write.statusCode, 201);
    const token = String(write.headers['x-osr-write-token'] ?? 'unknown.0');
    t.same((await board('admin')).fresh!.items, before, 'without the token: still the remembered counts');
    t.same((await board('admin', { 'x-osr-write-token': token })).fresh!.items, [{ region: 'EU', deals: 6 }, { region: 'US', deals: 3 }], 'with X-OSR-Write-Token: read afresh');

    // A change of what decides access drops what was remembered.
    t.equal((await as('admin', 'POST', '/api/v1/data/sale', { region: 'US', amount: 1, sold_on: '2026-04-03', status: 'open' })).status, 201);
    t.same((await board('admin')).fresh!.items, [{ region: 'EU', deals: 6 }, { region: 'US', deals: 3 }], 'remembered again, whatever was written');
    const set = await as('admin', 'POST', '/api/v1/data/sys_permission_set', { name: 'sale_auditors', objects: { sale: { viewAll: true } } });
    t.equal(set.status, 201, JSON.stringify(set.body));
    t.same((await board('admin')).fresh!.items, [{ region: 'EU', deals: 6 }, { region: 'US', deals: 4 }], 'a permission set created: read afresh');
    const bobSale = saleIds[SALES.findIndex(([owner]) => owner === 'bob')]!;
    const share = await as('admin', 'POST', `/api/v1/data/sale/${bobSale}/shares`, { recipient_type: 'user', recipient_id: users.ann.id, access: 'read' });
    t.equal(share.status, 201, JSON.stringify(share.body));
    t.same((await board('ann')).fresh!.items, [{ region: 'EU', deals: 2 }, { region: 'US', deals: 2 }], "a share given: her counts include bob's sale at once");
    t.equal((await as('admin', 'DELETE', `/api/v1/data/sale/${bobSale}/shares/${share.body.id}`)).status, 204);
    const unshared = (await board('ann')).fresh!.items;
    t.same(unshared, [{ region: 'EU', deals: 2 }, { region: 'US', deals: 1 }], 'the share taken: never her remembered counts with a record she may no longer read');

    const meta = await as('ann', 'GET', '/api/v1/meta/dataset');
    t.equal(meta.status, 200);
    t.same(meta.body.items.map((d: { name: string }) => d.name).sort(), ['sales', 'sales_fresh', 'sales_top'], '/meta/dataset lists them');
    t.match(meta.body.items.find((d: { name: string }) => d.name === 'sales'), { label: 'Closed sales', object: 'sale', where: closed, dimensions: [{ field: 'region' }, { field: 'sold_on', dateGranularity: 'month' }], measures: [{ name: 'total', aggregation: 'sum', field: 'amount', label: 'Revenue' }, { name: 'deals', aggregation: 'count', label: 'Deals' }], package: 'sales_test' });
    t.equal(meta.body.items.find((d: { name: string }) => d.name === 'sales_top').limit, 1, 'with its limit');
    const one = await as('ann', 'GET', '/api/v1/meta/dataset/sales_fresh');
    t.equal(one.status, 200);
    t.equal(one.body.freshnessMs, 600000);
  });
});
