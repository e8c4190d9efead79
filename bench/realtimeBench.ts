/**
 * Realtime fan-out (not part of `npm run bench`, not a timed test; bench/README.md, Realtime):
 * `node --import tsx bench/realtimeBench.ts [--driver sqlite|postgres] [--subscribers 2000]
 * [--groups 20] [--rate 200] [--duration 10] [--modes writes,grouped,single] [--rounds 1] [--seed 41]
 * [--visibility shared|own]`.
 *
 * Two runtime processes: on SQLite `osr start --workers 2` (bench/servers/runtimeCluster.js, the
 * primary carries the events bus), on PostgreSQL two processes with Redis as the bus. `--groups`
 * members (each its own access group: the bench object's row policy opens open and active rows to
 * holders of `bench_reader`) hold the subscribers between them, spread over both processes.
 * Writes come at `--rate` per second through both processes: half creates, half updates of a
 * recent record, each with a random status (so a member's group sees it created, updated,
 * entered or left) and its sequence number in `notes`. `--visibility own`: each member holds a
 * position of its own (`bench_team_<i>`) and sees only the records of its team
 * (bench/app/objects/rt_team_item.json); each write goes to a random team, so it reaches one group's
 * streams (subscribers / groups) instead of about two thirds of them.
 *
 * Per mode (`grouped`: the hub's access groups; `single`: plugins.realtime.grouping false, each
 * stream its own group, read once per change) it reports the events delivered, the delivery latency
 * (from the write sent to the event read, p50 and p99), and the servers' CPU per delivered event
 * (their CPU from the first write until the streams fell quiet, less what they spend idle with the
 * same streams open), then the ratio of the two. Writes results/realtime-<driver>-<time>.json.
 */
import http from 'node:http';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildCompiled, staleness } from '../bin/buildCompiled.js';
import { BENCH_APP_DIR, BENCH_OBJECT, REPO_ROOT, randomSource, STATUSES } from './benchObject.ts';
import { BENCH_ADMIN } from './benchUsers.ts';
import { createDatabaseTarget, type BenchDriver, type DatabaseTarget } from './databaseTarget.ts';
import { spawnServer, type ServerProcess } from './spawnServer.ts';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const { values: args } = parseArgs({
  options: {
    driver: { type: 'string', default: 'sqlite' },
    subscribers: { type: 'string', default: '2000' },
    groups: { type: 'string', default: '20' },
    rate: { type: 'string', default: '200' },
    duration: { type: 'string', default: '10' },
    idle: { type: 'string', default: '3' },
    modes: { type: 'string', default: 'writes,grouped,single' },
    rounds: { type: 'string', default: '1' },
    seed: { type: 'string', default: '41' },
    'drain-timeout': { type: 'string', default: '180' },
    visibility: { type: 'string', default: 'shared' },
    /** Write V8 CPU profiles of the servers into a temporary directory (bench/profileSummary.ts reads them). */
    profile: { type: 'boolean', default: false },
  },
});
if (args.visibility !== 'shared' && args.visibility !== 'own') throw new Error(`--visibility takes shared or own, not '${args.visibility}'`);
const OWN = args.visibility === 'own';
const profiling = args.profile ? { profileDir: mkdtempSync(join(tmpdir(), 'osr-realtime-profiles-')) } : {};
if (profiling.profileDir) console.log(`CPU profiles of the servers go to ${profiling.profileDir}`);
/** The object written: the micro-benchmarks' own, or with --visibility own one whose rows belong to teams. */
const OBJECT = OWN ? 'rt_team_item' : BENCH_OBJECT;
const teamOf = (group: number) => `bench_team_${group}`;
const SUBSCRIBERS = Number(args.subscribers);
const GROUPS = Number(args.groups);
const RATE = Number(args.rate);
const DURATION_S = Number(args.duration);
const IDLE_S = Number(args.idle);
/** With no stream open, how long the `writes` mode waits after its writes (its CPU less the idle rate over it). */
const QUIET_MS = 1_000;
const MAX_IN_FLIGHT = 64;
const MEMBER_PASSWORD = 'bench-realtime-member-0123456789';
const load = () => loadavg().map((l) => l.toFixed(1)).join(' ');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Servers { urls: string[]; processes: ServerProcess[]; cpuSeconds(): number }

