/**
 * Indexes from what is declared: the apps' list views and datasets name the filters and sorts
 * users run, and schema sync makes the composite indexes that serve them (bounded per object,
 * shown by `osr doctor`), so a declared view's page is read in order through its index and stops
 * after its rows (no sort of every match), on both drivers.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import t from 'tap';
import { loadApps } from '../../metadata/loadApps.ts';
import { compileQuery } from '../../plugins/data/query/compileQuery.ts';
import { parseQuery } from '../../plugins/data/query/parseQuery.ts';
import { declaredIndexesOf } from '../../plugins/data/sql/declaredIndexesOf.ts';
import { DECLARED_INDEXES_PER_OBJECT, declaredQueryIndexes, queryIndexColumns } from '../../plugins/data/sql/declaredQueryIndexes.ts';
import { objectIndexes } from '../../plugins/data/sql/desiredSchema.ts';
import { introspectSchema } from '../../plugins/data/sql/introspectSchema.ts';
import { syncSchema } from '../../plugins/data/sql/syncSchema.ts';
import type { DataDatabase } from '../../capabilities/dataDatabase.ts';
import { databaseCases } from '../harness/databases.ts';
import { startTestRuntime } from '../harness/startTestRuntime.ts';

const APP = 'test/data/fixtures/declared-indexes';
const { apps, objects, errors } = await loadApps([APP]);
const deal = objects.get('deal')!;
const registry = { get: (name: string) => objects.get(name) };
const views = apps[0]!.views ?? [];
const viewOf = (name: string) => views.find((v) => v.name === `deal.${name}`)!;

const EXPECTED = [
  'ix_deal__status__priority__due_date__id__0100',
  'ix_deal__status__due_date__id__priority',
  'ix_deal__status__amount__id__010',
  'ix_deal__status__priority',
];

t.test('the index of each declaration', async (t) => {
  t.same(errors, [], 'the fixture loads');
  t.same(queryIndexColumns(deal, { from: 'a', where: { status: 'open', priority: { $gte: 3 } }, orderBy: [{ field: 'due_date', order: 'asc' }] }),
    { columns: ['status', 'due_date', 'id', 'priority'] }, 'equality, then the sort and the id ties go by, then the range');
  t.same(queryIndexColumns(deal, { from: 'a', where: { status: { $eq: 'won' } }, orderBy: [{ field: 'amount', order: 'desc' }] }),
    { columns: ['status', 'amount', 'id'], descending: [false, true, false] }, 'a descending sort keeps its direction');
  t.same(queryIndexColumns(deal, { from: 'a', where: { $or: [{ status: 'open' }, { priority: 5 }] } }), null, '$or names nothing an index can serve');
  t.same(queryIndexColumns(deal, { from: 'a', where: { tags: { $null: true } }, orderBy: [{ field: 'tags', order: 'asc' }] }), null, 'json fields are not indexed');
  t.same(queryIndexColumns(deal, { from: 'a', where: { title: { $contains: 'x' }, status: { $null: true } } }), { columns: ['status'] }, '$null: true pins a value; $contains adds nothing');
  t.same(queryIndexColumns(deal, { from: 'a', where: { status: { $cel: "'open'" } } }), { columns: ['status'] }, 'a {$cel} operand is one value at query time');
  t.same(queryIndexColumns(deal, { from: 'a', where: { priority: { $eq: { $field: 'amount' } } } }), null, 'a field comparison pins nothing');
  t.same(queryIndexColumns(deal, { from: 'a', where: { status: 'open' }, groupBy: ['priority'] }), { columns: ['status', 'priority'] }, 'a dataset: equality, then its groups');

  const found = declaredIndexesOf([...objects.values()], apps).get('deal')!;
  t.same(found.indexes.map((i) => i.columns), [
    ['status', 'priority', 'due_date', 'id'],
    ['status', 'due_date', 'id', 'priority'],
    ['status', 'amount', 'id'],
    ['status', 'priority'],
  ], 'the fixture: three views and a dataset, each its index');
  t.same(found.indexes[0]!.from, ['view deal.by_priority', 'view deal.open'], 'a view whose index another begins with is served by that one');
  t.same(found.indexes[3]!.from, ['dataset deal_status'], 'the dataset by its plain dimension (a date granularity groups by an expression)');
  t.same(found.skipped, [], 'within the bound');
  t.notOk(found.indexes.some((i) => i.from.includes('view deal.either')), 'a view with nothing indexable has none');

  const many = Array.from({ length: DECLARED_INDEXES_PER_OBJECT + 2 }, (_, i) => ({ from: `view v${i}`, where: { status: 'open' }, orderBy: [{ field: ['title', 'priority', 'due_date', 'amount', 'created_at', 'updated_at', 'version'][i]! }] }));
  const bounded = declaredQueryIndexes(deal, many, objectIndexes(deal));
  t.equal(bounded.indexes.length, DECLARED_INDEXES_PER_OBJECT, `at most ${DECLARED_INDEXES_PER_OBJECT} per object`);
  t.same(bounded.skipped.map((s) => s.from), ['view v5', 'view v6'], 'the rest are reported, in declaration order');
  t.match(bounded.skipped[0]!.reason, /over the bound of 5/);
  const covered = declaredQueryIndexes(deal, [{ from: 'view x', where: { status: 'open' } }], [{ columns: ['status', 'title'] }]);
  t.same(covered.indexes, [], 'an existing index that begins with the columns serves them');
  const backwards = declaredQueryIndexes(deal, [{ from: 'view y', orderBy: [{ field: 'title', order: 'desc' }] }, { from: 'view z', orderBy: [{ field: 'title', order: 'asc' }] }], [{ columns: ['title'] }]);
  t.same(backwards.indexes.map((i) => [i.columns, i.descending, i.from]), [[['title', 'id'], [true, false], ['view y']], [['title', 'id'], undefined, ['view z']]],
    'title desc then id asc is not (title, id) read backwards: each direction its index');
});

for (const dbCase of await databaseCases()) {
  t.test(dbCase.name, { skip: dbCase.skip }, async (t) => {
    const db = await dbCase.open(t);
    const { knex, dialect } = db;
    const declared = declaredIndexesOf([...objects.values()], apps);
    await syncSchema(knex, [deal], { declared });
    const names = async () => [...((await introspectSchema(knex, dialect, ['deal'])).get('deal')?.indexes.keys() ?? [])];
    const made = await names();
    for (const name of EXPECTED) t.ok(made.includes(name), `${name} exists`);
    t.same((await syncSchema(knex, [deal], { declared, dryRun: true })).actions, [], 'a second sync changes nothing');

    const statuses = ['open', 'won', 'lost'];
    const rows = Array.from({ length: 3000 }, (_, i) => ({
      id: randomUUID(), title: `deal ${i}`, status: statuses[i % 3], priority: 1 + (i % 5),
      due_date: `2026-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + (i % 28)).padStart(2, '0')}`, amount: (i * 37) % 10_000, version: 1,
    }));
    for (let i = 0; i < rows.length; i += 500) await knex('deal').insert(rows.slice(i, i + 500));
    await knex.raw(dialect === 'postgres' ? 'analyze deal' : 'analyze');

    const explain = async (name: string): Promise<string> => {
      const view = viewOf(name);
      const ast = parseQuery({ ...(view.where ? { where: view.where } : {}), ...(view.orderBy ? { orderBy: view.orderBy } : {}), limit: 50 }, deal, registry);
      const { sql, bindings } = compileQuery(ast, knex, { fetch: 51 }).page.toSQL();
      if (dialect === 'sqlite') return ((await knex.raw(`explain query plan ${sql}`, bindings as never)) as Array<{ detail: string }>).map((r) => r.detail).join('\n');
      return knex.transaction(async (trx) => {
        // A small table: make the planner show the index it would use on a large one.
        await trx.raw('set local enable_seqscan = off');
        await trx.raw('set local enable_bitmapscan = off');
        const plan = await trx.raw(`explain ${sql}`, bindings as never) as { rows: Array<{ 'QUERY PLAN': string }> };
        return plan.rows.map((r) => r['QUERY PLAN']).join('\n');
      });
    };
    for (const [view, index] of [['by_priority', EXPECTED[0]], ['open_soon', EXPECTED[1]], ['top_won', EXPECTED[2]]] as const) {
      const plan = await explain(view);
      t.match(plan, new RegExp(`${index}\\b`), `view ${view}: read through ${index}`);
      t.notMatch(plan, dialect === 'sqlite' ? /TEMP B-TREE/ : /\bSort\b/, `view ${view}: its page is read in order (no sort of the matches)`);
    }

    await syncSchema(knex, [deal], { declared: declaredIndexesOf([deal], [{ views: views.filter((v) => v.name !== 'deal.open_soon'), datasets: [] }]) });
    const after = await names();
    t.notOk(after.includes(EXPECTED[1]!), 'a view removed: its index is dropped at the next sync');
    t.ok(after.includes(EXPECTED[0]!), 'the others stay');
    t.notOk(after.includes(EXPECTED[3]!), 'the dataset removed too: its index goes');
  });
}

t.test('a start makes them (the data plugin syncs with the declared indexes)', async (t) => {
  const rt = await startTestRuntime({ config: { apps: [APP] } });
  t.teardown(() => rt.close());
  const database = rt.runtime.kernel.service<DataDatabase>('data.database')!;
  const names = await database.withDatabase(rt.runtime.config.environmentId, async ({ knex }) =>
    ((await knex.raw("select name from sqlite_master where type = 'index' and tbl_name = 'deal'")) as Array<{ name: string }>).map((r) => r.name));
  for (const name of EXPECTED) t.ok(names.includes(name), `${name} made at start`);
});

t.test('osr doctor shows the declared indexes and a declaration left without one', async (t) => {
  const cwd = mkdtempSync(join(tmpdir(), 'osr-declared-'));
  t.teardown(() => rmSync(cwd, { recursive: true, force: true }));
  writeFileSync(join(cwd, 'runtime.config.json'), JSON.stringify({ apps: [resolve(APP)] }));
  const child = spawn(process.execPath, [new URL('../../bin/osr.js', import.meta.url).pathname, 'doctor', '--json'], {
    cwd, env: { PATH: process.env.PATH, OS_DATA_DIR: join(cwd, 'data'), LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout.on('data', (chunk) => { stdout += chunk; });
  const code = await new Promise<number | null>((done) => child.on('exit', done));
  t.equal(code, 0);
  const check = (JSON.parse(stdout) as { checks: Array<{ name: string; ok: boolean; warning?: boolean; detail: string }> }).checks.find((c) => c.name === 'declared indexes');
  t.equal(check?.ok, true);
  t.equal(check?.warning, undefined);
  t.match(check?.detail, /^4: deal\(status, priority desc, due_date, id\) for view deal\.by_priority, view deal\.open; /, 'each index with its columns and what it serves');
  t.match(check?.detail, /deal\(status, priority\) for dataset deal_status$/);
});
