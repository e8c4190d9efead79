/**
 * View metadata: views/*.json validated at load (an unknown key or field named at its path, the
 * `where` by the data API's query parser), the
 * same thing as the object's `views` section (overlays add to it), a default view for an object
 * without one, and `/meta/view` serving them as the caller may use them, on both drivers; object
 * items, their layers, the views section and overlay history show a member no view field it may
 * not read.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { DataEngine } from '../../capabilities/dataEngine.ts';
import { loadApps } from '../../metadata/loadApps.ts';
import { onEachDriver, type Meta } from './metaFixtures.ts';

const APPS = ['test/meta/fixtures/views'];

t.test('views/*.json are validated at load, every problem at its path', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'osr-views-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'objects'));
  mkdirSync(join(dir, 'views'));
  writeFileSync(join(dir, 'app.json'), JSON.stringify({ name: 'bad', version: '1.0.0', protocol: '^16.0.0' }));
  writeFileSync(join(dir, 'objects', 'note.json'), JSON.stringify({ name: 'note', fields: { body: { type: 'text' }, tags: { type: 'json' }, count: { type: 'integer' } } }));
  const view = (name: string, body: object) => writeFileSync(join(dir, 'views', `${name}.json`), JSON.stringify(body));
  view('old_key', { label: 'Old', object: 'note', columns: ['body'], filter: { body: { $eq: 'x' } } });
  view('wrong_object', { label: 'W', object: 'nots', columns: ['body'] });
  view('bad_fields', { label: 'B', object: 'note', columns: ['body', 'ghost'], orderBy: [{ field: 'tags', order: 'asc' }], where: { spirit: { $eq: 1 } }, form: { sections: [{ label: 'S', fields: ['body', 'body', 'nope'], columns: 2 }] } });
  view('Bad_Name', { label: 'N', object: 'note', columns: ['body'] });
  view('fine', { label: 'Fine', object: 'note', columns: ['body'], form: { sections: [{ label: 'Main', fields: ['body'] }] } });
  view('bad_where', { label: 'W', object: 'note', columns: ['body'], where: { $or: [{ body: { $near: 'x' } }, { count: { $gt: 'many' } }, { ghost: 1 }], body: { $in: 'x' } } });
  view('good_where', { label: 'G', object: 'note', columns: ['body'], where: { $or: [{ body: { $startsWith: 'a' } }, { count: { $between: [1, 5] } }], created_at: { $gte: '2026-01-01' } } });
  view('first_default', { label: 'First', object: 'note', columns: ['body'], default: true });
  view('second_default', { label: 'Second', object: 'note', columns: ['body'], default: true });
  const { apps, errors } = await loadApps([dir]);
  const problems = errors.map((e) => [String(e.details.file).replace(`${dir}/`, ''), e.details.path, e.details.reason]);
  const at = (file: string) => problems.filter((p) => p[0] === `views/${file}.json`).map((p) => `${p[1]}: ${p[2]}`);
  t.equal(at('old_key').length, 1, 'one problem');
  t.match(at('old_key')[0], /^filter: /, 'an unknown key is refused at its path');
  t.same(at('wrong_object'), ["object: unknown object 'nots' (did you mean 'note'?)"]);
  t.equal(at('bad_fields').length, 1, 'the schema fails first');
  t.match(at('bad_fields')[0], /^form\.sections\[0\]\.columns: /, 'an unknown key inside a section, at its path');
  t.same(at('Bad_Name'), ["(file name): view 'Bad_Name' must be snake_case (lowercase letters, digits and single underscores, starting with a letter)"]);
  t.same(at('fine'), [], 'a good view has no problem');
  t.same(at('bad_where'), [
    "where.$or[0].body.$near: unknown operator '$near'; operators are $eq, $ne, $gt, $gte, $lt, $lte, $in, $nin, $between, $contains, $notContains, $startsWith, $endsWith, $null, $exists",
    "where.$or[1].count.$gt: an integer field compares with a number, not 'many'",
    "where.$or[2].ghost: unknown field 'ghost' on object 'note'",
    "where.body.$in: $in takes an array of values, not 'x'",
  ], "the where is checked by the data API's query parser: operators, value types and fields, each at its path");
  t.same(at('good_where'), [], 'a where the data API takes is loaded');
  t.same(at('first_default'), [], 'a view marked default');
  t.same(at('second_default'), [`default: note has one default view, and ${dir}/views/first_default.json is marked default already`], 'a second one of the same object is refused');
  t.same(apps[0]?.views?.map((v) => v.name), ['note.fine', 'note.first_default', 'note.good_where'], 'the valid views are loaded, named <object>.<file>');

  view('bad_fields', { label: 'B', object: 'note', columns: ['body', 'ghost'], orderBy: [{ field: 'tags', order: 'asc' }], where: { spirit: { $eq: 1 } }, form: { sections: [{ label: 'S', fields: ['body', 'body', 'nope'] }] } });
  const again = await loadApps([dir]);
  const fields = again.errors.filter((e) => String(e.details.file).endsWith('bad_fields.json')).map((e) => `${e.details.path}: ${e.details.reason}`);
  t.same(fields, [
    "columns[1]: 'ghost' is not a field of note",
    "orderBy[0].field: 'tags' is a json field, which cannot be sorted on",
    "where.spirit: unknown field 'spirit' on object 'note'",
    "form.sections[0].fields[1]: 'body' is placed twice in the form",
    "form.sections[0].fields[2]: 'nope' is not a declared field of note (declared: body, tags, count)",
  ], 'columns, sort, where and form fields are checked against the object');
});

/** sales_manager reads doc.secret: from then on nobody else does (field-level security). */
async function grantSecret(meta: Meta): Promise<void> {
  const engine = meta.rt.runtime.kernel.service<DataEngine>('data.engine')!;
  const ctx = { environmentId: meta.environments[0]!, principal: null, system: true };
  const [set] = (await engine.query('sys_permission_set', { where: { name: 'sales_manager' } }, ctx)).items;
  await engine.update('sys_permission_set', String(set!.id), { fields: { 'doc.secret': { read: true } } }, {}, ctx);
}

