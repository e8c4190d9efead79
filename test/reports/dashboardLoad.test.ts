import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { loadApps } from '../../metadata/loadApps.ts';

/**
 * Dashboards and datasets are strict: every unknown key is a load error naming its path; datasets
 * are type-checked against their objects; a widget references a dataset, and an inline query is a
 * load error naming its file, its key and the fix.
 */
function appWith(t: Test, dirs: { dashboards?: Record<string, unknown>; datasets?: Record<string, unknown>; objects?: Record<string, unknown> }): string {
  const dir = mkdtempSync(join(tmpdir(), 'osr-dash-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'app.json'), JSON.stringify({ name: 'dash_test', version: '1.0.0', protocol: '^16.0.0' }));
  for (const kind of ['dashboards', 'datasets', 'objects'] as const) {
    mkdirSync(join(dir, kind));
    for (const [name, value] of Object.entries(dirs[kind] ?? {})) writeFileSync(join(dir, kind, `${name}.json`), JSON.stringify(value));
  }
  return dir;
}

const ACCESS_APP = 'test/access/fixtures/app';
const DOCS = { name: 'docs', object: 'doc', dimensions: ['region', 'title'], measures: [{ name: 'n', aggregation: 'count' }] };
const datasets = { docs: DOCS };
const metric = { dataset: 'docs', dimensions: [] };

const problems = async (t: Test, dirs: Parameters<typeof appWith>[1]) => {
  const { errors } = await loadApps([ACCESS_APP, appWith(t, dirs)]);
  return errors.map((e) => ({ code: e.code, file: String(e.details.file ?? ''), message: e.message, path: String(e.details.path), reason: String(e.details.reason) }));
};

t.test('an inline widget query fails the load, naming the file, the key and the fix', async (t) => {
  const found = await problems(t, { datasets, dashboards: { board: { name: 'board', widgets: [{ id: 'a', type: 'metric', query: { object: 'doc', aggregations: [{ function: 'count', alias: 'n' }] } }] } } });
  t.equal(found.length, 1, JSON.stringify(found));
  t.match(found[0], { code: 'METADATA_INVALID', path: 'widgets[0].query', reason: /datasets\/<name>\.json .*"dataset": "<name>"/ });
  t.match(found[0]!.message, /dashboards\/board\.json/, 'the message names the file');
});

t.test('an unknown key in a widget is a load error naming its path', async (t) => {
  const found = await problems(t, { datasets, dashboards: { board: { name: 'board', widgets: [{ id: 'a', type: 'metric', ...metric }, { id: 'b', type: 'table', dataset: 'docs', colour: 'red' }] } } });
  t.equal(found.length, 1);
  t.match(found[0], { code: 'METADATA_INVALID', path: 'widgets[1].colour', reason: /unknown key 'colour'/ });
});

t.test('a valid dataset and dashboard load, with defaults', async (t) => {
  const { errors, apps } = await loadApps([ACCESS_APP, appWith(t, { datasets, dashboards: { board: { name: 'board', widgets: [{ id: 'doc_count', type: 'metric', ...metric }, { id: 'mine', type: 'table', report: 'abc' }] } } })]);
  t.same(errors, []);
  t.match(apps[1]!.datasets, [{ name: 'docs', label: 'Docs', object: 'doc', dimensions: [{ field: 'region' }, { field: 'title' }], measures: [{ name: 'n', aggregation: 'count', label: 'N' }] }]);
  t.match(apps[1]!.dashboards, [{ name: 'board', label: 'Board', widgets: [{ id: 'doc_count', title: 'Doc Count', dataset: 'docs', dimensions: [] }, { id: 'mine', report: 'abc' }] }]);
});

t.test('datasets are type-checked against their object at load, naming the path', async (t) => {
  const cases: Array<[string, unknown, string, RegExp]> = [
    ['unknown dimension field', { ...DOCS, dimensions: ['region', 'titel'] }, 'dimensions[1]', /unknown field 'titel'/],
    ['unknown object', { ...DOCS, object: 'dok' }, 'object', /unknown object 'dok' \(did you mean 'doc'\?\)/],
    ['granularity on text', { ...DOCS, dimensions: [{ field: 'title', dateGranularity: 'month' }] }, 'dimensions[0]', /dateGranularity needs a date/],
    ['sum of text', { ...DOCS, measures: [{ name: 'total', aggregation: 'sum', field: 'title' }] }, 'measures[0].field', /needs a numeric field/],
    ['unknown aggregation', { ...DOCS, measures: [{ name: 'x', aggregation: 'median' }] }, 'measures[0].aggregation', /must be one of/],
    ['bad where', { ...DOCS, where: { title: { $gt: {} } } }, 'where', /./],
    ['unknown key', { ...DOCS, colour: 'red' }, 'colour', /unknown key 'colour'/],
    ['misnamed file', { ...DOCS, name: 'other' }, 'name', /file named other\.json/],
    ['nothing to show', { ...DOCS, dimensions: [], measures: [] }, 'measures', /at least one dimension or measure/],
    ['materialized with a base filter', { ...DOCS, materialized: true, where: { region: 'EU' } }, 'where', /counts every row of its object: it takes no base filter/],
    ['materialized with a bucket', { ...DOCS, materialized: true, dimensions: [{ field: 'created_at', dateGranularity: 'month' }] }, 'dimensions[0].dateGranularity', /keeps plain field values/],
    ['materialized by a formula', { ...DOCS, materialized: true, dimensions: ['secret_shout'] }, 'dimensions[0]', /cannot keep counts by 'secret_shout', a formula field/],
    ['materialized sum', { ...DOCS, materialized: true, measures: [{ name: 'n', aggregation: 'count_distinct', field: 'title' }] }, 'measures[0].aggregation', /keeps counts of rows only/],
    ['materialized by five', { ...DOCS, materialized: true, dimensions: ['region', 'title', 'secret', 'folder', 'owner_id'] }, 'dimensions', /at most 4 dimensions \(5 declared\)/],
    ['materialized without a dimension', { ...DOCS, materialized: true, dimensions: [] }, 'dimensions', /at least one dimension/],
    ['materialized not a boolean', { ...DOCS, materialized: 'yes' }, 'materialized', /./],
  ];
  for (const [what, dataset, path, reason] of cases) {
    const found = await problems(t, { datasets: { docs: dataset } });
    t.ok(found.some((p) => p.path.startsWith(path) && reason.test(p.reason) && p.file.endsWith('datasets/docs.json')), `${what}: ${JSON.stringify(found)}`);
  }
});

t.test('an object has at most three materialized datasets', async (t) => {
  const m = (name: string) => ({ ...DOCS, name, materialized: true });
  const found = await problems(t, { datasets: { d1: m('d1'), d2: m('d2'), d3: m('d3'), d4: m('d4') } });
  t.equal(found.length, 1, JSON.stringify(found));
  t.match(found[0], { path: 'materialized', reason: /object 'doc' has at most 3 materialized datasets/ });
  const { errors, apps } = await loadApps([ACCESS_APP, appWith(t, { datasets: { d1: m('d1') } })]);
  t.same(errors, []);
  t.equal(apps[1]!.datasets?.[0]?.materialized, true, 'a materialized dataset loads as such');
});

t.test('widget rules are enforced', async (t) => {
  const cases: Array<[string, unknown, string, RegExp]> = [
    ['unknown dataset', { id: 'a', type: 'table', dataset: 'doks' }, 'widgets[0].dataset', /unknown dataset 'doks' \(did you mean 'docs'\?\)/],
    ['unknown dimension', { id: 'a', type: 'table', dataset: 'docs', dimensions: ['colour'] }, 'widgets[0].dimensions[0]', /no dimension 'colour'/],
    ['unknown measure', { id: 'a', type: 'table', dataset: 'docs', measures: ['total'] }, 'widgets[0].measures[0]', /no measure 'total'/],
    ['bad extra filter', { id: 'a', type: 'table', dataset: 'docs', where: { titel: 'x' } }, 'widgets[0].where', /titel/],
    ['metric with dimensions', { id: 'a', type: 'metric', dataset: 'docs' }, 'widgets[0].dimensions', /one number/],
    ['chart without dimensions', { id: 'a', type: 'chart', ...metric }, 'widgets[0].dimensions', /plots groups/],
    ['chart key on a table', { id: 'a', type: 'table', chart: 'pie', dataset: 'docs' }, 'widgets[0].chart', /chart widgets only/],
    ['both report and dataset', { id: 'a', type: 'table', report: 'r1', dataset: 'docs' }, 'widgets[0]', /exactly one of dataset/],
    ['neither', { id: 'a', type: 'table' }, 'widgets[0]', /exactly one of dataset/],
    ['dataset keys on a report', { id: 'a', type: 'table', report: 'r1', where: { region: 'EU' } }, 'widgets[0].where', /dataset widgets only/],
    ['unknown type', { id: 'a', type: 'gauge', ...metric }, 'widgets[0].type', /must be one of metric, table, chart/],
  ];
  for (const [what, widget, path, reason] of cases) {
    const found = await problems(t, { datasets, dashboards: { board: { name: 'board', widgets: [widget] } } });
    t.ok(found.some((p) => p.path.startsWith(path) && reason.test(p.reason)), `${what}: ${JSON.stringify(found)}`);
  }
  const twice = await problems(t, { datasets, dashboards: { board: { name: 'board', widgets: [{ id: 'a', type: 'metric', ...metric }, { id: 'a', type: 'metric', ...metric }] } } });
  t.match(twice, [{ path: 'widgets[1].id', reason: /used twice/ }]);
  const misnamed = await problems(t, { datasets, dashboards: { board: { name: 'other_name', widgets: [{ id: 'a', type: 'metric', ...metric }] } } });
  t.match(misnamed, [{ path: 'name', reason: /file named other_name\.json/ }]);
  const topLevel = await problems(t, { datasets, dashboards: { board: { name: 'board', widgets: [{ id: 'a', type: 'metric', ...metric }], theme: 'dark' } } });
  t.match(topLevel, [{ path: 'theme', reason: /unknown key 'theme'/ }]);
  const hidden = await problems(t, { objects: { internal_note: { name: 'internal_note', apiEnabled: false, fields: { body: { type: 'text' } } } }, datasets: { notes: { name: 'notes', object: 'internal_note', measures: [{ name: 'n', aggregation: 'count' }] } } });
  t.match(hidden, [{ path: 'object', reason: /apiEnabled false/ }], 'an object off the API cannot feed a dataset');
});

t.test("a dataset's limit is checked at load against its object's maxPageSize", async (t) => {
  const over = await problems(t, { datasets: { docs: { ...DOCS, limit: 201 } } });
  t.equal(over.length, 1, JSON.stringify(over));
  t.match(over[0], { code: 'METADATA_INVALID', path: 'limit', reason: /limit 201 is over the page size cap of 200 for object 'doc' \(maxPageSize\)/ });
  t.match(over[0]!.file, /datasets\/docs\.json$/, 'naming the file');
  t.match(over[0]!.message, /datasets\/docs\.json/);
  const small = await problems(t, { objects: { tiny: { name: 'tiny', maxPageSize: 5, fields: { body: { type: 'text' } } } }, datasets: { tinies: { name: 'tinies', object: 'tiny', dimensions: ['body'], limit: 6 } } });
  t.match(small, [{ path: 'limit', reason: /over the page size cap of 5 for object 'tiny'/ }], "the object's own maxPageSize, not the default");
  t.match((await problems(t, { datasets: { docs: { ...DOCS, limit: 0 } } }))[0], { path: 'limit', reason: /at least 1/ });
  t.same(await problems(t, { datasets: { docs: { ...DOCS, limit: 200 } } }), [], 'at the cap: loads');

  const { errors, apps } = await loadApps([ACCESS_APP, appWith(t, { datasets: { docs: { ...DOCS, limit: 10 } }, dashboards: { board: { name: 'board', widgets: [{ id: 'a', type: 'table', dataset: 'docs', limit: 10 }] } } })]);
  t.same(errors, []);
  t.equal(apps[1]!.datasets![0]!.limit, 10, 'the limit is kept');
  const wider = await problems(t, { datasets: { docs: { ...DOCS, limit: 10 } }, dashboards: { board: { name: 'board', widgets: [{ id: 'a', type: 'table', dataset: 'docs', limit: 11 }] } } });
  t.match(wider, [{ path: 'widgets[0].limit', reason: /dataset 'docs' answers at most 10 rows/ }], "a widget asks for no more than the dataset's limit");
});
