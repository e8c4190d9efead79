import type { BootResult } from './bootTime.ts';
import type { BenchDriver } from './databaseTarget.ts';
import type { LoadResult } from './runLoad.ts';

export interface ScenarioResult {
  name: string;
  description: string;
  status: 'ok' | 'pending' | 'failed';
  /** 'admin': `runtime` is the row-policy member and `baseline` the admin, both on the runtime. */
  against?: 'admin';
  reason?: string;
  runtime?: LoadResult;
  baseline?: LoadResult;
  /** runtime req/s divided by baseline req/s. */
  ratio?: number;
  /**
   * baseline CPU per request divided by runtime CPU per request: the throughput ratio the two
   * would reach when CPU-bound, steadier than req/s on a machine shared with other work.
   */
  cpuRatio?: number;
}

export interface DriverResult {
  seed?: { rows: number; seconds: number };
  boot?: BootResult | { error: string };
  scenarios: ScenarioResult[];
}

export interface BenchReport {
  startedAt: string;
  finishedAt: string;
  machine: { node: string; platform: string; cpus: number; cpuModel: string };
  options: { drivers: BenchDriver[]; duration: number; rounds?: number; warmup: number; connections: number; rows: number; scenarios?: string[] | null; scenario?: string | null };
  drivers: Partial<Record<BenchDriver, DriverResult>>;
  targets: TargetCheck[];
  /** Set when the baseline's side was the runtime at another revision (--compare). */
  compare?: { rev: string; commit: string };
}

export interface TargetCheck {
  driver: BenchDriver;
  target: string;
  value: string;
  pass: boolean | null;
}

/** The issue's targets, checked against what this run measured (null: not measured or pending). */
export function checkTargets(drivers: BenchReport['drivers']): TargetCheck[] {
  const checks: TargetCheck[] = [];
  for (const [driver, result] of Object.entries(drivers) as Array<[BenchDriver, DriverResult]>) {
    const byName = new Map(result.scenarios.map((s) => [s.name, s]));
    for (const name of ['get-by-id', 'first-page', 'filtered-sorted']) {
      const s = byName.get(name);
      if (s?.ratio !== undefined) {
        const cpu = s.cpuRatio === undefined ? '' : ` (by CPU per request: ${pct(s.cpuRatio)})`;
        checks.push({ driver, target: `${name}: runtime >= 60% of baseline req/s`, value: `${pct(s.ratio)}${cpu}`, pass: s.ratio >= 0.6 });
      }
    }
    const get = byName.get('get-by-id')?.runtime;
    if (get) checks.push({ driver, target: 'get-by-id: p99 < 50 ms at the run\'s connections', value: `${get.p99Ms} ms`, pass: get.p99Ms < 50 });
    const rss = result.scenarios.map((s) => s.runtime?.peakRssMb).filter((v): v is number => typeof v === 'number');
    if (rss.length > 0) checks.push({ driver, target: 'runtime RSS < 250 MB under load', value: `${Math.max(...rss)} MB peak`, pass: Math.max(...rss) < 250 });
    if (result.boot && 'warmMs' in result.boot) {
      checks.push({ driver, target: 'boot to first 200 < 1.5 s', value: `${result.boot.warmMs} ms (fresh database: ${result.boot.freshMs} ms)`, pass: result.boot.warmMs < 1500 });
    }
    for (const s of result.scenarios) {
      if (s.against !== 'admin' || s.ratio === undefined) continue;
      const cpu = s.cpuRatio === undefined ? '' : ` (by CPU per request: ${pct(s.cpuRatio)})`;
      checks.push({ driver, target: `${s.name}: >= 85% of the admin's req/s`, value: `${pct(s.ratio)}${cpu}`, pass: s.ratio >= 0.85 });
    }
  }
  return checks;
}

const pct = (ratio: number) => `${Math.round(ratio * 100)}%`;
const latency = (r?: LoadResult) => (r ? `${r.p50Ms} / ${r.p99Ms}` : '-');
const failures = (r?: LoadResult) => (r ? `${r.errors} / ${r.non2xx}` : '-');

