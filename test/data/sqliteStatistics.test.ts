/**
 * SQLite plans a row-scoped page from statistics the engine keeps (sqliteStatistics.ts): without
 * them, `owner = ? OR status IN (...)` ordered by id reads both indexes and sorts every match.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Knex } from 'knex';
import t, { type Test } from 'tap';
import { analyzedTable, keepStatistics, refreshStatistics } from '../../plugins/data/sql/sqliteStatistics.ts';
import { directReader } from '../../plugins/data/sql/sqliteReader.ts';
import { openDatabase } from '../../plugins/data/sql/openDatabase.ts';

const PAGE = `select id from item where (owner_id = ? or status in (?, ?)) order by id asc limit 51`;

async function planOf(knex: Knex): Promise<string> {
  const rows = (await knex.raw(`explain query plan ${PAGE}`, ['u9', 'open', 'active'])) as Array<{ detail: string }>;
  return rows.map((r) => r.detail).join(' | ');
}

/** A table like a served object: a status of four values in long runs, and no owner on most rows. */
async function servedTable(t: Test, rows = 20_000): Promise<Knex> {
  const dir = mkdtempSync(join(tmpdir(), 'osr-stats-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const db = await openDatabase({ url: `sqlite:${join(dir, 'app.db')}` });
  t.teardown(() => db.close());
  const knex = db.knex;
  await knex.raw('create table item (id text primary key, owner_id text, status text, amount numeric)');
  await knex.raw('create index ix_item_owner on item (owner_id)');
  await knex.raw('create index ix_item_status_amount on item (status, amount)');
  const statuses = ['open', 'active', 'closed', 'archived'];
  const all = Array.from({ length: rows }, (_, i) => ({ id: `id-${String(i).padStart(6, '0')}`, owner_id: i % 100 === 0 ? `u${i % 3}` : null, status: statuses[i % 4], amount: i % 500 }));
  for (let i = 0; i < all.length; i += 200) await knex('item').insert(all.slice(i, i + 200));
  return knex;
}

const SLOW_PLAN = /MULTI-INDEX OR[\s\S]*TEMP B-TREE FOR ORDER BY/;

t.test('a scoped page walks the id index once the statistics are refreshed', async (t) => {
  const knex = await servedTable(t);
  t.match(await planOf(knex), SLOW_PLAN, 'never analyzed: both indexes read and every match sorted');
  const report = await refreshStatistics(knex);
  t.same(report, { analyzed: [{ table: 'item', rows: 20_000 }], deferred: [] }, 'the table was analyzed');
  t.notMatch(await planOf(knex), /MULTI-INDEX OR|TEMP B-TREE/, 'with statistics: the id index in order, no sort');
  const stats = (await knex.raw("select stat from sqlite_stat1 where idx = 'ix_item_status_amount'")) as Array<{ stat: string }>;
  t.equal(stats[0]?.stat.split(' ').slice(0, 2).join(' '), '20000 5000', 'every row read: 5,000 rows a status (a sample of the index\'s first entries sees one status)');
  t.same(await refreshStatistics(knex), { analyzed: [], deferred: [] }, 'nothing to do the second time');
});

t.test('the read connection plans with the new statistics', async (t) => {
  const knex = await servedTable(t);
  const read = directReader(knex)!;
  const readerPlan = () => read({ sql: `explain query plan ${PAGE}`, bindings: ['u9', 'open', 'active'] }).map((r) => r.detail).join(' | ');
  t.match(readerPlan(), SLOW_PLAN, 'the reader planned without statistics');
  await refreshStatistics(knex);
  t.notMatch(readerPlan(), /MULTI-INDEX OR|TEMP B-TREE/, 'the reader walks the id index once they are kept');
  t.equal(read({ sql: 'select count(*) as n from item', bindings: [] })[0]!.n, 20_000, 'and still reads');
});

t.test('a refresh bounded by rows leaves larger tables for later', async (t) => {
  const knex = await servedTable(t, 2_000);
  t.same(await refreshStatistics(knex, { maxRows: 1_999 }), { analyzed: [], deferred: [{ table: 'item', rows: 2_000 }] }, 'deferred with its size');
  t.match(await planOf(knex), SLOW_PLAN, 'not analyzed');
  t.same((await refreshStatistics(knex, { maxRows: 2_000 })).analyzed, [{ table: 'item', rows: 2_000 }], 'analyzed within the bound');
});

t.test('the tables PRAGMA optimize names', async (t) => {
  t.equal(analyzedTable('ANALYZE "main"."item"'), 'item');
  t.equal(analyzedTable('ANALYZE "main"."a""b"'), 'a"b', 'a quote in the name');
  t.equal(analyzedTable('ANALYZE "temp"."item"'), null, 'another schema is not ours');
  t.equal(analyzedTable('PRAGMA something'), null);
});

t.test('statistics are refreshed on a timer until stopped', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'osr-stats-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const db = await openDatabase({ url: `sqlite:${join(dir, 'app.db')}` });
  t.teardown(() => db.close());
  await db.knex.raw('create table item (id text primary key, status text)');
  await db.knex.raw('create index ix_item_status on item (status)');
  await db.knex('item').insert(Array.from({ length: 500 }, (_, i) => ({ id: `i${i}`, status: `s${i % 5}` })));
  const analyzed = async () => ((await db.knex.raw("select count(*) as n from sqlite_master where name = 'sqlite_stat1'")) as Array<{ n: number }>)[0]!.n > 0;
  t.equal(await analyzed(), false, 'nothing analyzed yet');
  const stop = keepStatistics(db.knex, 20);
  for (let i = 0; i < 100 && !(await analyzed()); i++) await new Promise((resolve) => setTimeout(resolve, 20));
  stop();
  t.equal(await analyzed(), true, 'the timer ran the refresh');
});

t.test('the data plugin refreshes the statistics of each SQLite environment when it starts', async (t) => {
  const { startTestRuntime } = await import('../harness/startTestRuntime.ts');
  const dataDir = mkdtempSync(join(tmpdir(), 'osr-stats-rt-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const config = { apps: ['metadata/apps/crm'], dataDir };
  type Engine = import('../../capabilities/dataEngine.ts').DataEngine;
  type Database = import('../../capabilities/dataDatabase.ts').DataDatabase;
  const analyzed = async (rt: Awaited<ReturnType<typeof startTestRuntime>>) => {
    const database = rt.runtime.kernel.service<Database>('data.database')!;
    const rows = await database.withDatabase(rt.runtime.config.environmentId, async ({ knex }) =>
      (await knex.raw("select count(*) as n from sqlite_master where name = 'sqlite_stat1'")) as Array<{ n: number }>);
    return rows[0]!.n === 1;
  };
  const first = await startTestRuntime({ config });
  const engine = first.runtime.kernel.service<Engine>('data.engine')!;
  const system = { environmentId: first.runtime.config.environmentId, principal: null, system: true };
  await engine.transaction(system, async (tx) => {
    for (let i = 0; i < 600; i++) await tx.create('account', { name: `Account ${i}` }, system);
  });
  t.equal(await analyzed(first), false, 'rows written, not analyzed yet');
  await first.runtime.stop();
  const second = await startTestRuntime({ config });
  t.teardown(() => second.close());
  t.equal(await analyzed(second), true, 'the next start analyzed the grown table');
});
