import autocannon from 'autocannon';
import type { RunContext, Scenario, Target } from './scenarios.ts';
import { sampleUsage, type ServerProcess } from './spawnServer.ts';

export interface LoadOptions {
  duration: number;
  connections: number;
  /** Seconds of unmeasured load first (JIT, caches, pools). */
  warmup: number;
}

export interface LoadResult {
  requests: number;
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
  /** Responses by status code other than 2xx, e.g. {"409": 2}. */
  failedStatuses: Record<string, number>;
  /** Timed (bulk) scenarios: rows per second at the median time, and bytes of one response. */
  rowsPerSec?: number;
  responseBytes?: number;
  peakRssMb: number | null;
  /** Server CPU time per request (both cores count). */
  cpuMsPerRequest: number | null;
  /** CPU time of the load generator (this process) per request: on a machine it shares with the server, cores the server did not get. */
  loadCpuMsPerRequest?: number;
  /** Mixed scenarios: answers per kind of request (bench/peerMix.ts). */
  kinds?: Record<string, KindResult>;
}

export interface KindResult { requests: number; p50Ms: number; p99Ms: number; non2xx: number }

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

type RunContextBase = Omit<RunContext, 'claim'>;

/**
 * Load from this process (the servers are children, so the generator does not share their
 * event loop). Every connection gets its own request sequence from the scenario.
 */
export async function runLoad(server: ServerProcess, scenario: Scenario, target: Target, base: RunContextBase, options: LoadOptions): Promise<LoadResult> {
  const times = new Map<string, { ms: number[]; non2xx: number }>();
  let timing = false;
  const timeKind = (kind: string, ms: number, status: number) => {
    if (!timing) return;
    let entry = times.get(kind);
    if (!entry) times.set(kind, (entry = { ms: [], non2xx: 0 }));
    entry.ms.push(ms);
    if (status < 200 || status >= 300) entry.non2xx++;
  };
  const fire = (duration: number) => {
    let next = 0;
    const run: RunContext = { ...base, claim: () => next++, timeKind };
    return autocannon({
      url: server.url,
      connections: options.connections,
      duration,
      timeout: 10,
      setupClient: (client) => client.setRequests(scenario.connection!(target, run)),
    });
  };
  if (options.warmup > 0) {
    await fire(options.warmup);
    // Requests the warm-up gave up on may still land; let them, so they do not race the measured run.
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  const stop = sampleUsage(server);
  const loadCpu = process.cpuUsage();
  timing = true;
  const result = await fire(options.duration);
  timing = false;
  const usage = stop();
  const loadCpuUsed = process.cpuUsage(loadCpu);
  const requests = result.requests.total;
  const kinds = times.size === 0 ? undefined : Object.fromEntries([...times].map(([kind, entry]) => {
    const sorted = entry.ms.sort((a, b) => a - b);
    return [kind, { requests: sorted.length, p50Ms: round(percentile(sorted, 0.5)), p99Ms: round(percentile(sorted, 0.99)), non2xx: entry.non2xx }];
  }));
  return {
    requests,
    reqPerSec: round(requests / result.duration),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    failedStatuses: Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).filter(([code]) => !code.startsWith('2')).map(([code, s]) => [code, s.count])),
    peakRssMb: usage.peakRssMb === null ? null : round(usage.peakRssMb),
    cpuMsPerRequest: usage.cpuSeconds === null || requests === 0 ? null : round((usage.cpuSeconds * 1000) / requests, 3),
    ...(requests > 0 ? { loadCpuMsPerRequest: round((loadCpuUsed.user + loadCpuUsed.system) / 1000 / requests, 3) } : {}),
    ...(kinds ? { kinds } : {}),
  };
}

/**
 * Rounds of one side as one result: requests over the rounds' total time, p50 weighted by
 * requests, the worst p99 and peak RSS, CPU per request over all requests.
 */
