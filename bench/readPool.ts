/**
 * Where SQLite reads pay for a read worker: each statement (from a by-id read to a full scan) on
 * the main thread's connection against the pool of read workers (sqliteReadWorkers.ts), one at a
 * time (latency: the round trip's cost) and 16 at once (throughput: what more cores give).
 * Run: npx tsx bench/readPool.ts [rows]. Writes bench/results/read-pool-<time>.json.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../plugins/data/sql/openDatabase.ts';
import { directReader } from '../plugins/data/sql/sqliteReader.ts';
import { createReadWorkers } from '../plugins/data/sql/sqliteReadWorkers.ts';

const rows = Number(process.argv[2] ?? 100_000);
const dir = mkdtempSync(join(tmpdir(), 'osr-readpool-'));
const file = join(dir, 'pool.db');
const db = await openDatabase({ url: `sqlite:${file}`, readers: 0 });
await db.knex.raw('create table item (id text primary key, status text, amount real, name text)');
await db.knex.raw('create index item_status_amount on item (status, amount)');
await db.knex.raw(`insert into item with recursive n(i) as (select 1 union all select i + 1 from n where i < ?)
  select printf('id%08d', i), case i % 4 when 0 then 'open' when 1 then 'active' when 2 then 'closed' else 'lost' end, (i * 7919) % 10000, 'name ' || i from n`, [rows]);
await db.knex.raw('analyze');
const read = directReader(db.knex)!;

const STATEMENTS: Array<{ name: string; sql: string; bindings: () => unknown[] }> = [
  { name: 'by id', sql: 'select * from item where id = ?', bindings: () => [`id${String(1 + Math.floor(Math.random() * rows)).padStart(8, '0')}`] },
  { name: 'indexed page of 50', sql: 'select * from item where status = ? order by amount desc limit 51', bindings: () => ['open'] },
  { name: 'count of 1,000 rows', sql: 'select count(*) as n from item where status = ? and amount < ?', bindings: () => ['open', 400] },
  { name: 'count of 10,000 rows', sql: 'select count(*) as n from item where status = ? and amount < ?', bindings: () => ['open', 4000] },
  { name: 'unindexed filter, page of 50', sql: 'select * from item where name like ? order by id limit 51', bindings: () => ['%99%'] },
  { name: 'group-by count (full scan)', sql: 'select status, count(*) as n from item group by status', bindings: () => [] },
];

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const far = () => Date.now() + 60_000;

/** Runs `once` for about `ms`, `concurrency` at a time; reads per second. */
async function throughput(once: () => Promise<unknown> | unknown, concurrency: number, ms = 1500): Promise<number> {
  const end = performance.now() + ms;
  let done = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (performance.now() < end) {
      await once();
      done += 1;
    }
  }));
  return Math.round((done / ms) * 1000);
}

const pools = { 1: createReadWorkers(file, { size: 1 }), 2: createReadWorkers(file, { size: 2 }) };
const results = [];
for (const statement of STATEMENTS) {
  const main = () => read({ sql: statement.sql, bindings: statement.bindings() });
  const inPool = (size: 1 | 2) => () => pools[size].read({ sql: statement.sql, bindings: statement.bindings() }, far());
  for (let i = 0; i < 20; i++) {
    main();
    await inPool(1)();
    await inPool(2)();
  }
  const latency = async (once: () => unknown) => {
    const times: number[] = [];
    for (let i = 0; i < 60; i++) {
      const started = performance.now();
      await once();
      times.push(performance.now() - started);
    }
    return Math.round(median(times) * 1000) / 1000;
  };
  const row = {
    statement: statement.name,
    mainMs: await latency(main),
    workerMs: await latency(inPool(1)),
    mainPerS: await throughput(main, 16),
    pool1PerS: await throughput(inPool(1), 16),
    pool2PerS: await throughput(inPool(2), 16),
  };
  results.push(row);
  console.log(JSON.stringify(row));
}
await Promise.all([pools[1].close(), pools[2].close()]);
await db.close();
rmSync(dir, { recursive: true, force: true });

console.log('\n| statement | main thread ms | worker ms | main reads/s (16 at once) | 1 worker | 2 workers |\n|---|---:|---:|---:|---:|---:|');
for (const r of results) console.log(`| ${r.statement} | ${r.mainMs} | ${r.workerMs} | ${r.mainPerS} | ${r.pool1PerS} | ${r.pool2PerS} |`);
const out = join(import.meta.dirname, 'results');
mkdirSync(out, { recursive: true });
writeFileSync(join(out, `read-pool-${new Date().toISOString().replace(/[:.]/g, '-')}.json`), JSON.stringify({ rows, results }, null, 2));
