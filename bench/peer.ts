/**
 * The runtime against a peer product on the same machine, in the same run: `node --import tsx
 * bench/peer.ts --peer directus`. Directus is installed from the npm registry (bench/peerDirectus.ts,
 * cached between runs), both servers get the same object (bench/app/objects/peer_item.json: the same
 * columns, single-column indexes on status, priority and due_date) and the same rows
 * (bench/peerSeed.ts), on SQLite and on PostgreSQL, and the scenarios of bench/peerScenarios.ts run
 * against both with autocannon in alternating rounds (as bench/run.ts does against its baseline).
 * Writes bench/results/peer-directus-<time>.json and prints the table bench/README.md quotes.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import Sqlite from 'better-sqlite3';
import { buildCompiled, staleness } from '../bin/buildCompiled.js';
import { BENCH_APP_DIR, REPO_ROOT } from './benchObject.ts';
import { BENCH_ADMIN } from './benchUsers.ts';
import { BENCH_POSTGRES_URL, createDatabaseTarget, type BenchDriver, type DatabaseTarget } from './databaseTarget.ts';
import { DIRECTUS_TOKEN, directusCall, directusDatabase, directusEnv, freePort, installDirectus, startDirectus } from './peerDirectus.ts';
import { PEER_SCENARIOS } from './peerScenarios.ts';
import { MIX_KINDS, setMixSeed } from './peerMix.ts';
import { PEER_OBJECT, seedPeer, seedRuntime } from './peerSeed.ts';
import { combineRounds, runLoad, type LoadResult } from './runLoad.ts';
import type { RunContext, Scenario } from './scenarios.ts';
import { spawnServer, type ServerProcess } from './spawnServer.ts';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const log = (line: string) => console.log(line);

const { values: args } = parseArgs({
  options: {
    peer: { type: 'string', default: 'directus' },
    driver: { type: 'string', default: 'both' },
    rows: { type: 'string', default: '100000' },
    duration: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '4' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '16' },
    scenario: { type: 'string' },
    'no-auto-index': { type: 'boolean', default: false },
    seed: { type: 'string', default: '38' },
    workers: { type: 'string', default: '1' },
    /** Write V8 CPU profiles of the runtime's process into a temporary directory (bench/profileSummary.ts reads them). */
    profile: { type: 'boolean', default: false },
  },
});
setMixSeed(Number(args.seed));
/** Runtime processes (osr start --workers N, bench/servers/runtimeCluster.js); 1: one process, as before. */
const workers = Number(args.workers);
const runtimeEntry = workers > 1 ? 'servers/runtimeCluster.js' : 'servers/runtimeServer.js';
const profileDir = args.profile ? mkdtempSync(join(tmpdir(), 'osr-peer-profiles-')) : undefined;
const runtimeEnv = { ...(workers > 1 ? { env: { OSR_BENCH_WORKERS: String(workers) } } : {}), ...(profileDir ? { profileDir } : {}) };
if (profileDir) log(`CPU profiles of the runtime go to ${profileDir}`);
if (args.peer !== 'directus') throw new Error(`--peer: only 'directus' is known, not '${args.peer}'`);
const drivers: BenchDriver[] = args.driver === 'both' ? ['sqlite', 'postgres'] : [args.driver as BenchDriver];
const rows = Number(args.rows);
const load = { duration: Number(args.duration), connections: Number(args.connections), warmup: Number(args.warmup) };
const rounds = Number(args.rounds);
const wanted = PEER_SCENARIOS.filter((s) => !args.scenario || args.scenario.split(',').includes(s.name));

interface Row { scenario: string; runtime: LoadResult; peer: LoadResult; ratio: number; cpuRatio: number | null }

function runtimeConfig(target: DatabaseTarget, autoIndex: boolean): Record<string, unknown> {
  return {
    apps: [BENCH_APP_DIR], ...target.runtimeConfig,
    server: { port: 0, host: '127.0.0.1', logRequests: false },
    auth: { secret: 'bench-secret-0123456789-0123456789-abcdef', admin: BENCH_ADMIN },
    log: { level: 'warn' },
    ...(autoIndex ? { plugins: { data: { autoIndex: true } } } : {}),
  };
}

