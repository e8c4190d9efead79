/**
 * npm run bench: seeds the bench object, then runs every scenario against the runtime and against
 * a hand-written baseline on the same database, each server in its own child process, the load
 * generated here. Writes a dated JSON file per run to bench/results/, and for a full run also
 * latest.json and summary.md.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseBenchArgs, USAGE, type BenchArgs } from './benchArgs.ts';
import { BENCH_APP_DIR, randomSource, REPO_ROOT } from './benchObject.ts';
import { buildCompiled, staleness } from '../bin/buildCompiled.js';
import { measureBoot } from './bootTime.ts';
import { BENCH_ADMIN, prepareBenchUsers, type BenchUsers } from './benchUsers.ts';
import { postgresProblem } from '../test/harness/postgresProblem.ts';
import { BENCH_POSTGRES_URL, createDatabaseTarget, type BenchDriver, type DatabaseTarget } from './databaseTarget.ts';
import { checkTargets, summaryMarkdown, type BenchReport, type DriverResult, type ScenarioResult } from './report.ts';
import { combineRounds, runLoad, runTimed, type LoadResult } from './runLoad.ts';
import { SCENARIOS, type Scenario, type Target } from './scenarios.ts';
import { compareTree, type CompareTree } from './compareTree.ts';
import { seed } from './seed.ts';
import { spawnServer, type ServerProcess } from './spawnServer.ts';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const RESULTS = join(HERE, 'results');
const log = (line: string) => console.log(line);

function runtimeConfig(target: DatabaseTarget, args: Pick<BenchArgs, 'readers' | 'pageCacheMb'>): Record<string, unknown> {
  const data = { ...(args.readers !== null ? { readers: args.readers } : {}), ...(args.pageCacheMb !== null ? { pageCacheMb: args.pageCacheMb } : {}) };
  return {
    apps: [BENCH_APP_DIR],
    ...target.runtimeConfig,
    ...(Object.keys(data).length > 0 ? { plugins: { data } } : {}),
    server: { port: 0, host: '127.0.0.1', logRequests: false },
    // Anonymous requests are served (as engine reads without a user) for the scenarios measured
    // against the baseline; the signed-in scenarios send the bearer tokens of bench/benchUsers.ts.
    api: { requireAuth: false },
    auth: { secret: 'bench-secret-0123456789-0123456789-abcdef', admin: BENCH_ADMIN },
    log: { level: 'warn' },
  };
}

type Servers = Record<'runtime' | 'baseline', ServerProcess>;

interface Pools {
  ids: string[];
  updateIds: string[];
  memberIds: string[];
  users: BenchUsers;
}

async function runScenario(scenario: Scenario, servers: Servers, pools: Pools, args: BenchArgs): Promise<ScenarioResult> {
  const base = { name: scenario.name, description: scenario.description, ...(scenario.against === 'admin' ? { against: 'admin' as const } : {}) };
  if (scenario.pending || !(scenario.connection || scenario.timed)) return { ...base, status: 'pending', reason: scenario.pending ?? 'not implemented' };
  const context = { ...pools, runtimeHeaders: {}, seededRows: args.rows };
  const options = { duration: args.duration, connections: args.connections, warmup: args.warmup };
  // Against the admin, both sides are the runtime; `baseline` then stands for the admin's requests.
  // Compared with a revision (--compare), both sides send the runtime's requests (a row-policy
  // scenario: the member's), the baseline's side to the revision's runtime.
  const against = args.compare === null && scenario.against === 'admin';
  const server = (target: Target) => servers[against ? 'runtime' : target];
  const requests = (target: Target): Target => (args.compare === null ? target : 'runtime');
  try {
    // Both sides share one server here: warm the admin's path too, so the side measured first
    // does not pay for warming the code both use.
    if (against && !scenario.timed) await runLoad(server('baseline'), scenario, 'baseline', context, { ...options, duration: Math.max(1, options.warmup), warmup: 0 });
    const { runtime, baseline } = scenario.timed
      ? { runtime: await runTimed(server('runtime'), scenario, 'runtime', context, options.warmup > 0), baseline: await runTimed(server('baseline'), scenario, requests('baseline'), context, options.warmup > 0) }
      : await alternate((target, round) => runLoad(server(target), scenario, requests(target), context, { ...options, duration: options.duration / args.rounds, warmup: round === 0 ? options.warmup : 0 }), args.rounds);
    const ratio = baseline.reqPerSec > 0 ? Math.round((runtime.reqPerSec / baseline.reqPerSec) * 1000) / 1000 : 0;
    const cpuRatio = runtime.cpuMsPerRequest && baseline.cpuMsPerRequest ? Math.round((baseline.cpuMsPerRequest / runtime.cpuMsPerRequest) * 1000) / 1000 : undefined;
    const speed = (r: typeof runtime) => (scenario.timed ? `${String(r.p50Ms).padStart(6)} ms (${r.rowsPerSec} rows/s)` : `${String(r.reqPerSec).padStart(8)} req/s p99 ${r.p99Ms} ms`);
    const [left, right] = args.compare !== null ? ['runtime', args.compare] : against ? ['policy user', 'admin'] : ['runtime', 'baseline'];
    log(`  ${scenario.name.padEnd(18)} ${left} ${speed(runtime)} | ${right} ${speed(baseline)} | ratio ${Math.round(ratio * 100)}% (CPU ${cpuRatio === undefined ? '-' : `${Math.round(cpuRatio * 100)}%`})` +
      (runtime.non2xx + runtime.errors + baseline.non2xx + baseline.errors > 0
        ? ` | errors rt ${runtime.errors} ${JSON.stringify(runtime.failedStatuses)} bl ${baseline.errors} ${JSON.stringify(baseline.failedStatuses)}` : ''));
    return { ...base, status: 'ok', runtime, baseline, ratio, ...(cpuRatio === undefined ? {} : { cpuRatio }) };
  } catch (error) {
    log(`  ${scenario.name}: failed: ${(error as Error).message}`);
    return { ...base, status: 'failed', reason: (error as Error).message };
  }
}

/**
 * Both sides in alternating rounds, in the order runtime, baseline, baseline, runtime, ...: a
 * machine that slows down or speeds up during a scenario weighs on both sides alike.
 */
