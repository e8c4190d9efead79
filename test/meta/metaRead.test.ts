/** The metadata API's read routes: types, items, packages, layers, references, sections, and book audiences. */
import t, { type Test } from 'tap';
import { bootMeta, type Meta } from './metaFixtures.ts';

const CRM = ['account', 'contact', 'lead', 'opportunity', 'task'];
const names = (items: Array<{ name: string }>) => items.map((i) => i.name).sort();

interface Case {
  name: string;
  url: string;
  user?: string;
  status: number;
  code?: string;
  expect?: object;
  absent?: string[];
}

async function scenarios(t: Test, meta: Meta, cases: Case[]): Promise<void> {
  for (const c of cases) {
    await t.test(c.name, async (t) => {
      const res = await meta.send('GET', c.url, c.user ? { user: c.user } : {});
      t.equal(res.status, c.status, 'status');
      if (c.code) t.equal(res.body?.error?.code, c.code, 'error code');
      if (c.status >= 400) t.same(Object.keys(res.body ?? {}), ['error'], 'the envelope');
      if (c.expect) t.hasStrict(res.body, c.expect, 'content');
      for (const text of c.absent ?? []) t.equal(res.text.includes(text), false, `no ${JSON.stringify(text)}`);
    });
  }
}

t.test('CRM and an extras app (overrides, a book) on SQLite', async (t) => {
  const meta = await bootMeta(t, 'sqlite', 'meta-read', { apps: ['metadata/apps/crm', 'test/meta/fixtures/extras'] });
  const version = (await meta.send('GET', '/api/v1/meta', { user: 'alice' })).body.version;

  await t.test('GET /meta: every type with its count and sections', async (t) => {
    const res = await meta.send('GET', '/api/v1/meta', { user: 'alice' });
    t.equal(res.status, 200);
    t.match(version, /^[0-9a-f]{16}$/, 'a content version');
    t.same(res.body.types.map((x: { type: string; sections: string[] }) => [x.type, x.sections]), [['app', []], ['object', ['labels', 'fields', 'views']], ['view', []], ['book', []], ['action', []], ['form', []], ['flow', []], ['dataset', []], ['dashboard', []], ['agent', []]], 'app, object, view, book, action, form, flow, dataset, dashboard and agent; objects have sections');
    t.equal(res.body.types[4].count, 1, "the CRM app's close_task");
    for (const { type, count } of res.body.types as Array<{ type: string; count: number }>) {
      t.equal((await meta.send('GET', `/api/v1/meta/${type}`, { user: 'alice' })).body.items.length, count, `the ${type} count is the number of items the caller is listed`);
    }
    t.equal(res.body.types[3].count, 2, 'the two books');
  });

  await scenarios(t, meta, [
    { name: 'anonymous callers are refused (requireAuth)', url: '/api/v1/meta', status: 401, code: 'UNAUTHENTICATED', absent: ['object'] },
    { name: 'an unknown type is a 404 naming the types', url: '/api/v1/meta/widget', user: 'alice', status: 404, code: 'NOT_FOUND', expect: { error: { details: { types: ['app', 'object', 'view', 'book', 'action', 'form', 'flow', 'dataset', 'dashboard', 'agent'] } } } },
    { name: 'an unknown object is a 404', url: '/api/v1/meta/object/nope', user: 'alice', status: 404, code: 'NOT_FOUND' },
    { name: 'an unknown book is a 404', url: '/api/v1/meta/book/nope/tree', user: 'alice', status: 404, code: 'NOT_FOUND' },
    { name: 'layers must be a boolean', url: '/api/v1/meta/object/account?layers=maybe', user: 'alice', status: 400, code: 'VALIDATION_ERROR' },
    { name: 'unknown query parameters are refused', url: '/api/v1/meta/object?colour=red', user: 'alice', status: 400, code: 'VALIDATION_ERROR' },
    { name: 'an unknown section is a 404 naming the sections', url: '/api/v1/meta/object/colours/account', user: 'alice', status: 404, code: 'NOT_FOUND', expect: { error: { details: { sections: ['labels', 'fields', 'views'] } } } },
    { name: 'books have no sections', url: '/api/v1/meta/book/labels/sales', user: 'alice', status: 404, code: 'NOT_FOUND', expect: { error: { details: { sections: [] } } } },
    { name: 'a field entry is named <object>.<field>', url: '/api/v1/meta/object/fields/account', user: 'alice', status: 400, code: 'VALIDATION_ERROR', expect: { error: { details: { errors: [{ path: 'name' }] } } } },
    { name: 'an undeclared field is a 404', url: '/api/v1/meta/object/fields/account.nickname', user: 'alice', status: 404, code: 'NOT_FOUND' },
    { name: 'a view nobody declared is a 404', url: '/api/v1/meta/object/views/account.nope', user: 'alice', status: 404, code: 'NOT_FOUND' },
    { name: 'references of an unknown item are a 404', url: '/api/v1/meta/object/nope/references', user: 'alice', status: 404, code: 'NOT_FOUND' },
  ]);

  await t.test('GET /meta/:type with and without ?package=', async (t) => {
    const all = await meta.send('GET', '/api/v1/meta/object', { user: 'alice' });
    for (const name of [...CRM, 'visit', 'sys_meta_history', 'sys_meta_overlay']) t.ok(names(all.body.items).includes(name), `lists ${name}`);
    t.match(all.body.items.find((i: { name: string }) => i.name === 'sys_meta_overlay'), { system: true, apiEnabled: false, package: 'system_metadata' }, 'engine-owned objects are listed as such');
    t.same(names((await meta.send('GET', '/api/v1/meta/object?package=system_metadata', { user: 'alice' })).body.items), ['sys_meta_history', 'sys_meta_overlay'], 'the overlay tables\' package');
    t.same(names((await meta.send('GET', '/api/v1/meta/object?package=crm', { user: 'alice' })).body.items), CRM, 'the crm package');
    t.same(names((await meta.send('GET', '/api/v1/meta/object?package=extras', { user: 'alice' })).body.items), ['visit'], 'the extras package');
    t.same((await meta.send('GET', '/api/v1/meta/object?package=nope', { user: 'alice' })).body.items, [], 'an unknown package holds nothing');
    t.same(names((await meta.send('GET', '/api/v1/meta/book?package=extras', { user: 'alice' })).body.items), ['field_work']);
    const apps = (await meta.send('GET', '/api/v1/meta/app', { user: 'alice' })).body.items;
    const app = (name: string) => apps.find((a: { name: string }) => a.name === name);
    t.match(app('crm'), { objects: CRM, books: ['sales'], overrides: [], version: '1.0.0' });
    t.match(app('extras'), { label: 'CRM extras', objects: ['visit'], books: ['field_work'], overrides: ['account'] });
    t.same(names((await meta.send('GET', '/api/v1/meta/app?package=extras', { user: 'alice' })).body.items), ['extras'], 'an app is its own package');
    const account = all.body.items.find((i: { name: string }) => i.name === 'account');
    t.equal(account.label, 'Customer', 'items are shown in effect (the package layer applied)');
    t.equal(account.source, 'objects/account.json', 'the source inside its app, not a server path');
    t.equal(all.text.includes('/work/') || all.text.includes(process.cwd()), false, 'no server directory');
    t.equal(all.text.includes('"compiled"'), false, 'no compiled expressions');
  });

  await t.test('GET /meta/object/account?layers=true: base, package, overlay, effective', async (t) => {
    const plain = await meta.send('GET', '/api/v1/meta/object/account', { user: 'alice' });
    const res = await meta.send('GET', '/api/v1/meta/object/account?layers=true', { user: 'alice' });
    t.equal(res.status, 200);
    const { base, package: pkg, packages, overlay, effective } = res.body;
    t.same(plain.body, effective, 'without layers: the effective item');
    t.match(base, { name: 'account', label: 'Account', pluralLabel: 'Accounts', package: 'crm', views: {} }, 'base: as declared, defaults filled');
    t.same(base.fields.rating.options, [{ value: 'hot', label: 'Hot' }, { value: 'warm', label: 'Warm' }, { value: 'cold', label: 'Cold' }]);
    t.same(base.fields.type.options[0], { value: 'prospect', label: 'Prospect' }, 'a bare option gets a label');
    t.match(pkg, { labels: { label: 'Customer', pluralLabel: 'Customers' }, fields: { rating: { label: 'Temperature', options: { hot: 'Very hot' } } } }, 'package: what extras ships');
    t.same(packages, ['extras']);
    t.equal(overlay, null, 'no overlay yet');
    t.match(effective, { label: 'Customer', pluralLabel: 'Customers', fields: { rating: { label: 'Temperature', options: [{ value: 'hot', label: 'Very hot' }, { value: 'warm', label: 'Warm' }] }, billing_city: { help: 'City of the billing address' } } });
    t.match(effective.views.key_accounts, { label: 'Key accounts', columns: ['name', 'rating', 'annual_revenue'] }, 'a view from the package');
    t.same(Object.keys(effective.fields), Object.keys(base.fields), 'never a field more or less');
    const contact = (await meta.send('GET', '/api/v1/meta/object/contact?layers=true', { user: 'alice' })).body;
    t.same([contact.package, contact.packages, contact.overlay], [null, [], null], 'an object nobody overrides has only its base');
    t.same(contact.effective, contact.base);
  });

  await t.test('sectioned items in every layer', async (t) => {
    const labels = (await meta.send('GET', '/api/v1/meta/object/labels/account', { user: 'alice' })).body;
    t.same(labels, {
      type: 'object', section: 'labels', name: 'account', object: 'account',
      base: { label: 'Account', pluralLabel: 'Accounts', description: 'A company or organization you do business with.' },
      package: { label: 'Customer', pluralLabel: 'Customers' }, overlay: null,
      effective: { label: 'Customer', pluralLabel: 'Customers', description: 'A company or organization you do business with.' },
    });
    const field = (await meta.send('GET', '/api/v1/meta/object/fields/account.rating', { user: 'alice' })).body;
    t.match(field, { base: { label: 'Rating' }, package: { label: 'Temperature' }, overlay: null, effective: { label: 'Temperature', type: 'select' } });
    const view = (await meta.send('GET', '/api/v1/meta/object/views/account.key_accounts', { user: 'alice' })).body;
    t.match(view, { base: null, package: { label: 'Key accounts', pageSize: 25 }, overlay: null, effective: { label: 'Key accounts' } });
  });

  await t.test('references: lookups, book pages, package overrides', async (t) => {
    const res = await meta.send('GET', '/api/v1/meta/object/account/references', { user: 'alice' });
    t.equal(res.status, 200);
    const refs = res.body.items.map((r: { type: string; name: string; path: string }) => `${r.type} ${r.name} ${r.path}`);
    for (const expected of [
      'object account fields.parent_account.reference', 'object contact fields.account.reference', 'object opportunity fields.account.reference',
      'object task fields.account.reference', 'object lead fields.converted_account.reference', 'object visit fields.account.reference',
      'book sales nodes[1].children[0].object', 'book sales nodes[3].children[1].object', 'book field_work nodes[1].object',
      'app extras overrides/objects/account',
    ]) t.ok(refs.includes(expected), expected);
    t.equal(refs.length, 10, 'and nothing else');
    t.same((await meta.send('GET', '/api/v1/meta/book/sales/references', { user: 'alice' })).body.items, [], 'nothing references a book');
    const visit = (await meta.send('GET', '/api/v1/meta/object/visit/references', { user: 'alice' })).body.items;
    t.same(visit.map((r: { name: string }) => r.name), ['field_work'], 'visit: the book page');
  });

  await t.test('row policies are shown to those who manage access, not to every caller', async (t) => {
    const policy = { name: 'field_team_reads_surveys', condition: "record.subject == 'site survey' && 'field_team' in user.positions", access: 'read' };
    for (const user of ['admin', 'steward']) {
      t.same((await meta.send('GET', '/api/v1/meta/object/visit', { user })).body.policies, [policy], `${user}: the policy and its condition`);
    }
    for (const url of ['/api/v1/meta/object/visit', '/api/v1/meta/object/visit?layers=true', '/api/v1/meta/object', '/api/v1/meta/object?package=extras']) {
      const res = await meta.send('GET', url, { user: 'alice' });
      t.equal(res.status, 200, `alice: ${url}`);
      t.equal(res.text.includes('field_team'), false, `alice: no policy condition in ${url}`);
      t.equal(res.text.includes('"policies"'), false, `alice: no policies key in ${url}`);
    }
    t.equal((await meta.send('GET', '/api/v1/meta/object/visit', { user: 'manager' })).text.includes('field_team'), false, 'nor to a member of other permission sets');
  });

  await t.test('history routes answer even before any overlay', async (t) => {
    t.same((await meta.send('GET', '/api/v1/meta/object/account/history', { user: 'alice' })).body, { items: [], nextCursor: null });
    t.same((await meta.send('GET', '/api/v1/meta/app/crm/history', { user: 'alice' })).body, { items: [], nextCursor: null });
    const unknown = await meta.send('GET', '/api/v1/meta/book/nope/history', { user: 'alice' });
    t.same([unknown.status, unknown.body.error.code, unknown.body.error.details.name], [404, 'NOT_FOUND', 'nope'], 'an unknown book, not an unknown route');
  });

  await t.test('book trees: nodes whose audience the caller is not in are removed', async (t) => {
    const tree = async (user: string) => (await meta.send('GET', '/api/v1/meta/book/sales/tree', { user })).body;
    const paths = (nodes: Array<{ path: string; children?: unknown[] }>): string[] => nodes.flatMap((n) => [n.path, ...paths((n.children ?? []) as never)]);
    const open = ['pipeline', 'pipeline/leads', 'pipeline/opportunities', 'customers', 'customers/accounts', 'customers/contacts', 'tasks'];
    const alice = await tree('alice');
    t.same(paths(alice.nodes), open, 'no permission set: the open nodes');
    t.match(alice, { name: 'sales', label: 'Sales' });
    t.same(paths((await tree('manager')).nodes), [...open, 'management', 'management/forecast', 'management/key_accounts'], 'sales_manager: management, not the crm_admin page');
    t.same(paths((await tree('auditor')).nodes), open, 'crm_admin alone: its page sits in a section it cannot see');
    const all = [...open, 'management', 'management/forecast', 'management/key_accounts', 'management/lead_audit'];
    t.same(paths((await tree('director')).nodes), all, 'both sets: everything');
    t.same(paths((await tree('admin')).nodes), all, 'admins see every node');
    const leads = alice.nodes[0].children[0];
    t.same(leads, { name: 'leads', kind: 'page', label: 'Leads', path: 'pipeline/leads', object: 'lead' }, 'a page node');
    const text = JSON.stringify(alice);
    for (const hidden of ['management', 'forecast', 'lead_audit', 'sales_manager', 'crm_admin']) t.equal(text.includes(hidden), false, `alice's tree has no ${hidden}`);
    const field = await meta.send('GET', '/api/v1/meta/book/field_work/tree', { user: 'alice' });
    t.same(field.body.nodes.map((n: { label: string }) => n.label), ['Visits'], 'a page without a label takes its object\'s plural label');
  });

  await t.test('book items are gated the same way wherever they are shown', async (t) => {
    for (const url of ['/api/v1/meta/book', '/api/v1/meta/book/sales', '/api/v1/meta/book/sales?layers=true']) {
      const alice = await meta.send('GET', url, { user: 'alice' });
      t.equal(alice.status, 200, url);
      for (const hidden of ['management', 'forecast', 'lead_audit']) t.equal(alice.text.includes(hidden), false, `${url}: no ${hidden} for alice`);
      t.ok((await meta.send('GET', url, { user: 'admin' })).text.includes('lead_audit'), `${url}: admins see it, with its audience`);
    }
  });
});