async function boot(driver: BenchDriver, target: DatabaseTarget, grouping: boolean): Promise<Servers> {
  const config = {
    apps: [BENCH_APP_DIR], ...target.runtimeConfig,
    server: { port: 0, host: '127.0.0.1', logRequests: false },
    auth: { secret: 'bench-secret-0123456789-0123456789-abcdef', admin: BENCH_ADMIN },
    log: { level: 'warn' },
    plugins: { auth: { rateLimit: { enabled: false } }, realtime: { grouping, maxConnections: 100_000, maxConnectionsPerUser: 10_000 } },
    ...(driver === 'postgres' ? { redis: { url: REDIS_URL } } : {}),
  };
  const processes: ServerProcess[] = [];
  if (driver === 'sqlite') {
    processes.push(await spawnServer('runtime-workers', join(HERE, 'servers/runtimeCluster.js'), config, { env: { OSR_BENCH_WORKERS: '2' }, readyTimeoutMs: 240_000, ...profiling }));
  } else {
    // The first creates the schema alone; the second joins it.
    processes.push(await spawnServer('runtime-a', join(HERE, 'servers/runtimeServer.js'), config, { readyTimeoutMs: 240_000, ...profiling }));
    processes.push(await spawnServer('runtime-b', join(HERE, 'servers/runtimeServer.js'), config, { readyTimeoutMs: 240_000, ...profiling }));
  }
  return {
    urls: processes.map((p) => p.url.replace(/\/$/, '')),
    processes,
    cpuSeconds: () => processes.reduce((sum, p) => sum + (p.usage()?.cpuSeconds ?? 0), 0),
  };
}

