/**
 * An import of 5,000 `bench_item` rows inside one process, through the HTTP stack without a socket
 * (`inject`, an admin-free runtime as the bench's), against the baseline's import (its store's
 * `importRows` after parsing the JSON body, as bench/servers/ runs it), taking turns on the same
 * growing table. Run: node --import tsx bench/importCost.ts [sqlite|postgres] [imports per side]
 * (the runtime from its compiled tree, built first when stale). Prints the median wall and CPU
 * milliseconds per import of each side. With --cpu-prof, a profile of many runtime imports.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildCompiled, staleness } from '../bin/buildCompiled.js';
import { BENCH_APP_DIR, BENCH_OBJECT, createBody, REPO_ROOT } from './benchObject.ts';
import { createDatabaseTarget, type BenchDriver } from './databaseTarget.ts';
import { postgresStore } from './servers/baselinePostgres.ts';
import { sqliteStore } from './servers/baselineSqlite.ts';
import type { BaselineStore, Row } from './servers/baselineStore.ts';

const driver = (process.argv[2] ?? 'sqlite') as BenchDriver;
const imports = Number(process.argv[3] ?? 15);
if (staleness(REPO_ROOT) !== null) await buildCompiled(REPO_ROOT);
const tree = join(REPO_ROOT, 'dist');
const { createRuntime } = (await import(pathToFileURL(join(tree, 'runtime/createRuntime.js')).href)) as typeof import('../runtime/createRuntime.ts');
const { silentLogger } = (await import(pathToFileURL(join(tree, 'kernel/logger.js')).href)) as typeof import('../kernel/logger.ts');
const target = await createDatabaseTarget(driver);
const runtime = await createRuntime({
  inline: { ...target.runtimeConfig, apps: [BENCH_APP_DIR], api: { requireAuth: false }, server: { listen: false, logRequests: false }, auth: { secret: 'bench-secret-0123456789-0123456789-abcdef' } },
  env: {}, logger: silentLogger(),
});
await runtime.start();
const payload = JSON.stringify({ format: 'json', rows: Array.from({ length: 5000 }, (_, i) => createBody(i)) });

// The baseline's own store (bench/servers/): its import is the one the bench's baseline server runs.
const store: BaselineStore = driver === 'sqlite' ? sqliteStore(target.file!) : postgresStore(target.url, target.schema!);
const bare = {
  run: async () => void (await store.importRows((JSON.parse(payload) as { rows: Row[] }).rows)),
  close: () => store.close(),
};

async function timed(run: () => Promise<void>): Promise<{ ms: number; cpu: number }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await run();
  const used = process.cpuUsage(cpu);
  return { ms: performance.now() - started, cpu: (used.user + used.system) / 1000 };
}
const sides: Record<string, () => Promise<void>> = {
  runtime: async () => {
    const res = await runtime.http().inject({ method: 'POST', url: `/api/v1/data/${BENCH_OBJECT}/import`, headers: { 'content-type': 'application/json' }, payload });
    if (res.statusCode !== 200) throw new Error(`import answered ${res.statusCode}: ${res.body.slice(0, 300)}`);
  },
  bare: () => bare.run(),
};
const results: Record<string, Array<{ ms: number; cpu: number }>> = { runtime: [], bare: [] };
for (const run of Object.values(sides)) await run(); // warm-up
for (let i = 0; i < imports; i++) {
  for (const [name, run] of Object.entries(sides)) results[name]!.push(await timed(run));
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const rt = { ms: median(results.runtime!.map((r) => r.ms)), cpu: median(results.runtime!.map((r) => r.cpu)) };
const bl = { ms: median(results.bare!.map((r) => r.ms)), cpu: median(results.bare!.map((r) => r.cpu)) };
console.log(`${driver} import of 5,000 rows: runtime ${rt.ms.toFixed(0)} ms (CPU ${rt.cpu.toFixed(0)}), bare ${bl.ms.toFixed(0)} ms (CPU ${bl.cpu.toFixed(0)}): ${(100 * bl.ms / rt.ms).toFixed(0)}% by time, ${(100 * bl.cpu / rt.cpu).toFixed(0)}% by CPU`);
await bare.close();
await runtime.stop();
await target.dispose();