const names = (body: { items: Array<{ name: string }> }) => body.items.map((v) => v.name);

await onEachDriver(t, 'meta-views', async (t, meta) => {
  await grantSecret(meta);

  await t.test('an admin: declared views, default views, system objects', async (t) => {
    const res = await meta.send('GET', '/api/v1/meta/view', { user: 'admin' });
    t.equal(res.status, 200);
    const list = names(res.body);
    t.ok(list.includes('doc.open_docs') && list.includes('doc.secret_docs'), 'the declared views');
    t.notOk(list.includes('doc.default'), 'an object with a view has no default one');
    const defaults = res.body.items.filter((v: { object: string; default: boolean }) => v.object === 'doc').map((v: { name: string; default: boolean }) => [v.name, v.default]);
    t.same(defaults, [['doc.open_docs', true], ['doc.secret_docs', false]], 'none marked default: the first declared view is the default one');
    t.ok(list.includes('memo.default'), 'an object without one gets a default view');
    t.ok(list.includes('sys_record_history.default'), 'admin-only objects too, for an admin');
    const memo = res.body.items.find((v: { name: string }) => v.name === 'memo.default');
    t.same(memo, {
      name: 'memo.default', object: 'memo', label: 'All memos', columns: ['subject'], orderBy: [{ field: 'created_at', order: 'desc' }],
      pageSize: 50, default: true, objectLabel: 'Memo', pluralLabel: 'Memos', system: false, package: 'viewsapp',
    }, 'the default view: its first short fields, newest first');
    const summary = await meta.send('GET', '/api/v1/meta', { user: 'admin' });
    t.equal(summary.body.types.find((x: { type: string }) => x.type === 'view').count, list.length, '/meta counts them');
  });

  await t.test('a member: hidden fields and unreadable objects are absent', async (t) => {
    const res = await meta.send('GET', '/api/v1/meta/view', { user: 'alice' });
    t.equal(res.status, 200);
    t.notOk(res.text.includes('secret'), 'the hidden field is named nowhere, nor the view filtering on it');
    t.notOk(names(res.body).includes('sys_record_history.default'), 'an object it may not read has no view');
    const open = res.body.items.find((v: { name: string }) => v.name === 'doc.open_docs');
    t.same(open.columns, ['title', 'score', 'created_at'], 'columns it may read');
    t.same(open.orderBy, [{ field: 'score', order: 'desc' }], 'sort on what it may read');
    t.same(open.where, { status: { $eq: 'open' } }, 'the where');
    t.same(open.form, { sections: [{ label: 'Main', fields: ['title', 'status'] }] }, 'a section of hidden fields only is gone');
    const detail = await meta.send('GET', '/api/v1/meta/view/doc.open_docs', { user: 'alice' });
    t.equal(detail.status, 200);
    t.same(Object.keys(detail.body.fields), ['title', 'status', 'score', 'body'], 'the fields it may read, with their types');
    t.match(detail.body.fields.status, { type: 'select', options: [{ value: 'draft', label: 'Draft' }, { value: 'open', label: 'Open' }, { value: 'closed', label: 'Closed' }] });
    t.notOk(detail.text.includes('secret'));
    t.same(detail.body.readOnlyFields, [], 'every field it reads it may write');
    const refused = await meta.send('GET', '/api/v1/meta/view/doc.secret_docs', { user: 'alice' });
    t.equal(refused.status, 404, 'a view filtering on a hidden field is not found');
    t.equal(refused.body.error.code, 'NOT_FOUND');
    t.equal((await meta.send('GET', '/api/v1/meta/view/sys_record_history.default', { user: 'alice' })).status, 404, 'nor one of an unreadable object');
    t.equal((await meta.send('GET', '/api/v1/meta/view/nodot', { user: 'alice' })).status, 404);
  });

  await t.test('a holder of the field grant sees it', async (t) => {
    const res = await meta.send('GET', '/api/v1/meta/view/doc.open_docs', { user: 'manager' });
    t.same(res.body.columns, ['title', 'score', 'secret', 'created_at']);
    t.ok('secret' in res.body.fields);
    t.same(res.body.readOnlyFields, ['secret'], 'a field its set grants read, not edit, is named read-only');
    t.equal((await meta.send('GET', '/api/v1/meta/view/doc.secret_docs', { user: 'manager' })).status, 200);
  });

  await t.test('the views section is the same thing: declared views are its base layer, overlays add views', async (t) => {
    const object = await meta.send('GET', '/api/v1/meta/object/doc?layers=true', { user: 'admin' });
    t.match(object.body.base.views.open_docs, { label: 'Open docs', columns: ['title', 'score', 'secret', 'created_at'] }, 'views/open_docs.json in the base layer');
    const entry = await meta.send('GET', '/api/v1/meta/object/views/doc.open_docs', { user: 'admin' });
    t.equal(entry.status, 200, 'and as a sectioned item');
    const added = await meta.send('POST', '/api/v1/meta/object/views/memo.recent', { user: 'admin', payload: { label: 'Recent memos', columns: ['subject', 'created_at'], orderBy: [{ field: 'created_at', order: 'desc' }] } });
    t.equal(added.status, 200, added.text);
    const list = names((await meta.send('GET', '/api/v1/meta/view', { user: 'alice' })).body);
    t.ok(list.includes('memo.recent'), 'the overlay view is served');
    t.notOk(list.includes('memo.default'), 'and replaces the default view');
    const recent = (await meta.send('GET', '/api/v1/meta/view/memo.recent', { user: 'alice' })).body;
    t.equal(recent.default, true, 'the only view of its object is its default one');

    const marked = await meta.send('POST', '/api/v1/meta/object/views/doc.with_secret', { user: 'admin', payload: { label: 'With a secret', columns: ['title'], where: { secret: { $null: false } }, default: true } });
    t.equal(marked.status, 200, marked.text);
    const defaultsOf = async (user: string) => (await meta.send('GET', '/api/v1/meta/view', { user })).body.items
      .filter((v: { object: string; default: boolean }) => v.object === 'doc' && v.default).map((v: { name: string }) => v.name);
    t.same(await defaultsOf('admin'), ['doc.with_secret'], 'a view marked default is the default one, though declared last');
    t.same(await defaultsOf('alice'), ['doc.open_docs'], 'for a caller who may not use it, the first view it may use');
    const bad = await meta.send('POST', '/api/v1/meta/object/views/memo.odd', { user: 'admin', payload: { label: 'Odd', columns: ['subject'], filter: {} } });
    t.equal(bad.status, 400, 'the section refuses an unknown key like the file does');
    t.match(bad.body.error.details.errors, [{ path: /filter/ }]);
  });

  await t.test('a member: view definitions in object items, layers, sections and history name no field it may not read', async (t) => {
    const byCode = { label: 'By code', columns: ['title', 'secret'], orderBy: [{ field: 'secret', order: 'asc' }] };
    t.equal((await meta.send('POST', '/api/v1/meta/object/views/doc.by_code', { user: 'admin', payload: byCode })).status, 200);
    const filtered = await meta.send('POST', '/api/v1/meta/object/views/doc.code_filter', { user: 'admin', payload: { label: 'Code filter', columns: ['title'], where: { secret: { $eq: 'S-1' } } } });
    t.equal(filtered.status, 200, filtered.text);
    const viewsText = (views: unknown) => JSON.stringify(views);

    const item = await meta.send('GET', '/api/v1/meta/object/doc', { user: 'alice' });
    t.equal(item.status, 200);
    t.same(Object.keys(item.body.views).sort(), ['by_code', 'open_docs'], 'views whose where names the hidden field are left out');
    t.same(item.body.views.open_docs.columns, ['title', 'score', 'created_at'], 'columns it may read');
    t.same(item.body.views.open_docs.orderBy, [{ field: 'score', order: 'desc' }], 'sorts on what it may read');
    t.same(item.body.views.open_docs.form, { sections: [{ label: 'Main', fields: ['title', 'status'] }] }, 'form fields it may read');
    t.same(item.body.views.by_code, { label: 'By code', columns: ['title'], orderBy: [] }, 'an overlay view, as it may see it');
    t.notOk(viewsText(item.body.views).includes('secret') || viewsText(item.body.views).includes('S-1'), 'no view names the hidden field or its filter value');
    t.ok('secret' in item.body.fields, 'the declaration of the field itself stays (a schema, not a value)');

    const listed = await meta.send('GET', '/api/v1/meta/object', { user: 'alice' });
    t.same(listed.body.items.find((o: { name: string }) => o.name === 'doc').views, item.body.views, 'the list shows the same');

    const layers = await meta.send('GET', '/api/v1/meta/object/doc?layers=true', { user: 'alice' });
    t.equal(layers.status, 200);
    t.same(Object.keys(layers.body.base.views), ['open_docs'], 'the base layer without the view filtering on it');
    t.same(Object.keys(layers.body.overlay.views), ['by_code'], 'the overlay layer too');
    t.same(layers.body.effective.views, item.body.views);
    t.notOk(viewsText([layers.body.base.views, layers.body.package, layers.body.overlay, layers.body.effective.views]).match(/secret|S-1/), 'no layer names it');

    const hiddenEntry = await meta.send('GET', '/api/v1/meta/object/views/doc.code_filter', { user: 'alice' });
    t.equal(hiddenEntry.status, 404, 'a view filtering on the hidden field is not found as a section entry');
    t.notOk(hiddenEntry.text.includes('S-1'));
    t.equal((await meta.send('GET', '/api/v1/meta/object/views/doc.secret_docs', { user: 'alice' })).status, 404, 'a declared one neither');
    const entry = await meta.send('GET', '/api/v1/meta/object/views/doc.open_docs', { user: 'alice' });
    t.equal(entry.status, 200);
    t.same(entry.body.base.columns, ['title', 'score', 'created_at']);
    t.same(entry.body.effective.columns, ['title', 'score', 'created_at']);
    t.notOk(entry.text.includes('secret'), 'the entry names it nowhere');

    const history = await meta.send('GET', '/api/v1/meta/object/doc/history', { user: 'alice' });
    t.equal(history.status, 200);
    t.same(history.body.items.map((h: { name: string }) => h.name), ['doc.by_code'], 'the change of a view it cannot use is left out');
    t.same(history.body.items[0].after, { label: 'By code', columns: ['title'], orderBy: [] }, 'the change of one it can, as it may see it');
    t.notOk(history.text.match(/secret|S-1/));

    for (const who of ['admin', 'manager', 'author']) {
      const full = await meta.send('GET', '/api/v1/meta/object/doc', { user: who });
      t.same(full.body.views.by_code, byCode, `${who}: the view as declared`);
      t.same(full.body.views.code_filter.where, { secret: { $eq: 'S-1' } }, `${who}: with its where`);
      t.same(full.body.views.secret_docs.where, { secret: { $null: false } });
    }
    // Earlier subtests changed views of doc too (doc.with_secret): an author sees every change, as an admin does.
    const authorHistory = await meta.send('GET', '/api/v1/meta/object/doc/history', { user: 'author' });
    const adminHistory = await meta.send('GET', '/api/v1/meta/object/doc/history', { user: 'admin' });
    const names = (res: { body: { items: Array<{ name: string }> } }) => res.body.items.map((h) => h.name).sort();
    t.same(names(authorHistory), names(adminHistory), 'an author sees every change');
    t.ok(['doc.by_code', 'doc.code_filter'].every((n) => names(authorHistory).includes(n)), 'the changes made here among them');
  });
}, { apps: APPS });