async function alternate(run: (target: 'runtime' | 'baseline', round: number) => Promise<LoadResult>, rounds: number): Promise<Record<'runtime' | 'baseline', LoadResult>> {
  const results: Record<'runtime' | 'baseline', LoadResult[]> = { runtime: [], baseline: [] };
  for (let i = 0; i < rounds; i++) {
    const order = i % 2 === 0 ? (['runtime', 'baseline'] as const) : (['baseline', 'runtime'] as const);
    for (const target of order) results[target].push(await run(target, i));
  }
  return { runtime: combineRounds(results.runtime), baseline: combineRounds(results.baseline) };
}

async function runDriver(driver: BenchDriver, args: BenchArgs, profileDir: string | null, compared: CompareTree | null): Promise<DriverResult> {
  const result: DriverResult = { scenarios: [] };
  const wanted = SCENARIOS.filter((s) => args.scenarios === null || args.scenarios.includes(s.name));
  const target = await createDatabaseTarget(driver);
  try {
    if (wanted.length > 0) {
      log(`[${driver}] seeding ${args.rows} rows`);
      const seeded = await seed(target, args.rows, log);
      result.seed = { rows: args.rows, seconds: Math.round(seeded.seconds * 10) / 10 };
      log(`[${driver}] seeded in ${result.seed.seconds} s`);
      const random = randomSource(7);
      const updateIds = seeded.ids.slice(0, Math.max(args.connections, 16));
      const readable = seeded.ids.slice(updateIds.length);
      const ids = Array.from({ length: Math.min(1000, readable.length) }, () => readable[Math.floor(random() * readable.length)]!);
      // The member's row policy opens statuses 'open' and 'active': seeded rows i % 4 < 2 (benchValues).
      const visible = readable.filter((_, i) => (i + updateIds.length) % 4 < 2);
      const memberIds = Array.from({ length: Math.min(1000, visible.length) }, () => visible[Math.floor(random() * visible.length)]!);
      const runtime = await spawnServer(`runtime-${driver}`, join(HERE, 'servers/runtimeServer.js'), runtimeConfig(target, args), profileDir ? { profileDir } : {});
      const baseline = compared
        ? await spawnServer(`compared-${driver}`, join(HERE, 'servers/runtimeServer.js'), runtimeConfig(target, args), { ...(profileDir ? { profileDir } : {}), env: { OSR_BENCH_TREE: compared.dist } })
        : await spawnServer(`baseline-${driver}`, join(HERE, 'servers/baselineServer.ts'), { driver, url: target.url, schema: target.schema, file: target.file }, profileDir ? { profileDir } : {});
      try {
        const users = await prepareBenchUsers(runtime.url);
        // The compared runtime serves the same signed-in requests: let its identity engine start too.
        if (compared) await fetch(`${baseline.url}/api/v1/auth/get-session`, { headers: users.adminHeaders });
        log(`[${driver}] signed in the admin and a row-policy member (sees ${users.totals.member} of ${users.totals.admin} rows)`);
        for (const scenario of wanted) result.scenarios.push(await runScenario(scenario, { runtime, baseline }, { ids, updateIds, memberIds, users }, args));
      } finally {
        await Promise.all([runtime.stop(), baseline.stop()]);
      }
    }
    if (compared) {
      if (args.scenarios?.includes('boot')) log(`[${driver}] boot time: not measured against a revision (run --scenario boot on each)`);
    } else if (args.scenarios === null || args.scenarios.includes('boot')) {
      log(`[${driver}] boot time`);
      try {
        result.boot = await measureBoot(target);
        log(`  boot ${result.boot.warmMs} ms (fresh database ${result.boot.freshMs} ms)`);
      } catch (error) {
        result.boot = { error: (error as Error).message };
        log(`  boot failed: ${(error as Error).message}`);
      }
    }
  } finally {
    await target.dispose();
  }
  return result;
}

