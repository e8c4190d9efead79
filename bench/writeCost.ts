/**
 * CPU per write inside one process, without HTTP: `engine.create` and `engine.update` of
 * `bench_item` (16 in flight, as the bench's connections), against the bare statement the
 * baseline runs (an insert or versioned update with `returning *`, prepared once), taking turns.
 * Run: node --import tsx bench/writeCost.ts [sqlite|postgres] [writes per round] [rounds] [--compare REV]
 * (the runtime from its compiled tree, built first when stale; with --compare, revision REV's).
 * Prints the median CPU µs per write of each side and their ratio.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Sqlite from 'better-sqlite3';
import pg from 'pg';
import { buildCompiled, staleness } from '../bin/buildCompiled.js';
import type { DataContext, DataEngine } from '../capabilities/dataEngine.ts';
import { BENCH_APP_DIR, BENCH_OBJECT, createBody, REPO_ROOT } from './benchObject.ts';
import { compareTree } from './compareTree.ts';
import { createDatabaseTarget, type BenchDriver } from './databaseTarget.ts';

const driver = (process.argv[2] ?? 'sqlite') as BenchDriver;
const perRound = Number(process.argv[3] ?? 2000);
const rounds = Number(process.argv[4] ?? 7);
const inFlight = 16;

// The runtime from its compiled tree, as `osr start` runs it (tsx adds a name helper to every closure):
// this tree's dist/, or with --compare REV that revision's (compareTree.ts).
const compared = process.argv.indexOf('--compare');
const tree = compared > 0 ? (await compareTree(process.argv[compared + 1]!, console.log)).dist : join(REPO_ROOT, 'dist');
if (compared < 0 && staleness(REPO_ROOT) !== null) await buildCompiled(REPO_ROOT);
const { createRuntime } = (await import(pathToFileURL(join(tree, 'runtime/createRuntime.js')).href)) as typeof import('../runtime/createRuntime.ts');
const { silentLogger } = (await import(pathToFileURL(join(tree, 'kernel/logger.js')).href)) as typeof import('../kernel/logger.ts');
const target = await createDatabaseTarget(driver);
const runtime = await createRuntime({
  inline: { ...target.runtimeConfig, apps: [BENCH_APP_DIR], server: { listen: false, logRequests: false }, auth: { secret: 'bench-secret-0123456789-0123456789-abcdef' } },
  env: {}, logger: silentLogger(),
});
await runtime.start();
const engine = runtime.kernel.service<DataEngine>('data.engine')!;
const ctx: DataContext = { environmentId: target.environmentId, principal: null };
await engine.query(BENCH_OBJECT, { limit: 1 }, ctx);

const table = target.schema ? `"${target.schema}"."${BENCH_OBJECT}"` : BENCH_OBJECT;
const columns = ['name', 'status', 'amount', 'score', 'quantity', 'active', 'due_date', 'email', 'tags', 'notes'];
const insertSql = (p: (i: number) => string) => `insert into ${table} (id, version, created_at, updated_at, counter, ${columns.join(', ')}) values (${[...Array(columns.length + 5).keys()].map(p).join(', ')}) returning *`;
const updateSql = (p: (i: number) => string) => `update ${table} set counter = ${p(0)}, version = version + 1, updated_at = ${p(1)} where id = ${p(2)} and version = ${p(3)} returning *`;
const values = (n: number) => {
  const body = createBody(n);
  const now = new Date().toISOString();
  return [randomUUID(), 1, now, now, 0, ...columns.map((c) => (c === 'tags' ? JSON.stringify(body[c]) : typeof body[c] === 'boolean' ? (driver === 'sqlite' ? 1 : true) : body[c]))];
};

interface Bare { insert(n: number): Promise<unknown>; update(id: string, version: number, counter: number): Promise<number>; close(): Promise<void> }
async function bare(): Promise<Bare> {
  if (driver === 'sqlite') {
    const db = new Sqlite(target.file!);
    const insert = db.prepare(insertSql(() => '?'));
    const update = db.prepare(updateSql(() => '?'));
    return {
      // Read to the end (`all`): SQLite checkpoints its WAL when a statement completes, not after a `get`.
      insert: async (n) => insert.all(values(n))[0],
      update: async (id, version, counter) => Number((update.all(counter, new Date().toISOString(), id, version) as Array<{ version: number }>)[0]!.version),
      close: async () => void db.close(),
    };
  }
  const pool = new pg.Pool({ connectionString: target.url, max: 10 });
  return {
    insert: (n) => pool.query({ name: 'bare-insert', text: insertSql((i) => `$${i + 1}`), values: values(n) }),
    update: async (id, version, counter) => Number((await pool.query({ name: 'bare-update', text: updateSql((i) => `$${i + 1}`), values: [counter, new Date().toISOString(), id, version] })).rows[0].version),
    close: () => pool.end(),
  };
}
const baseline = await bare();

/** Runs `count` calls of `op`, `inFlight` at a time; answers CPU µs per call. */
async function measure(count: number, op: (lane: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const start = process.cpuUsage();
  await Promise.all(Array.from({ length: inFlight }, async (_, lane) => {
    while (next++ < count) await op(lane);
  }));
  const used = process.cpuUsage(start);
  return (used.user + used.system) / count;
}

// Each of the 16 lanes updates a record of its own, as the bench's connections do.
const owned = await Promise.all(Array.from({ length: inFlight }, async (_, i) => engine.create(BENCH_OBJECT, createBody(1_000_000 + i), ctx)));
const versions = owned.map((r) => Number(r.version));
const bareOwned = await Promise.all(Array.from({ length: inFlight }, async (_, i) => engine.create(BENCH_OBJECT, createBody(2_000_000 + i), ctx)));
const bareVersions = bareOwned.map((r) => Number(r.version));

let n = 0;
const sides = {
  'create runtime': () => measure(perRound, () => engine.create(BENCH_OBJECT, createBody(n++), ctx)),
  'create bare': () => measure(perRound, () => baseline.insert(n++)),
  'update runtime': () => {
    return measure(perRound, async (l) => {
      const version = versions[l]!;
      versions[l] = version + 1;
      const record = await engine.update(BENCH_OBJECT, String(owned[l]!.id), { counter: version }, { expectedVersion: version }, ctx);
      versions[l] = Number(record.version);
    });
  },
  'update bare': () => {
    return measure(perRound, async (l) => {
      const version = bareVersions[l]!;
      bareVersions[l] = version + 1;
      bareVersions[l] = await baseline.update(String(bareOwned[l]!.id), version, version);
    });
  },
};
const results: Record<string, number[]> = {};
for (const run of Object.values(sides)) await run(); // warm-up
for (let r = 0; r < rounds; r++) {
  for (const [name, run] of Object.entries(sides)) (results[name] ??= []).push(await run());
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (const op of ['create', 'update']) {
  const rt = median(results[`${op} runtime`]!);
  const bl = median(results[`${op} bare`]!);
  console.log(`${driver} ${op}: runtime ${rt.toFixed(0)} µs, bare ${bl.toFixed(0)} µs of CPU per write (bare/runtime ${(100 * bl / rt).toFixed(0)}%)`);
}
await baseline.close();
await runtime.stop();
await target.dispose();