/** The markdown summary: one table per driver, then the targets. */
export function summaryMarkdown(report: BenchReport): string {
  const o = report.options;
  const lines = [
    '# Benchmark summary',
    '',
    `${report.finishedAt} · ${report.machine.cpus} CPU (${report.machine.cpuModel}) · Node ${report.machine.node} · ` +
      `${o.rows.toLocaleString('en')} rows · ${o.connections} connections · ${o.duration} s per side (+${o.warmup} s warm-up)${(o.rounds ?? 1) > 1 ? ` in ${o.rounds} alternating rounds` : ''}`,
    '',
    'req/s, latency p50 / p99 in ms, errors / non-2xx, peak RSS in MB and server CPU ms per request; ratio = runtime / baseline req/s;',
    'CPU ratio = baseline / runtime CPU per request (what the req/s ratio would be with both CPU-bound on a quiet machine).',
    report.compare
      ? `"baseline" here is the runtime at ${report.compare.rev} (${report.compare.commit.slice(0, 12)}), serving the same requests (row-policy rows: the member's); no targets are checked.`
      : 'Rows marked (row-policy user) compare the runtime with itself: "runtime" is the member whose reads carry a row policy, "baseline" the signed-in admin.',
  ];
  for (const [driver, result] of Object.entries(report.drivers) as Array<[BenchDriver, DriverResult]>) {
    lines.push('', `## ${driver}`, '');
    if (result.seed) lines.push(`Seeded ${result.seed.rows.toLocaleString('en')} rows in ${result.seed.seconds.toFixed(1)} s.`, '');
    lines.push(
      '| scenario | runtime req/s | baseline req/s | ratio | CPU ratio | runtime p50 / p99 | baseline p50 / p99 | runtime err / non-2xx | baseline err / non-2xx | runtime RSS | baseline RSS | CPU ms/req rt / bl |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    );
    for (const s of result.scenarios) {
      if (s.status !== 'ok') {
        lines.push(`| ${[s.name, `${s.status}: ${s.reason ?? ''}`, ...Array<string>(10).fill('')].join(' | ')} |`);
        continue;
      }
      const rt = s.runtime!;
      const bl = s.baseline!;
      lines.push(`| ${s.name} | ${rt.reqPerSec} | ${bl.reqPerSec} | ${pct(s.ratio!)} | ${s.cpuRatio === undefined ? '-' : pct(s.cpuRatio)} | ${latency(rt)} | ${latency(bl)} | ${failures(rt)} | ${failures(bl)} | ${rt.peakRssMb ?? '-'} | ${bl.peakRssMb ?? '-'} | ${rt.cpuMsPerRequest ?? '-'} / ${bl.cpuMsPerRequest ?? '-'} |`);
    }
    const bulk = result.scenarios.filter((s) => s.status === 'ok' && s.runtime?.rowsPerSec !== undefined);
    if (bulk.length > 0) {
      lines.push('', 'Bulk scenarios run one request at a time; their req/s is 1000 / median ms, p50 / p99 the median and slowest run:');
      for (const s of bulk) {
        lines.push(`- ${s.name}: runtime ${s.runtime!.p50Ms} ms (${s.runtime!.rowsPerSec} rows/s, ${s.runtime!.responseBytes} response bytes), baseline ${s.baseline!.p50Ms} ms (${s.baseline!.rowsPerSec} rows/s, ${s.baseline!.responseBytes} bytes).`);
      }
    }
    if (result.boot) {
      lines.push('', 'error' in result.boot
        ? `Boot: failed (${result.boot.error}).`
        : `Boot to the first 200 of /api/v1/health (all plugins, CRM and bench apps): ${result.boot.warmMs} ms median of ${result.boot.warmRunsMs.join(', ')} ms; ${result.boot.freshMs} ms on an empty database.`);
    }
  }
  if (report.compare) return lines.join('\n') + '\n';
  lines.push('', '## Targets', '', '| driver | target | measured | result |', '|---|---|---|---|');
  for (const c of report.targets) lines.push(`| ${c.driver} | ${c.target} | ${c.value} | ${c.pass === null ? 'pending' : c.pass ? 'pass' : 'FAIL'} |`);
  return lines.join('\n') + '\n';
}
