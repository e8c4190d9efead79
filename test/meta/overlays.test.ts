/** Overlays through the metadata API on each driver: admin-only writes, validated like files, audited, per environment. */
import t from 'tap';
import { onEachDriver, type Meta } from './metaFixtures.ts';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const labelsUrl = '/api/v1/meta/object/labels/account';
const ratingUrl = '/api/v1/meta/object/fields/account.rating';

const historyOf = async (meta: Meta, item = 'account') => (await meta.send('GET', `/api/v1/meta/object/${item}/history`, { user: 'alice' })).body.items;

await onEachDriver(t, 'meta-overlay', async (t, meta) => {
  await t.test('writes need metadata:write: anonymous 401, members 403, nothing stored', async (t) => {
    const anonymous = await meta.send('POST', labelsUrl, { payload: { label: 'Client' } });
    t.equal(anonymous.status, 401, 'anonymous (even with requireAuth false)');
    t.equal(anonymous.body.error.code, 'UNAUTHENTICATED');
    for (const user of ['alice', 'manager']) {
      const res = await meta.send('POST', labelsUrl, { user, payload: { label: 'Client' } });
      t.equal(res.status, 403, `${user}: 403`);
      t.same(res.body.error.details, { permission: 'metadata:write', subjectId: user }, 'PERMISSION_DENIED names the permission');
      t.equal((await meta.send('DELETE', labelsUrl, { user })).status, 403, `${user}: no delete either`);
    }
    t.equal((await meta.send('GET', labelsUrl, { user: 'alice' })).body.overlay, null, 'no overlay stored');
    t.same(await historyOf(meta), [], 'no history');
  });

  await t.test('invalid overlays are 400 VALIDATION_ERROR naming the path; nothing stored', async (t) => {
    const cases: Array<[string, unknown, Array<{ path: string; message: RegExp | string }>]> = [
      [labelsUrl, { label: 'Client', colour: 'red' }, [{ path: 'body.colour', message: "unknown key 'colour'; allowed keys: label, pluralLabel, description" }]],
      [labelsUrl, { label: '' }, [{ path: 'body.label', message: 'must be a non-empty string' }]],
      [labelsUrl, {}, [{ path: 'body', message: 'set at least one of label, pluralLabel, description' }]],
      [labelsUrl, [1], [{ path: 'body', message: /object/ }]],
      [ratingUrl, { options: { tepid: 'Tepid' } }, [{ path: 'body.options.tepid', message: /'tepid' is not an option of account.rating/ }]],
      [ratingUrl, { type: 'text' }, [{ path: 'body.type', message: "unknown key 'type'; allowed keys: label, help, options" }]],
      ['/api/v1/meta/object/fields/account.name', { options: { a: 'A' } }, [{ path: 'body.options', message: /a text field; option labels apply to select and multiselect fields/ }]],
      ['/api/v1/meta/object/fields/account.nickname', { label: 'Nickname' }, [{ path: 'name', message: /'nickname' is not a declared field of account.*needs a schema change/ }]],
      ['/api/v1/meta/object/views/account.mine', { label: 'Mine', columns: ['name', 'nickname'], orderBy: [{ field: 'segments', order: 'asc' }] }, [
        { path: 'body.columns[1]', message: "'nickname' is not a field of account" },
        { path: 'body.orderBy[0].field', message: "'segments' is a multiselect field, which cannot be sorted on" },
      ]],
      ['/api/v1/meta/object/views/account.Mine', { label: 'Mine', columns: ['name'] }, [{ path: 'name', message: 'must be <object>.<view>, e.g. account.key_accounts' }]],
      ['/api/v1/meta/object/views/account.mine', { label: 'Mine', columns: ['name'], where: { $where: 'x' } }, [{ path: 'body.where.$where', message: /unknown logical operator '\$where'/ }]],
      ['/api/v1/meta/object/views/account.mine', { label: 'Mine', columns: ['name'], where: { name: { $near: 'x' }, rating: { $in: 'hot' } } }, [
        { path: 'body.where.name.$near', message: /^unknown operator '\$near'/ },
        { path: 'body.where.rating.$in', message: "$in takes an array of values, not 'hot'" },
      ]],
      ['/api/v1/meta/object/labels/sys_meta_overlay', { label: 'x' }, [{ path: 'name', message: 'names an engine-owned object' }]],
    ];
    for (const [url, payload, errors] of cases) {
      const res = await meta.send('POST', url, { user: 'admin', payload });
      t.equal(res.status, 400, `${url} ${JSON.stringify(payload)}: 400`);
      t.equal(res.body.error.code, 'VALIDATION_ERROR');
      t.match(res.body.error.details.errors, errors, 'the paths and reasons');
    }
    t.equal((await meta.send('POST', '/api/v1/meta/object/labels/nope', { user: 'admin', payload: { label: 'x' } })).status, 404, 'an unknown object is a 404');
    t.same(await historyOf(meta), [], 'nothing was stored or audited');
  });

  await t.test('an overlay wins over the package and the base; replaced, then removed; every change audited', async (t) => {
    const first = await meta.send('POST', labelsUrl, { user: 'admin', payload: { label: 'Client', pluralLabel: 'Clients' } });
    t.equal(first.status, 200, 'stored');
    t.match(first.body, { base: { label: 'Account' }, package: { label: 'Customer' }, overlay: { label: 'Client', pluralLabel: 'Clients' }, effective: { label: 'Client', pluralLabel: 'Clients', description: /company/ } });
    const layers = (await meta.send('GET', '/api/v1/meta/object/account?layers=true', { user: 'alice' })).body;
    t.same(layers.overlay, { labels: { label: 'Client', pluralLabel: 'Clients' } }, 'the overlay layer');
    t.equal(layers.base.label, 'Account', 'the base is untouched');
    t.equal(layers.effective.label, 'Client', 'effective: the overlay wins');
    const listed = (await meta.send('GET', '/api/v1/meta/object?package=crm', { user: 'alice' })).body.items.find((o: { name: string }) => o.name === 'account');
    t.equal(listed.label, 'Client', 'the list shows it too');

    const replaced = await meta.send('POST', labelsUrl, { user: 'admin', payload: { description: 'Companies we sell to.' } });
    t.same(replaced.body.overlay, { description: 'Companies we sell to.' }, 'a POST replaces the entry, it does not merge');
    t.same(replaced.body.effective, { label: 'Customer', pluralLabel: 'Customers', description: 'Companies we sell to.' }, 'labels fall back to the package');

    t.equal((await meta.send('DELETE', labelsUrl, { user: 'admin' })).status, 204, 'removed');
    const after = (await meta.send('GET', labelsUrl, { user: 'alice' })).body;
    t.same([after.overlay, after.effective.label], [null, 'Customer'], 'back to the package layer');
    const again = await meta.send('DELETE', labelsUrl, { user: 'admin' });
    t.equal(again.status, 404, 'nothing left to remove');
    t.equal(again.body.error.code, 'NOT_FOUND');

    const history = await historyOf(meta);
    t.same(history.map((h: { action: string }) => h.action), ['delete', 'upsert', 'upsert'], 'newest first');
    t.match(history[2], { section: 'labels', name: 'account', action: 'upsert', before: null, after: { label: 'Client', pluralLabel: 'Clients' }, user: 'admin', actorKind: 'user', at: ISO });
    t.match(history[1], { before: { label: 'Client', pluralLabel: 'Clients' }, after: { description: 'Companies we sell to.' }, user: 'admin' });
    t.match(history[0], { action: 'delete', before: { description: 'Companies we sell to.' }, after: null, user: 'admin' });
    const page = (await meta.send('GET', '/api/v1/meta/object/account/history?limit=2', { user: 'alice' })).body;
    t.equal(page.items.length, 2, 'a page');
    t.type(page.nextCursor, 'string', 'and a cursor');
    const rest = (await meta.send('GET', `/api/v1/meta/object/account/history?limit=2&cursor=${encodeURIComponent(page.nextCursor)}`, { user: 'alice' })).body;
    t.same(rest.items.map((h: { id: string }) => h.id), [history[2].id], 'the next page');
    t.equal((await meta.send('GET', '/api/v1/meta/object/account/history?cursor=forged', { user: 'alice' })).status, 400, 'a forged cursor is refused');
  });

  await t.test('field texts and option labels; the data API is unchanged', async (t) => {
    const res = await meta.send('POST', ratingUrl, { user: 'admin', payload: { label: 'Heat', help: 'How warm the lead is', options: { cold: 'Frozen' } } });
    t.equal(res.status, 200);
    t.same(res.body.effective.options, [{ value: 'hot', label: 'Very hot' }, { value: 'warm', label: 'Warm' }, { value: 'cold', label: 'Frozen' }], 'package and overlay option labels merge');
    t.match(res.body.effective, { label: 'Heat', help: 'How warm the lead is', type: 'select' });
    const created = await meta.send('POST', '/api/v1/data/account', { user: 'admin', payload: { name: 'Acme', rating: 'cold' } });
    t.equal(created.status, 201, 'records still take the stored values');
    t.equal(created.body.rating, 'cold');
    const label = await meta.send('POST', '/api/v1/data/account', { user: 'admin', payload: { name: 'Acme 2', rating: 'Frozen' } });
    t.equal(label.status, 400, 'a label is not a value');
    t.equal(JSON.stringify((await meta.send('GET', '/api/v1/meta/object/account', { user: 'alice' })).body.fields).includes('nickname'), false, 'no field appeared');
  });

  await t.test('views: added by overlays, listed with the object', async (t) => {
    const view = { label: 'Big ones', columns: ['name', 'annual_revenue', 'created_at'], orderBy: [{ field: 'annual_revenue', order: 'desc' }], where: { annual_revenue: { $gte: 1000 } }, pageSize: 20 };
    const res = await meta.send('POST', '/api/v1/meta/object/views/account.big_ones', { user: 'admin', payload: view });
    t.equal(res.status, 200);
    t.same(res.body, { type: 'object', section: 'views', name: 'account.big_ones', object: 'account', base: null, package: null, overlay: view, effective: view });
    const object = (await meta.send('GET', '/api/v1/meta/object/account', { user: 'alice' })).body;
    t.same(Object.keys(object.views).sort(), ['big_ones', 'key_accounts'], 'the overlay view beside the package one');
  });

  await t.test('overlays belong to one environment', async (t) => {
    const [main, other] = meta.environments;
    const inOther = await meta.send('GET', `/api/v1/environments/${other}/meta/object/fields/account.rating`, { user: 'alice' });
    t.equal(inOther.status, 200);
    t.equal(inOther.body.overlay, null, `${other} has no overlay`);
    t.equal(inOther.body.effective.label, 'Temperature', 'only the package layer');
    const byHeader = await meta.send('GET', ratingUrl, { user: 'alice', headers: { 'x-environment-id': other! } });
    t.equal(byHeader.body.overlay, null, 'chosen by header too');
    t.same((await meta.send('GET', `/api/v1/environments/${other}/meta/object/account/history`, { user: 'alice' })).body.items, [], 'no history there');
    const write = await meta.send('POST', `/api/v1/environments/${other}/meta/object/fields/account.rating`, { user: 'admin', payload: { label: 'Other' } });
    t.equal(write.body.effective.label, 'Other', 'written there');
    t.equal((await meta.send('GET', `/api/v1/environments/${main}/meta/object/fields/account.rating`, { user: 'alice' })).body.effective.label, 'Heat', `${main} keeps its own`);
  });

  await t.test('the overlay tables are not on the data API', async (t) => {
    for (const object of ['sys_meta_overlay', 'sys_meta_history']) {
      for (const [method, url] of [['GET', `/api/v1/data/${object}`], ['POST', `/api/v1/data/${object}`], ['POST', `/api/v1/data/${object}/query`]] as const) {
        const res = await meta.send(method, url, { user: 'admin', ...(method === 'POST' ? { payload: {} } : {}) });
        t.equal(res.status, 404, `${method} ${url}: 404 even for admins`);
        t.equal(res.text.includes('Heat'), false, 'no overlay content');
      }
    }
  });
}, { apps: ['metadata/apps/crm', 'test/meta/fixtures/extras'], environments: ['meta-a', 'meta-b'], config: { api: { requireAuth: false } } });