async function signIn(url: string): Promise<Record<string, string>> {
  const res = await fetch(`${url}/api/v1/auth/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json', origin: url }, body: JSON.stringify(BENCH_ADMIN) });
  const body = (await res.json()) as { token?: string };
  if (!res.ok || typeof body.token !== 'string') throw new Error(`runtime sign-in answered ${res.status}`);
  return { authorization: `Bearer ${body.token}` };
}

async function measure(scenario: Scenario, runtime: ServerProcess, peer: ServerProcess, contexts: Record<'runtime' | 'baseline', Omit<RunContext, 'claim'>>): Promise<Row> {
  const results: Record<'runtime' | 'baseline', LoadResult[]> = { runtime: [], baseline: [] };
  for (let i = 0; i < rounds; i++) {
    for (const side of i % 2 === 0 ? (['runtime', 'baseline'] as const) : (['baseline', 'runtime'] as const)) {
      results[side].push(await runLoad(side === 'runtime' ? runtime : peer, scenario, side, contexts[side], { ...load, duration: load.duration / rounds, warmup: i === 0 ? load.warmup : 0 }));
    }
  }
  const [r, p] = [combineRounds(results.runtime), combineRounds(results.baseline)];
  const ratio = p.reqPerSec > 0 ? Math.round((r.reqPerSec / p.reqPerSec) * 1000) / 1000 : 0;
  const cpuRatio = r.cpuMsPerRequest && p.cpuMsPerRequest ? Math.round((p.cpuMsPerRequest / r.cpuMsPerRequest) * 1000) / 1000 : null;
  const failed = r.non2xx + r.errors + p.non2xx + p.errors;
  log(`  ${scenario.name.padEnd(16)} runtime ${String(r.reqPerSec).padStart(8)} req/s p99 ${r.p99Ms} ms | directus ${String(p.reqPerSec).padStart(8)} req/s p99 ${p.p99Ms} ms | ratio ${Math.round(ratio * 100)}% (CPU ${cpuRatio === null ? '-' : `${Math.round(cpuRatio * 100)}%`})${failed > 0 ? ` | failures runtime ${JSON.stringify(r.failedStatuses)} ${r.errors} directus ${JSON.stringify(p.failedStatuses)} ${p.errors}` : ''}`);
  if (r.kinds && p.kinds) {
    for (const kind of MIX_KINDS) {
      const [rk, pk] = [r.kinds[kind], p.kinds[kind]];
      if (rk && pk) log(`    ${kind.padEnd(7)} runtime p50 ${rk.p50Ms} ms p99 ${rk.p99Ms} ms (${rk.requests}, ${rk.non2xx} not 2xx) | directus p50 ${pk.p50Ms} ms p99 ${pk.p99Ms} ms (${pk.requests}, ${pk.non2xx} not 2xx)`);
    }
  }
  log(`    CPU per request: runtime ${String(r.cpuMsPerRequest)} ms, directus ${String(p.cpuMsPerRequest)} ms; peak RSS runtime ${String(r.peakRssMb)} MB${workers > 1 ? ' (largest worker)' : ''}, directus ${String(p.peakRssMb)} MB; all 2xx: ${failed === 0 ? 'yes' : 'no'}`);
  return { scenario: scenario.name, runtime: r, peer: p, ratio, cpuRatio };
}

/** The filtered-sorted page on both sides, compared by what the order is defined on (ids differ). */
async function samePage(runtime: string, runtimeHeaders: Record<string, string>, peer: string): Promise<void> {
  const [r, p] = await Promise.all([
    fetch(`${runtime}/api/v1/data/${PEER_OBJECT}?where=${encodeURIComponent(JSON.stringify({ status: 'open', priority: { $gte: 4 } }))}&orderBy=-priority,due_date&limit=50`, { headers: runtimeHeaders }).then((res) => res.json()) as Promise<{ items: Array<Record<string, unknown>>; total: number }>,
    directusCall(peer, 'GET', `/items/${PEER_OBJECT}?filter[status][_eq]=open&filter[priority][_gte]=4&sort=-priority,due_date&limit=50&meta=filter_count`) as Promise<{ data: Array<Record<string, unknown>>; meta: { filter_count: number } }>,
  ]);
  const keys = (items: Array<Record<string, unknown>>) => items.map((i) => `${String(i.priority)}|${String(i.due_date).slice(0, 10)}|${String(i.status)}`).join(',');
  if (keys(r.items) !== keys(p.data) || r.total !== Number(p.meta.filter_count)) throw new Error(`the two servers answer the filtered page differently: ${r.total} / ${String(p.meta.filter_count)} rows`);
  log(`  same filtered page on both (${r.total} matching rows)`);
}

async function autoIndexBuilt(target: DatabaseTarget): Promise<string[]> {
  if (target.driver === 'sqlite') {
    const db = new Sqlite(target.file!, { readonly: true });
    try {
      return (db.prepare(`select name from sqlite_master where type = 'index' and tbl_name = '${PEER_OBJECT}' and name like 'osr_auto_%'`).all() as Array<{ name: string }>).map((r) => r.name);
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: target.url });
  await client.connect();
  try {
    return (await client.query(`select indexname as name from pg_indexes where schemaname = $1 and tablename = $2 and indexname like 'osr_auto_%'`, [target.schema, PEER_OBJECT])).rows.map((r: { name: string }) => r.name);
  } finally {
    await client.end();
  }
}

async function runDriver(driver: BenchDriver, install: ReturnType<typeof installDirectus>): Promise<{ rows: Row[]; autoIndex?: Row & { indexes: string[] } }> {
  const target = await createDatabaseTarget(driver);
  const dir = mkdtempSync(join(tmpdir(), 'osr-bench-directus-'));
  const database = await directusDatabase(driver, dir, BENCH_POSTGRES_URL);
  const servers: ServerProcess[] = [];
  try {
    log(`[${driver}] load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}; seeding ${rows} rows into the runtime's ${PEER_OBJECT}`);
    const runtimeIds = await seedRuntime(target, rows);
    const env = directusEnv(database.env, dir, await freePort());
    log(`[${driver}] bootstrapping directus ${install.version}`);
    const peer = await startDirectus(install, env, dir, log);
    servers.push(peer);
    await directusCall(peer.url, 'POST', '/collections', {
      collection: PEER_OBJECT, meta: { icon: 'box' }, schema: {},
      fields: [
        { field: 'id', type: 'uuid', meta: { special: ['uuid'], hidden: true }, schema: { is_primary_key: true, is_nullable: false } },
        { field: 'title', type: 'string', schema: { max_length: 200, is_nullable: false } },
        { field: 'status', type: 'string', schema: { max_length: 20, is_nullable: false } },
        { field: 'priority', type: 'integer', schema: {} },
        { field: 'due_date', type: 'date', schema: {} },
        { field: 'amount', type: 'float', schema: {} },
        { field: 'notes', type: 'text', schema: {} },
      ],
    });
    log(`[${driver}] seeding ${rows} rows into directus's ${PEER_OBJECT}`);
    const peerUrl = new URL(BENCH_POSTGRES_URL);
    peerUrl.pathname = `/${database.env.DB_DATABASE ?? ''}`;
    const peerIds = await seedPeer(driver === 'sqlite' ? { driver, file: database.env.DB_FILENAME! } : { driver, url: peerUrl.toString() }, rows);
    const counted = (await directusCall(peer.url, 'GET', `/items/${PEER_OBJECT}?aggregate[count]=*`)) as { data: Array<{ count: number | string }> };
    if (Number(counted.data[0]?.count) !== rows) throw new Error(`directus counts ${String(counted.data[0]?.count)} rows, not ${rows}`);
    const pool = (ids: string[]) => Array.from({ length: Math.min(1000, ids.length) }, (_, i) => ids[(i * 7919) % ids.length]!);
    const contexts = (runtimeHeaders: Record<string, string>) => {
      const base = { updateIds: [], users: { adminHeaders: {}, memberHeaders: {} }, memberIds: [], seededRows: rows };
      return { runtime: { ...base, ids: pool(runtimeIds), runtimeHeaders }, baseline: { ...base, ids: pool(peerIds), runtimeHeaders: { authorization: `Bearer ${DIRECTUS_TOKEN}` } } };
    };

    let runtime = await spawnServer(`runtime-${driver}`, join(HERE, runtimeEntry), runtimeConfig(target, false), runtimeEnv);
    servers.push(runtime);
    let headers = await signIn(runtime.url);
    await samePage(runtime.url, headers, peer.url);
    const measured: Row[] = [];
    for (const scenario of wanted) measured.push(await measure(scenario, runtime, peer, contexts(headers)));
    let autoIndex: (Row & { indexes: string[] }) | undefined;
    const filtered = wanted.find((s) => s.name === 'filtered-sorted');
    if (!args['no-auto-index'] && filtered) {
      await runtime.stop();
      runtime = await spawnServer(`runtime-${driver}-autoindex`, join(HERE, 'servers/runtimeServer.js'), runtimeConfig(target, true));
      servers.push(runtime);
      headers = await signIn(runtime.url);
      // The first slow read of the shape builds its index (plugins.data.slowQueryMs, default 50 ms).
      // Reads come as the load sends them, as many at once as its connections: alone, a page that
      // PostgreSQL answers in about 11 ms never takes 50.
      const page = `${runtime.url}/api/v1/data/${PEER_OBJECT}?where=${encodeURIComponent(JSON.stringify({ status: 'open', priority: { $gte: 4 } }))}&orderBy=-priority,due_date&limit=50`;
      for (let i = 0; i < 20 && (await autoIndexBuilt(target)).length === 0; i++) {
        await Promise.all(Array.from({ length: load.connections }, () => fetch(page, { headers }).then((res) => res.arrayBuffer())));
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      const indexes = await autoIndexBuilt(target);
      log(`[${driver}] autoIndex on: ${indexes.length > 0 ? `built ${indexes.join(', ')}` : 'no index built (no read was slow enough)'}`);
      const row = await measure({ ...filtered, name: 'filtered-sorted (autoIndex)' }, runtime, peer, contexts(headers));
      // An index built while the line was measured (its reads under load were slow) makes the line a mix of both.
      const after = await autoIndexBuilt(target);
      if (after.length !== indexes.length) log(`[${driver}] autoIndex built ${after.filter((name) => !indexes.includes(name)).join(', ')} while the line was measured: it mixes rounds without and with it`);
      autoIndex = { ...row, indexes: after };
    }
    return { rows: measured, ...(autoIndex ? { autoIndex } : {}) };
  } finally {
    for (const server of servers.reverse()) await server.stop().catch(() => undefined);
    await database.dispose().catch((error: unknown) => log(`[${driver}] could not drop directus's database: ${(error as Error).message}`));
    await target.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}

function table(results: Record<string, { rows: Row[]; autoIndex?: Row }>): string {
  const names = [...new Set(Object.values(results).flatMap((r) => [...r.rows, ...(r.autoIndex ? [r.autoIndex] : [])].map((row) => row.scenario)))];
  const cell = (row: Row | undefined) => (row
    ? `${Math.round(row.runtime.reqPerSec).toLocaleString('en-US')} / ${Math.round(row.peer.reqPerSec).toLocaleString('en-US')} | ${Math.round(row.ratio * 100)}% (${row.cpuRatio === null ? '-' : `${Math.round(row.cpuRatio * 100)}%`})`
    : '- | -');
  const lines = ['| scenario | SQLite runtime / Directus req/s | ratio (CPU ratio) | PostgreSQL runtime / Directus req/s | ratio (CPU ratio) |', '|---|---:|---:|---:|---:|'];
  for (const name of names) {
    const find = (driver: string) => [...(results[driver]?.rows ?? []), ...(results[driver]?.autoIndex ? [results[driver]!.autoIndex!] : [])].find((r) => r.scenario === name);
    lines.push(`| ${name} | ${cell(find('sqlite'))} | ${cell(find('postgres'))} |`);
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const startedAt = new Date().toISOString();
  const stale = staleness(REPO_ROOT);
  if (stale !== null) {
    log(`compiling the runtime (${stale})`);
    await buildCompiled(REPO_ROOT);
  }
  const install = installDirectus(log);
  const results: Record<string, { rows: Row[]; autoIndex?: Row & { indexes: string[] } }> = {};
  for (const driver of drivers) results[driver] = await runDriver(driver, install);
  const machine = { node: process.version, peerNode: 'v22.23.3', platform: `${process.platform}-${process.arch}`, cpus: cpus().length, cpuModel: cpus()[0]?.model.trim() ?? 'unknown', loadAverage: loadavg().map((l) => Math.round(l * 10) / 10) };
  const report = { startedAt, finishedAt: new Date().toISOString(), peer: { name: 'directus', version: install.version }, machine, options: { rows, ...load, rounds, seed: Number(args.seed), workers }, results };
  mkdirSync(join(HERE, 'results'), { recursive: true });
  const file = join(HERE, 'results', `peer-directus-${startedAt.replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, JSON.stringify(report, null, 2) + '\n');
  console.log(`\n${table(results)}\n\nmachine: ${JSON.stringify(machine)}\nwritten: ${file}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
