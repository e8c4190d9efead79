import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { loadApps } from '../../metadata/loadApps.ts';

/** Dashboards are strict: every unknown key is a load error naming its path; queries are type-checked against the objects. */
function appWith(t: Test, dashboards: Record<string, unknown>, objects: Record<string, unknown> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'osr-dash-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'app.json'), JSON.stringify({ name: 'dash_test', version: '1.0.0', protocol: '^16.0.0' }));
  mkdirSync(join(dir, 'dashboards'));
  mkdirSync(join(dir, 'objects'));
  for (const [name, value] of Object.entries(objects)) writeFileSync(join(dir, 'objects', `${name}.json`), JSON.stringify(value));
  for (const [name, value] of Object.entries(dashboards)) writeFileSync(join(dir, 'dashboards', `${name}.json`), JSON.stringify(value));
  return dir;
}

const ACCESS_APP = 'test/access/fixtures/app';
const count = { object: 'doc', aggregations: [{ function: 'count', alias: 'n' }] };

const problems = async (t: Test, dashboards: Record<string, unknown>, objects: Record<string, unknown> = {}) => {
  const { errors } = await loadApps([ACCESS_APP, appWith(t, dashboards, objects)]);
  return errors.map((e) => ({ code: e.code, path: String(e.details.path), reason: String(e.details.reason) }));
};

t.test('an unknown key in a widget is a load error naming its path', async (t) => {
  const found = await problems(t, { board: { name: 'board', widgets: [{ id: 'a', type: 'metric', query: count }, { id: 'b', type: 'table', query: count, colour: 'red' }] } });
  t.equal(found.length, 1);
  t.match(found[0], { code: 'METADATA_INVALID', path: 'widgets[1].colour', reason: /unknown key 'colour'/ });
});

t.test('a valid dashboard loads, with defaults', async (t) => {
  const { errors, apps } = await loadApps([ACCESS_APP, appWith(t, { board: { name: 'board', widgets: [{ id: 'doc_count', type: 'metric', query: count }, { id: 'mine', type: 'table', report: 'abc' }] } })]);
  t.same(errors, []);
  t.match(apps[1]!.dashboards, [{ name: 'board', label: 'Board', widgets: [{ id: 'doc_count', title: 'Doc Count', query: count }, { id: 'mine', report: 'abc' }] }]);
});

t.test('queries are type-checked against the object at load; widget rules are enforced', async (t) => {
  const cases: Array<[string, unknown, string, RegExp]> = [
    ['unknown field', { id: 'a', type: 'table', query: { object: 'doc', fields: ['title', 'titel'] } }, 'widgets[0].query.fields[1]', /unknown field 'titel'/],
    ['unknown object', { id: 'a', type: 'table', query: { object: 'dok' } }, 'widgets[0].query.object', /unknown object 'dok' \(did you mean 'doc'\?\)/],
    ['bad operator value', { id: 'a', type: 'table', query: { object: 'doc', where: { title: { $gt: {} } } } }, 'widgets[0].query.where', /./],
    ['unknown query key', { id: 'a', type: 'table', query: { object: 'doc', colour: 'red' } }, 'widgets[0].query.colour', /unknown query key/],
    ['cursor', { id: 'a', type: 'table', query: { object: 'doc', cursor: 'x' } }, 'widgets[0].query.cursor', /drop cursor/],
    ['metric without aggregations', { id: 'a', type: 'metric', query: { object: 'doc' } }, 'widgets[0].query.aggregations', /one number/],
    ['chart without groupBy', { id: 'a', type: 'chart', query: count }, 'widgets[0].query.groupBy', /plots groups/],
    ['chart key on a table', { id: 'a', type: 'table', chart: 'pie', query: count }, 'widgets[0].chart', /chart widgets only/],
    ['both report and query', { id: 'a', type: 'table', report: 'r1', query: count }, 'widgets[0]', /exactly one of report/],
    ['neither', { id: 'a', type: 'table' }, 'widgets[0]', /exactly one of report/],
    ['unknown type', { id: 'a', type: 'gauge', query: count }, 'widgets[0].type', /must be one of metric, table, chart/],
  ];
  for (const [what, widget, path, reason] of cases) {
    const found = await problems(t, { board: { name: 'board', widgets: [widget] } });
    t.ok(found.some((p) => p.path.startsWith(path) && reason.test(p.reason)), `${what}: ${JSON.stringify(found)}`);
  }
  const twice = await problems(t, { board: { name: 'board', widgets: [{ id: 'a', type: 'metric', query: count }, { id: 'a', type: 'metric', query: count }] } });
  t.match(twice, [{ path: 'widgets[1].id', reason: /used twice/ }]);
  const misnamed = await problems(t, { board: { name: 'other_name', widgets: [{ id: 'a', type: 'metric', query: count }] } });
  t.match(misnamed, [{ path: 'name', reason: /file named other_name\.json/ }]);
  const topLevel = await problems(t, { board: { name: 'board', widgets: [{ id: 'a', type: 'metric', query: count }], theme: 'dark' } });
  t.match(topLevel, [{ path: 'theme', reason: /unknown key 'theme'/ }]);
  const hidden = await problems(t, { board: { name: 'board', widgets: [{ id: 'a', type: 'table', query: { object: 'internal_note' } }] } }, { internal_note: { name: 'internal_note', apiEnabled: false, fields: { body: { type: 'text' } } } });
  t.match(hidden, [{ path: 'widgets[0].query.object', reason: /apiEnabled false/ }], 'an object off the API cannot feed a widget');
});
