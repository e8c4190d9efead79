/**
 * The cost of search: index size, search latency (an admin, and a member who may not read one of
 * the three searchable fields), write cost and the start-time check, on a few thousand records of
 * the `case_file` test object. Run it on two revisions to compare designs:
 *   npx tsx bench/searchCost.ts [sqlite|postgres] [records]
 * Prints a JSON summary and writes bench/results/search-<driver>-<time>.json.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { Principal } from '../capabilities/authSession.ts';
import type { DataDatabase } from '../capabilities/dataDatabase.ts';
import type { DataContext, DataEngine } from '../capabilities/dataEngine.ts';
import type { SearchIndex } from '../capabilities/searchIndex.ts';
import { POSTGRES_URL } from '../test/harness/databases.ts';
import { startTestRuntime, type TestRuntime } from '../test/harness/startTestRuntime.ts';

const driver = (process.argv[2] ?? 'sqlite') as 'sqlite' | 'postgres';
const records = Number(process.argv[3] ?? 5000);
const ROUNDS = 40;
const environment = process.env.KEEP_SCHEMA ? 'bench-search-kept' : `bench-search-${process.pid}`;
const schema = `env_${environment.replace(/-/g, '_')}`;
const dataDir = mkdtempSync(join(tmpdir(), 'osr-bench-search-'));

// Deterministic words and a Zipf-like draw: a few words are everywhere, most are rare.
let seed = 42;
const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'ti', 'vo', 'ze', 'pa', 'qu', 'dor', 'len', 'mar', 'tis', 'gan'];
const VOCABULARY = Array.from({ length: 3000 }, (_, i) => {
  let word = '';
  for (let n = i + 7; n > 0; n = Math.floor(n / SYLLABLES.length)) word += SYLLABLES[n % SYLLABLES.length];
  return word;
});
const draw = () => VOCABULARY[Math.floor(VOCABULARY.length * random() ** 3)]!;
const text = (min: number, max: number) => Array.from({ length: min + Math.floor(random() * (max - min)) }, draw).join(' ');

const boot = (check = true) => startTestRuntime({
  config: {
    apps: ['test/search/fixtures/guarded'],
    ...(check ? {} : { plugins: { search: { rebuildOnStart: false } } }),
    environments: [{ id: environment }],
    dataDir,
    ...(driver === 'postgres' ? { database: { url: POSTGRES_URL } } : {}),
  },
});
const context = (userId: string, isAdmin: boolean): DataContext => ({
  environmentId: environment,
  principal: { kind: 'user', userId, environmentId: environment, isAdmin, positions: [], permissionSets: [], permissions: [] } satisfies Principal,
});
const system: DataContext = { environmentId: environment, principal: null, system: true };
const admin = context('bench-admin', true);
const member = context('bench-member', false);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const ms = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;

async function indexBytes(rt: TestRuntime): Promise<Record<string, number>> {
  const database = rt.runtime.kernel.service<DataDatabase>('data.database')!;
  return database.withDatabase(environment, async (db) => {
    if (db.dialect === 'sqlite') {
      const rows = await db.knex.raw("select name, sum(pgsize) as bytes from dbstat where name like 'osr_search%' or name like 'sqlite_autoindex_osr_search%' group by name");
      return Object.fromEntries((rows as Array<{ name: string; bytes: number }>).map((r) => [r.name, Number(r.bytes)]));
    }
    const result = await db.knex.raw("select c.relname as name, pg_total_relation_size(c.oid) as bytes from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = current_schema() and c.relkind = 'r' and c.relname like 'osr_search%'");
    return Object.fromEntries((result.rows as Array<{ name: string; bytes: string }>).map((r) => [r.name, Number(r.bytes)]));
  });
}

async function analyze(rt: TestRuntime): Promise<void> {
  const database = rt.runtime.kernel.service<DataDatabase>('data.database')!;
  await database.withDatabase(environment, async (db) => {
    const result = await db.knex.raw("select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = current_schema() and c.relkind = 'r' and (c.relname like 'osr_search%' or c.relname = 'case_file')");
    for (const row of result.rows as Array<{ name: string }>) await db.knex.raw(`analyze "${row.name}"`);
  });
}

let rt = await boot();
try {
  const engine = () => rt.runtime.kernel.service<DataEngine>('data.engine')!;
  await engine().create('sys_permission_set', { name: 'case_auditor', fields: { 'case_file.secret': { read: true } } }, system);

  const seedStart = process.hrtime.bigint();
  const ids: string[] = [];
  for (let done = 0; done < records; done += 500) {
    await engine().transaction(system, async (tx) => {
      for (let i = done; i < Math.min(records, done + 500); i++) {
        ids.push(String((await tx.create('case_file', { title: text(3, 7), notes: text(20, 60), secret: text(5, 12) }, admin)).id));
      }
    });
  }
  const seedMs = ms(seedStart);

  // A live database has had autovacuum's analyze: plan the searches with statistics, as it would.
  if (driver === 'postgres') await analyze(rt);
  const search = rt.runtime.kernel.service<SearchIndex>('search.index')!;
  const queries: Record<string, string> = {
    common: VOCABULARY[0]!,
    middle: VOCABULARY[60]!,
    rare: VOCABULARY[2500]!,
    'two words': `${VOCABULARY[0]!} ${VOCABULARY[60]!}`,
    prefix: VOCABULARY[60]!.slice(0, 4),
  };
  const latency: Record<string, { admin: number; member: number; hits: number }> = {};
  for (const [name, q] of Object.entries(queries)) {
    const a: number[] = [];
    const m: number[] = [];
    let hits = 0;
    for (let r = 0; r < ROUNDS; r++) {
      let start = process.hrtime.bigint();
      hits = (await search.search({ q, objects: ['case_file'], limit: 20 }, admin)).items.length;
      a.push(ms(start));
      start = process.hrtime.bigint();
      await search.search({ q, objects: ['case_file'], limit: 20 }, member);
      m.push(ms(start));
    }
    latency[name] = { admin: median(a), member: median(m), hits };
  }

  const updates = Math.min(500, records);
  let start = process.hrtime.bigint();
  for (let i = 0; i < updates; i++) await engine().update('case_file', ids[i]!, { code: `c${i}` }, {}, member);
  const unsearchableUpdateMs = ms(start) / updates;
  start = process.hrtime.bigint();
  for (let i = 0; i < updates; i++) await engine().update('case_file', ids[i]!, { notes: text(20, 60) }, {}, member);
  const searchableUpdateMs = ms(start) / updates;

  const size = await indexBytes(rt);
  await rt.close();
  // A start without the check, then one with it: the difference is what the check costs.
  start = process.hrtime.bigint();
  rt = await boot(false);
  const restartWithoutCheckMs = ms(start);
  await rt.close();
  start = process.hrtime.bigint();
  rt = await boot();
  const restartMs = ms(start);

  const summary = {
    driver, records, at: new Date().toISOString(),
    indexBytes: size, indexTotalBytes: Object.values(size).reduce((a, b) => a + b, 0),
    seedMsPerRecord: seedMs / records,
    searchMedianMs: latency,
    updateMs: { unsearchable: unsearchableUpdateMs, searchable: searchableUpdateMs },
    restartMs: { withCheck: restartMs, withoutCheck: restartWithoutCheckMs },
  };
  console.log(JSON.stringify(summary, null, 2));
  mkdirSync('bench/results', { recursive: true });
  writeFileSync(`bench/results/search-${driver}-${summary.at.replace(/[:.]/g, '-')}.json`, `${JSON.stringify(summary, null, 2)}\n`);
} finally {
  await rt.close();
  rmSync(dataDir, { recursive: true, force: true });
  if (driver === 'postgres' && !process.env.KEEP_SCHEMA) {
    const client = new pg.Client({ connectionString: POSTGRES_URL });
    await client.connect();
    await client.query(`drop schema if exists "${schema}" cascade`);
    await client.end();
  }
}