async function call(url: string, method: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Record<string, unknown>> {
  const res = await fetch(url + path, { method, headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }), origin: url }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 300)}`);
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

const memberEmail = (i: number) => `rt-member-${i}@example.com`;

async function signIn(url: string, email: string, password: string): Promise<Record<string, string>> {
  const { token } = await call(url, 'POST', '/api/v1/auth/sign-in', { email, password });
  return { authorization: `Bearer ${String(token)}` };
}

/** The members (one access group each) and their position (shared, or with --visibility own one each); once per database. */
async function prepareMembers(url: string, admin: Record<string, string>): Promise<void> {
  const shared = OWN ? null : await call(url, 'POST', '/api/v1/data/sys_position', { name: 'bench_reader' }, admin);
  for (let i = 0; i < GROUPS; i++) {
    const position = shared ?? await call(url, 'POST', '/api/v1/data/sys_position', { name: teamOf(i) }, admin);
    const created = await call(url, 'POST', '/api/v1/auth/admin/create-user', { email: memberEmail(i), password: MEMBER_PASSWORD, name: `Realtime member ${i}`, mustChangePassword: false }, admin);
    await call(url, 'POST', '/api/v1/data/sys_user_position', { user_id: (created.user as { id: string }).id, position: position.id }, admin);
  }
}

/** What the streams received, and when. */
class Deliveries {
  count = 0;
  lastAt = 0;
  readonly byEvent: Record<string, number> = {};
  readonly latencies: number[] = [];
  /** Send time of each write by sequence number, and of the last write of each record. */
  readonly sentAt: number[] = [];
  readonly lastWriteOf = new Map<string, number>();
  measuring = false;

  /** Streams that received the last write (a record every stream reads, written after every other write was answered). */
  finals = 0;
  /** Streams the server closed while measuring. */
  closed = 0;

  /** Events each stream received while measuring, by its number. */
  readonly perStream: number[] = [];

  receive(stream: number, block: string): void {
    const type = /^event: (\w+)/m.exec(block)?.[1];
    if (!type || type === 'ready') return;
    const now = performance.now();
    if (!this.measuring) return;
    this.perStream[stream] = (this.perStream[stream] ?? 0) + 1;
    if (block.includes('"notes":"final"')) {
      this.finals++;
      this.lastAt = now;
      return;
    }
    this.count++;
    this.lastAt = now;
    this.byEvent[type] = (this.byEvent[type] ?? 0) + 1;
    const seq = /"notes":"w(\d+)"/.exec(block)?.[1];
    let sent = seq !== undefined ? this.sentAt[Number(seq)] : undefined;
    if (sent === undefined) {
      const id = /"id":"([^"]+)"/.exec(block)?.[1];
      if (id) sent = this.lastWriteOf.get(id);
    }
    if (sent !== undefined) this.latencies.push(now - sent);
  }
}

/** A server-sent-events stream read without parsing its JSON: each event block goes to `deliveries`. */
function subscribe(stream: number, url: string, headers: Record<string, string>, deliveries: Deliveries): Promise<http.ClientRequest> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent: false, headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      if (res.statusCode !== 200) {
        reject(new Error(`a stream answered ${res.statusCode}`));
        res.resume();
        return;
      }
      res.setEncoding('utf8');
      let buffer = '';
      let ready = false;
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let at: number;
        while ((at = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, at);
          buffer = buffer.slice(at + 2);
          if (!ready && block.includes('event: ready')) {
            ready = true;
            resolve(request);
          }
          deliveries.receive(stream, block);
        }
      });
      res.on('error', () => undefined);
      res.on('close', () => {
        if (deliveries.measuring) deliveries.closed++;
      });
    });
    request.on('error', reject);
  });
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

interface ModeResult {
  mode: string;
  subscribers: number;
  groups: number;
  writes: number;
  writesPerSec: number;
  events: number;
  byEvent: Record<string, number>;
  eventsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  drainMs: number;
  drained: boolean;
  /** Streams that received the last write. */
  finals: number;
  cpuSeconds: number;
  idleCpuPerSec: number;
  /** CPU from the first write until the streams fell quiet, less the idle rate over that time. */
  busyCpuSeconds: number;
  cpuUsPerEvent: number;
  /** CPU per event less what the same writes cost with no stream open (the `writes` mode): the fan-out's own. */
  fanOutUsPerEvent?: number;
  loadAverage: string;
  /** Every delivery latency (ms), for the percentiles over rounds; not written to the results file. */
  latencies?: number[];
}

type Mode = 'writes' | 'grouped' | 'single';
const MODES: Mode[] = ['writes', 'grouped', 'single'];

async function runMode(driver: BenchDriver, target: DatabaseTarget, mode: Mode, first: boolean): Promise<ModeResult> {
  const servers = await boot(driver, target, mode !== 'single');
  const streams = mode === 'writes' ? 0 : SUBSCRIBERS;
  const requests: http.ClientRequest[] = [];
  try {
    const [urlA] = servers.urls;
    const admin = await signIn(urlA!, BENCH_ADMIN.email, BENCH_ADMIN.password);
    if (first) await prepareMembers(urlA!, admin);
    const members = await Promise.all(Array.from({ length: GROUPS }, (_, i) => signIn(urlA!, memberEmail(i), MEMBER_PASSWORD)));
    const deliveries = new Deliveries();
    console.log(`[${driver} ${mode}] opening ${streams} streams in ${GROUPS} groups (load ${load()})`);
    const opened = performance.now();
    for (let i = 0; i < streams; i += 50) {
      const batch = Array.from({ length: Math.min(50, streams - i) }, (_, k) => {
        const n = i + k;
        // Subscriber n: member n % GROUPS, on process n % 2 (the cluster's primary hands connections out in turn).
        const url = servers.urls[n % servers.urls.length]!;
        return subscribe(n, `${url}/api/v1/realtime?objects=${OBJECT}`, members[n % GROUPS]!, deliveries);
      });
      requests.push(...(await Promise.all(batch)));
    }
    console.log(`[${driver} ${mode}] ${requests.length} streams open in ${Math.round(performance.now() - opened)} ms; idle ${IDLE_S} s`);
    // Every process learns which objects are followed (announced every 2 s) before the first write.
    await sleep(2_500);
    const idleStart = servers.cpuSeconds();
    await sleep(IDLE_S * 1000);
    const idleCpuPerSec = (servers.cpuSeconds() - idleStart) / IDLE_S;

    const random = randomSource(Number(args.seed));
    const ids: string[] = [];
    const cpuStart = servers.cpuSeconds();
    deliveries.measuring = true;
    const started = performance.now();
    const total = Math.round(RATE * DURATION_S);
    let sent = 0;
    let inFlight = 0;
    let failures = 0;
    let firstFailure = '';
    const writeOne = async (seq: number) => {
      const url = servers.urls[seq % servers.urls.length]!;
      const status = STATUSES[Math.floor(random() * STATUSES.length)]!;
      const update = ids.length > 0 && random() < 0.5 ? ids[ids.length - 1 - Math.floor(random() * Math.min(ids.length, 200))]! : null;
      deliveries.sentAt[seq] = performance.now();
      if (update) deliveries.lastWriteOf.set(update, deliveries.sentAt[seq]!);
      try {
        if (update) {
          await call(url, 'PATCH', `/api/v1/data/${OBJECT}/${update}`, { status, notes: `w${seq}` }, admin);
        } else {
          const team = OWN ? { team: teamOf(Math.floor(random() * GROUPS)) } : {};
          const created = await call(url, 'POST', `/api/v1/data/${OBJECT}`, { name: `rt-${seq}`, status, amount: 1, notes: `w${seq}`, ...team }, admin);
          ids.push(String(created.id));
        }
      } catch (error) {
        if (failures++ === 0) firstFailure = (error as Error).message;
      }
    };
    while (sent < total) {
      const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * RATE) + 1);
      while (sent < due && inFlight < MAX_IN_FLIGHT) {
        inFlight++;
        void writeOne(sent++).finally(() => inFlight--);
      }
      await sleep(5);
    }
    while (inFlight > 0) await sleep(5);
    const writesDone = performance.now();
    const writeSeconds = (writesDone - started) / 1000;
    // Drained once every stream has the last write: each process handles an object's changes in the
    // order it learned them, and it learned of every other write before this one. With no stream,
    // a pause of the same length as the longest drain would be (the idle rate is subtracted).
    // With --visibility own, one last write per team (each stream sees its own team's).
    for (let g = 0; g < (OWN ? GROUPS : 1); g++) {
      await call(servers.urls[0]!, 'POST', `/api/v1/data/${OBJECT}`, { name: 'rt-final', status: 'open', amount: 1, notes: 'final', ...(OWN ? { team: teamOf(g) } : {}) }, admin);
    }
    const drainLimit = writesDone + Number(args['drain-timeout']) * 1000;
    if (streams === 0) await sleep(QUIET_MS);
    while (deliveries.finals < streams && performance.now() < drainLimit) await sleep(20);
    const drained = deliveries.finals >= streams;
    const cpuSeconds = servers.cpuSeconds() - cpuStart;
    const windowSeconds = (performance.now() - started) / 1000;
    deliveries.measuring = false;
    const sorted = [...deliveries.latencies].sort((a, b) => a - b);
    const busy = Math.max(0, cpuSeconds - idleCpuPerSec * windowSeconds);
    if (failures > 0) console.log(`[${driver} ${mode}] ${failures} writes failed, the first: ${firstFailure}`);
    const counts = Array.from({ length: streams }, (_, i) => deliveries.perStream[i] ?? 0);
    if (streams > 0) console.log(`[${driver} ${mode}] events per stream: ${Math.min(...counts)} to ${Math.max(...counts)}`);
    if (deliveries.closed > 0) console.log(`[${driver} ${mode}] ${deliveries.closed} streams were closed by the server`);
    const result: ModeResult = {
      mode, subscribers: streams, groups: GROUPS, writes: total - failures, writesPerSec: round((total - failures) / writeSeconds),
      events: deliveries.count, byEvent: deliveries.byEvent, eventsPerSec: round(deliveries.count / ((Math.max(deliveries.lastAt, writesDone) - started) / 1000)),
      p50Ms: round(percentile(sorted, 50)), p99Ms: round(percentile(sorted, 99)),
      drainMs: Math.round(Math.max(deliveries.lastAt, writesDone) - writesDone), drained,
      finals: deliveries.finals,
      cpuSeconds: round(cpuSeconds, 2), idleCpuPerSec: round(idleCpuPerSec, 3), busyCpuSeconds: round(busy, 3),
      cpuUsPerEvent: deliveries.count > 0 ? round((busy / deliveries.count) * 1e6) : NaN,
      loadAverage: load(),
      latencies: deliveries.latencies,
    };
    console.log(`[${driver} ${mode}] ${result.writes} writes (${result.writesPerSec}/s), ${result.events} events (${JSON.stringify(result.byEvent)}), latency p50 ${result.p50Ms} ms p99 ${result.p99Ms} ms, every stream had the last write ${result.drainMs} ms after the others were answered${drained ? '' : ` (timed out: ${result.finals} of ${streams})`}, CPU ${result.cpuSeconds} s (idle ${result.idleCpuPerSec} s/s) = ${result.cpuUsPerEvent} µs per event; load ${result.loadAverage}`);
    return result;
  } finally {
    for (const request of requests) request.destroy();
    for (const server of servers.processes.reverse()) await server.stop().catch(() => undefined);
  }
}

/** The rounds of one mode as one: sums, and the percentiles over every latency. */
function combine(runs: ModeResult[]): ModeResult {
  if (runs.length === 1) return { ...runs[0]! };
  const sum = (pick: (r: ModeResult) => number) => runs.reduce((total, r) => total + pick(r), 0);
  const sorted = runs.flatMap((r) => r.latencies ?? []).sort((a, b) => a - b);
  const events = sum((r) => r.events);
  const busy = sum((r) => r.busyCpuSeconds);
  const byEvent: Record<string, number> = {};
  for (const r of runs) for (const [k, v] of Object.entries(r.byEvent)) byEvent[k] = (byEvent[k] ?? 0) + v;
  return {
    ...runs[0]!, writes: sum((r) => r.writes), writesPerSec: round(sum((r) => r.writesPerSec) / runs.length), events, byEvent,
    eventsPerSec: round(sum((r) => r.eventsPerSec) / runs.length), p50Ms: round(percentile(sorted, 50)), p99Ms: round(percentile(sorted, 99)),
    drainMs: Math.max(...runs.map((r) => r.drainMs)), drained: runs.every((r) => r.drained), finals: sum((r) => r.finals),
    cpuSeconds: round(sum((r) => r.cpuSeconds), 2), idleCpuPerSec: round(sum((r) => r.idleCpuPerSec) / runs.length, 3), busyCpuSeconds: round(busy, 3),
    cpuUsPerEvent: events > 0 ? round((busy / events) * 1e6) : NaN, loadAverage: runs.map((r) => r.loadAverage).join('; '),
  };
}

async function main(): Promise<void> {
  if (staleness(REPO_ROOT) !== null) await buildCompiled(REPO_ROOT);
  const driver = args.driver as BenchDriver;
  if (driver !== 'sqlite' && driver !== 'postgres') throw new Error(`--driver must be sqlite or postgres, not '${driver}'`);
  const modes = args.modes!.split(',').map((m) => m.trim()) as Mode[];
  for (const mode of modes) if (!MODES.includes(mode)) throw new Error(`--modes takes ${MODES.join(', ')}, not '${mode}'`);
  const rounds = Math.max(1, Math.floor(Number(args.rounds)));
  const target = await createDatabaseTarget(driver);
  const runs: ModeResult[] = [];
  try {
    console.log(`[${driver}] ${SUBSCRIBERS} subscribers, ${GROUPS} groups (visibility ${args.visibility}), ${RATE} writes/s for ${DURATION_S} s, ${rounds} round(s); ${cpus().length} cores, load ${load()}`);
    for (let r = 0; r < rounds; r++) {
      // Alternating order from one round to the next, so the machine's load weighs on each alike.
      const order = r % 2 === 0 ? modes : [...modes].reverse();
      for (const mode of order) runs.push(await runMode(driver, target, mode, runs.length === 0));
    }
  } finally {
    await target.dispose();
  }
  const results = modes.map((mode) => combine(runs.filter((r) => r.mode === mode)));
  const writesOnly = results.find((r) => r.mode === 'writes');
  for (const r of results) {
    if (r.mode === 'writes' || !writesOnly || r.events === 0) continue;
    const busy = Math.max(0, r.busyCpuSeconds - writesOnly.busyCpuSeconds * (r.writes / writesOnly.writes));
    r.fanOutUsPerEvent = round((busy / r.events) * 1e6);
  }
  const grouped = results.find((r) => r.mode === 'grouped');
  const single = results.find((r) => r.mode === 'single');
  const ratio = grouped && single ? round(single.cpuUsPerEvent / grouped.cpuUsPerEvent, 2) : null;
  const fanOutRatio = grouped?.fanOutUsPerEvent && single?.fanOutUsPerEvent ? round(single.fanOutUsPerEvent / grouped.fanOutUsPerEvent, 2) : null;
  // The fan-out's CPU as reads (one per group, or per stream, and change, in each process) and sends (one per event): solved from the two modes.
  let split: { readUs: number; sendUs: number } | null = null;
  if (grouped?.fanOutUsPerEvent && single?.fanOutUsPerEvent) {
    const changes = (r: ModeResult) => r.writes + rounds * (OWN ? GROUPS : 1);
    const [rg, rs] = [changes(grouped) * GROUPS * 2, changes(single) * SUBSCRIBERS];
    const [bg, bs] = [(grouped.fanOutUsPerEvent * grouped.events) / 1e6, (single.fanOutUsPerEvent * single.events) / 1e6];
    const det = rg * single.events - rs * grouped.events;
    if (det !== 0) split = { readUs: round(((bg * single.events - bs * grouped.events) / det) * 1e6), sendUs: round(((rg * bs - rs * bg) / det) * 1e6) };
  }
  const row = (r: ModeResult, label: string) => `| ${label} | ${r.subscribers} | ${r.groups} | ${r.writesPerSec} | ${r.events} | ${r.p50Ms} | ${r.p99Ms} | ${r.drainMs} ms${r.drained ? '' : ' (timed out)'} | ${r.cpuSeconds} | ${r.cpuUsPerEvent} | ${r.fanOutUsPerEvent ?? '-'} |`;
  console.log(['', '| mode | subscribers | groups | writes/s | events | p50 ms | p99 ms | drained after the last answer | server CPU s | CPU µs/event | fan-out µs/event |', '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...(rounds > 1 ? runs.map((r, i) => row(r, `${r.mode} (round ${Math.floor(i / modes.length) + 1})`)) : []),
    ...results.map((r) => row(r, rounds > 1 ? `**${r.mode}, all rounds**` : r.mode)),
    ...(ratio !== null ? [`\nCPU per delivered event, one read per stream / one read per group: ${ratio}x (fan-out alone: ${fanOutRatio ?? '-'}x)`] : []),
    ...(split ? [`fan-out CPU split from the two modes: ${split.readUs} µs per read of a changed record, ${split.sendUs} µs per event sent`] : [])].join('\n'));
  for (const r of [...runs, ...results]) delete r.latencies;
  mkdirSync(join(HERE, 'results'), { recursive: true });
  const file = join(HERE, 'results', `realtime-${driver}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, JSON.stringify({ driver, visibility: args.visibility, subscribers: SUBSCRIBERS, groups: GROUPS, rate: RATE, durationS: DURATION_S, seed: Number(args.seed), machine: { cpus: cpus().length, loadAverage: loadavg() }, rounds, runs, results, ratio, fanOutRatio, split }, null, 2) + '\n');
  console.log(`written: ${file}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