export function combineRounds(rounds: LoadResult[]): LoadResult {
  if (rounds.length === 1) return rounds[0]!;
  const requests = rounds.reduce((sum, r) => sum + r.requests, 0);
  const seconds = rounds.reduce((sum, r) => sum + (r.reqPerSec > 0 ? r.requests / r.reqPerSec : 0), 0);
  const weighted = (pick: (r: LoadResult) => number | null) => (requests === 0 ? null : rounds.reduce((sum, r) => sum + (pick(r) ?? 0) * r.requests, 0) / requests);
  const failedStatuses: Record<string, number> = {};
  for (const r of rounds) for (const [code, n] of Object.entries(r.failedStatuses)) failedStatuses[code] = (failedStatuses[code] ?? 0) + n;
  const rss = rounds.map((r) => r.peakRssMb).filter((v): v is number => v !== null);
  const cpu = rounds.every((r) => r.cpuMsPerRequest !== null) ? weighted((r) => r.cpuMsPerRequest) : null;
  const loadCpu = rounds.every((r) => r.loadCpuMsPerRequest !== undefined) ? weighted((r) => r.loadCpuMsPerRequest ?? null) : null;
  return {
    requests,
    reqPerSec: seconds > 0 ? round(requests / seconds) : 0,
    p50Ms: round(weighted((r) => r.p50Ms) ?? 0),
    p99Ms: Math.max(...rounds.map((r) => r.p99Ms)),
    errors: rounds.reduce((sum, r) => sum + r.errors, 0),
    non2xx: rounds.reduce((sum, r) => sum + r.non2xx, 0),
    failedStatuses,
    peakRssMb: rss.length > 0 ? Math.max(...rss) : null,
    cpuMsPerRequest: cpu === null ? null : round(cpu, 3),
    ...(loadCpu === null ? {} : { loadCpuMsPerRequest: round(loadCpu, 3) }),
    ...(rounds.some((r) => r.kinds) ? { kinds: combineKinds(rounds) } : {}),
  };
}

/** Kinds over rounds: requests and failures summed, p50 weighted by requests, the worst p99. */
function combineKinds(rounds: LoadResult[]): Record<string, KindResult> {
  const out: Record<string, KindResult> = {};
  for (const kind of new Set(rounds.flatMap((r) => Object.keys(r.kinds ?? {})))) {
    const parts = rounds.map((r) => r.kinds?.[kind]).filter((k): k is KindResult => k !== undefined);
    const requests = parts.reduce((sum, k) => sum + k.requests, 0);
    out[kind] = {
      requests,
      p50Ms: round(requests === 0 ? 0 : parts.reduce((sum, k) => sum + k.p50Ms * k.requests, 0) / requests),
      p99Ms: Math.max(...parts.map((k) => k.p99Ms)),
      non2xx: parts.reduce((sum, k) => sum + k.non2xx, 0),
    };
  }
  return out;
}

function round(value: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/**
 * A bulk scenario: the request sent `runs` times, one after the other, each timed from sending to
 * the last byte of the response. req/s is 1000 / median ms; p50 is the median, p99 the slowest.
 * With `warm`, one more request goes first, neither timed nor counted (as the load scenarios'
 * warm-up: the first request of a path runs on code not yet optimized).
 */
export async function runTimed(server: ServerProcess, scenario: Scenario, target: Target, base: RunContextBase, warm = false): Promise<LoadResult> {
  const timed = scenario.timed!;
  const run: RunContext = { ...base, claim: () => 0 };
  const times: number[] = [];
  const failedStatuses: Record<string, number> = {};
  let errors = 0;
  let bytes = 0;
  const send = async () => {
    const { path, body } = timed.request(target, run);
    const res = await fetch(server.url + path, { method: 'POST', headers: { 'content-type': 'application/json', ...(target === 'runtime' ? run.runtimeHeaders : {}) }, body });
    let received = 0;
    for await (const chunk of res.body ?? []) received += (chunk as Uint8Array).byteLength;
    return { status: res.status, received };
  };
  if (warm) await send().catch(() => undefined);
  const stop = sampleUsage(server);
  for (let i = 0; i < timed.runs; i++) {
    const started = performance.now();
    try {
      const { status, received } = await send();
      bytes = received;
      if (status >= 300) failedStatuses[status] = (failedStatuses[status] ?? 0) + 1;
    } catch {
      errors++;
    }
    times.push(performance.now() - started);
  }
  const usage = stop();
  const sorted = [...times].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  return {
    requests: timed.runs,
    reqPerSec: round(1000 / median, 3),
    p50Ms: Math.round(median),
    p99Ms: Math.round(sorted[sorted.length - 1]!),
    errors,
    non2xx: Object.values(failedStatuses).reduce((a, b) => a + b, 0),
    failedStatuses,
    rowsPerSec: Math.round(timed.rows(run) / (median / 1000)),
    responseBytes: bytes,
    peakRssMb: usage.peakRssMb === null ? null : round(usage.peakRssMb),
    cpuMsPerRequest: usage.cpuSeconds === null ? null : round((usage.cpuSeconds * 1000) / timed.runs, 3),
  };
}
