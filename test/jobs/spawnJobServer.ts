import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Test } from 'tap';

const ROOT = new URL('../..', import.meta.url).pathname;

export interface JobServer {
  pid: number;
  /** Base URL when JOBS_PORT was given. */
  url: string | null;
  child: ChildProcess;
  /** Sends one command and answers its reply line. */
  send(command: Record<string, unknown>): Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** Resolves with the exit code or signal. */
  exited: Promise<string>;
  stderr(): string;
}

/** Starts test/jobs/fixtures/jobServer.ts in its own process; killed at teardown if still running. */
export async function spawnJobServer(t: Test, env: Record<string, string>): Promise<JobServer> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/jobs/fixtures/jobServer.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<string>((resolve) => child.on('exit', (code, signal) => resolve(signal ?? String(code))));
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const lines = createInterface({ input: child.stdout! });
  const waiting: Array<(line: string) => void> = [];
  const queued: string[] = [];
  lines.on('line', (line) => {
    const next = waiting.shift();
    if (next) next(line);
    else queued.push(line);
  });
  const nextLine = () => new Promise<string>((resolve, reject) => {
    const early = queued.shift();
    if (early !== undefined) return resolve(early);
    waiting.push(resolve);
    void exited.then((how) => reject(new Error(`job server exited (${how}): ${err.slice(-2000)}`)));
  });
  const ready = JSON.parse(await nextLine());
  return {
    pid: ready.pid,
    url: ready.url ?? null,
    child,
    async send(command) {
      child.stdin!.write(`${JSON.stringify(command)}\n`);
      return JSON.parse(await nextLine());
    },
    exited,
    stderr: () => err,
  };
}
