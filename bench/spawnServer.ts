import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A server under test in its own process, so its memory and CPU are its own. */
export interface ServerProcess {
  name: string;
  pid: number;
  url: string;
  /** Resident memory and CPU time now (Linux /proc; null elsewhere). */
  usage(): ProcessUsage | null;
  stop(): Promise<void>;
}

export interface ProcessUsage {
  rssMb: number;
  cpuSeconds: number;
}

export interface SpawnOptions {
  /** Write a V8 CPU profile of the child into this directory when it stops. */
  profileDir?: string;
  readyTimeoutMs?: number;
  /** Variables added to the child's environment. */
  env?: Record<string, string>;
}

// Clock ticks per second of /proc/<pid>/stat times; 100 on every Linux this runs on.
const CLOCK_TICKS = 100;

export function processUsage(pid: number): ProcessUsage | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
    // Fields after the parenthesised command name: utime and stime are the 12th and 13th.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    if (!Number.isFinite(rssKb) || !Number.isFinite(ticks)) return null;
    return { rssMb: rssKb / 1024, cpuSeconds: ticks / CLOCK_TICKS };
  } catch {
    return null;
  }
}

/** A process and its descendants (the workers of a cluster): CPU summed, RSS of the largest one (per worker). */
export function treeUsage(pid: number): ProcessUsage | null {
  const own = processUsage(pid);
  if (!own) return null;
  let children: number[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    children = [];
  }
  let { rssMb, cpuSeconds } = own;
  for (const child of children) {
    const usage = treeUsage(child);
    if (!usage) continue;
    rssMb = Math.max(rssMb, usage.rssMb);
    cpuSeconds += usage.cpuSeconds;
  }
  return { rssMb, cpuSeconds };
}

/** Forks `entry` (TypeScript through tsx, or JavaScript) with `arg` as JSON and waits for its {type: 'ready', url}. */
export function spawnServer(name: string, entry: string, arg: unknown, options: SpawnOptions = {}): Promise<ServerProcess> {
  const execArgv = entry.endsWith('.ts') ? ['--import', 'tsx'] : [];
  // One directory per server: the module loader thread writes a profile of its own beside the main thread's.
  if (options.profileDir) execArgv.push('--cpu-prof', `--cpu-prof-dir=${join(options.profileDir, name)}`);
  const child: ChildProcess = fork(entry, [JSON.stringify(arg)], { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'], ...(options.env ? { env: { ...process.env, ...options.env } } : {}) });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name} did not start within ${options.readyTimeoutMs ?? 60_000} ms`));
    }, options.readyTimeoutMs ?? 60_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with code ${String(code)} before it was ready`));
    });
    child.on('message', (message: { type?: string; url?: string }) => {
      if (message.type !== 'ready' || !message.url) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      resolve({
        name,
        pid: child.pid!,
        url: message.url,
        usage: () => treeUsage(child.pid!),
        stop: () => stopChild(child),
      });
    });
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.send({ type: 'stop' });
  });
}

/** Peak RSS and CPU used between start() and the returned stop(). */
export function sampleUsage(server: ServerProcess, intervalMs = 200): () => { peakRssMb: number | null; cpuSeconds: number | null } {
  const first = server.usage();
  let peak = first?.rssMb ?? null;
  const timer = setInterval(() => {
    const now = server.usage();
    if (now && (peak === null || now.rssMb > peak)) peak = now.rssMb;
  }, intervalMs);
  return () => {
    clearInterval(timer);
    const last = server.usage();
    if (last && (peak === null || last.rssMb > peak)) peak = last.rssMb;
    return { peakRssMb: peak, cpuSeconds: first && last ? last.cpuSeconds - first.cpuSeconds : null };
  };
}