async function main(): Promise<number> {
  const args = parseBenchArgs(process.argv.slice(2));
  if (args === 'help') {
    console.log(USAGE);
    return 0;
  }
  const unknown = (args.scenarios ?? []).filter((name) => name !== 'boot' && !SCENARIOS.some((s) => s.name === name));
  if (unknown.length > 0 || args.scenarios?.length === 0) {
    console.error(`Unknown scenario '${unknown.join("', '")}'. Scenarios: ${['boot', ...SCENARIOS.map((s) => s.name)].join(', ')}`);
    return 2;
  }
  const startedAt = new Date().toISOString();
  const drivers: BenchDriver[] = [];
  for (const driver of args.drivers) {
    const problem = driver === 'postgres' ? await postgresProblem(BENCH_POSTGRES_URL) : null;
    if (problem === null) drivers.push(driver);
    else if (args.driverExplicit || process.env.CI === 'true') throw new Error(`PostgreSQL is unreachable: ${problem}`);
    else log(`[postgres] skipped: unreachable (${problem})`);
  }
  // The runtime is measured as `osr start` runs it: from the compiled tree, built first if stale.
  const stale = staleness(REPO_ROOT);
  if (stale !== null) {
    log(`compiling the runtime (${stale})`);
    const built = await buildCompiled(REPO_ROOT);
    log(`compiled ${built.modules} modules in ${built.ms} ms`);
  }
  const compared = args.compare === null ? null : await compareTree(args.compare, log);
  const profileDir = args.profile ? mkdtempSync(join(tmpdir(), 'osr-bench-profiles-')) : null;
  const report: BenchReport = {
    startedAt,
    finishedAt: '',
    machine: { node: process.version, platform: `${process.platform}-${process.arch}`, cpus: cpus().length, cpuModel: cpus()[0]?.model.trim() ?? 'unknown' },
    options: { drivers, duration: args.duration, rounds: args.rounds, warmup: args.warmup, connections: args.connections, rows: args.rows, scenarios: args.scenarios },
    drivers: {},
    targets: [],
    ...(compared ? { compare: { rev: args.compare!, commit: compared.commit } } : {}),
  };
  for (const driver of drivers) report.drivers[driver] = await runDriver(driver, args, profileDir, compared);
  report.finishedAt = new Date().toISOString();
  // The targets are written against the baseline: a comparison of two revisions checks none.
  report.targets = compared ? [] : checkTargets(report.drivers);

  mkdirSync(RESULTS, { recursive: true });
  const json = JSON.stringify(report, null, 2) + '\n';
  const summary = summaryMarkdown(report);
  // latest.json and summary.md hold the last full run; a one-scenario run keeps only its dated file.
  const partial = args.scenarios !== null || compared !== null;
  const suffix = (compared ? `-compare-${compared.commit.slice(0, 12)}` : '') + (args.scenarios ? `-${args.scenarios.join('+').replace(/[^a-z0-9+-]+/gi, '_')}` : '');
  writeFileSync(join(RESULTS, `${startedAt.replace(/[:.]/g, '-')}${suffix}.json`), json);
  if (!partial) {
    writeFileSync(join(RESULTS, 'latest.json'), json);
    writeFileSync(join(RESULTS, 'summary.md'), summary);
  }
  console.log(`\n${summary}`);
  if (profileDir) console.log(`CPU profiles: ${profileDir} (summarize: node --import tsx bench/profileSummary.ts ${profileDir}/<file>)`);
  return 0;
}

main().then((code) => {
  process.exitCode = code;
}, (error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
