/**
 * The mix (bench/peerMix.ts) against the runtime alone, as one process and as `osr start --workers N`
 * (bench/servers/runtimeCluster.js), on the same seeded database in the same run, in alternating
 * rounds: `node --import tsx bench/mixWorkers.ts [--driver sqlite|postgres] [--rows 100000]
 * [--workers 2] [--duration 10] [--rounds 2] [--seed 38]`. Prints req/s, CPU per request, p50/p99
 * per kind, peak RSS (the largest worker), the load average, and writes bench/results/mix-workers-<time>.json.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildCompiled, staleness } from '../bin/buildCompiled.js';
import { BENCH_APP_DIR, REPO_ROOT } from './benchObject.ts';
import { BENCH_ADMIN } from './benchUsers.ts';
import { createDatabaseTarget, type BenchDriver } from './databaseTarget.ts';
import { MIX_KINDS, PEER_MIX, setMixSeed } from './peerMix.ts';
import { seedRuntime } from './peerSeed.ts';
import { combineRounds, runLoad, type LoadResult } from './runLoad.ts';
import { spawnServer, type ServerProcess } from './spawnServer.ts';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const { values: args } = parseArgs({
  options: {
    driver: { type: 'string', default: 'sqlite' },
    rows: { type: 'string', default: '100000' },
    workers: { type: 'string', default: '2' },
    duration: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '2' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '16' },
    seed: { type: 'string', default: '38' },
    /** Write V8 CPU profiles of every runtime process into a temporary directory (bench/profileSummary.ts reads them). */
    profile: { type: 'boolean', default: false },
  },
});
const profileDir = args.profile ? mkdtempSync(join(tmpdir(), 'osr-mix-workers-profiles-')) : undefined;
setMixSeed(Number(args.seed));
const load = (n: number) => `${loadavg().map((l) => l.toFixed(1)).join(' ')}${n ? '' : ''}`;

async function boot(count: number, config: Record<string, unknown>): Promise<{ server: ServerProcess; bootMs: number; headers: Record<string, string> }> {
  const started = performance.now();
  const server = await spawnServer(`runtime-w${count}`, join(HERE, count > 1 ? 'servers/runtimeCluster.js' : 'servers/runtimeServer.js'), config, { ...(count > 1 ? { env: { OSR_BENCH_WORKERS: String(count) } } : {}), ...(profileDir ? { profileDir } : {}), readyTimeoutMs: 180_000 });
  const bootMs = Math.round(performance.now() - started);
  const res = await fetch(`${server.url}/api/v1/auth/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json', origin: server.url }, body: JSON.stringify(BENCH_ADMIN) });
  const body = (await res.json()) as { token?: string };
  if (!body.token) throw new Error(`sign-in answered ${res.status}`);
  return { server, bootMs, headers: { authorization: `Bearer ${body.token}` } };
}

async function main(): Promise<void> {
  const stale = staleness(REPO_ROOT);
  if (stale !== null) await buildCompiled(REPO_ROOT);
  const driver = args.driver as BenchDriver;
  const rows = Number(args.rows);
  const workers = Number(args.workers);
  const target = await createDatabaseTarget(driver);
  const servers: ServerProcess[] = [];
  try {
    console.log(`[${driver}] load average ${load(0)}; seeding ${rows} rows`);
    if (profileDir) console.log(`CPU profiles of the runtime go to ${profileDir}`);
    const ids = await seedRuntime(target, rows);
    const pool = Array.from({ length: Math.min(1000, ids.length) }, (_, i) => ids[(i * 7919) % ids.length]!);
    const config = { apps: [BENCH_APP_DIR], ...target.runtimeConfig, server: { port: 0, host: '127.0.0.1', logRequests: false }, auth: { secret: 'bench-secret-0123456789-0123456789-abcdef', admin: BENCH_ADMIN }, log: { level: 'warn' } };
    const one = await boot(1, config);
    servers.push(one.server);
    const many = await boot(workers, config);
    servers.push(many.server);
    console.log(`[${driver}] boot to ready: 1 process ${one.bootMs} ms, ${workers} workers ${many.bootMs} ms (every worker serving)`);
    const base = (headers: Record<string, string>) => ({ ids: pool, updateIds: [], users: { adminHeaders: {}, memberHeaders: {} }, memberIds: [], seededRows: rows, runtimeHeaders: headers });
    const results: Record<'one' | 'many', LoadResult[]> = { one: [], many: [] };
    const rounds = Number(args.rounds);
    const options = { duration: Number(args.duration) / rounds, connections: Number(args.connections) };
    for (let i = 0; i < rounds; i++) {
      for (const side of i % 2 === 0 ? (['one', 'many'] as const) : (['many', 'one'] as const)) {
        const s = side === 'one' ? one : many;
        results[side].push(await runLoad(s.server, PEER_MIX, 'runtime', base(s.headers), { ...options, warmup: i === 0 ? Number(args.warmup) : 0 }));
      }
    }
    const [r1, rN] = [combineRounds(results.one), combineRounds(results.many)];
    for (const [name, r] of [['1 process', r1], [`${workers} workers`, rN]] as const) {
      console.log(`  ${name.padEnd(10)} ${r.reqPerSec} req/s, CPU ${String(r.cpuMsPerRequest)} ms/request (load generator ${String(r.loadCpuMsPerRequest ?? '?')}), p50 ${r.p50Ms} ms p99 ${r.p99Ms} ms, peak RSS ${String(r.peakRssMb)} MB, not 2xx ${r.non2xx + r.errors}`);
      for (const kind of MIX_KINDS) {
        const k = r.kinds?.[kind];
        if (k) console.log(`    ${kind.padEnd(7)} p50 ${k.p50Ms} ms p99 ${k.p99Ms} ms (${k.requests}, ${k.non2xx} not 2xx)`);
      }
    }
    const ratio = r1.reqPerSec > 0 ? Math.round((rN.reqPerSec / r1.reqPerSec) * 100) / 100 : 0;
    console.log(`[${driver}] ${workers} workers / 1 process: ${ratio}x req/s; load average ${load(0)}`);
    mkdirSync(join(HERE, 'results'), { recursive: true });
    const file = join(HERE, 'results', `mix-workers-${driver}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
    writeFileSync(file, JSON.stringify({ driver, rows, workers, seed: Number(args.seed), machine: { cpus: cpus().length, loadAverage: loadavg() }, boot: { one: one.bootMs, many: many.bootMs }, one: r1, many: rN, ratio }, null, 2) + '\n');
    console.log(`written: ${file}`);
  } finally {
    for (const server of servers.reverse()) await server.stop().catch(() => undefined);
    await target.dispose();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
