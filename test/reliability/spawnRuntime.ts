/** The runtime as operators run it: `node bin/osr.js start --config FILE --workers 1` (one process: the tests kill and restart it), in a child process. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';
import { toReply, type Reply } from './reliabilityHarness.ts';
import { freePort } from '../harness/freePort.ts';

const ROOT = new URL('../..', import.meta.url).pathname;

export interface RuntimeProcess {
  url: string;
  /** Output of the process so far (stdout and stderr), for failure messages. */
  output(): string;
  /** Resolves with the exit code or signal when the process ends. */
  exited: Promise<string>;
  isRunning(): boolean;
  send(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Reply>;
  kill(signal: NodeJS.Signals): Promise<string>;
}

export interface RuntimeFiles {
  dir: string;
  configFile: string;
  port: number;
}


/** A temporary data directory and config file (JSON) on a free port; removed at teardown. */
export async function runtimeFiles(t: Test, config: Record<string, unknown>): Promise<RuntimeFiles> {
  const dir = mkdtempSync(join(tmpdir(), 'osr-rel-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const port = await freePort();
  const configFile = join(dir, 'runtime.config.json');
  const full = {
    dataDir: dir,
    log: { level: 'warn' },
    auth: { secret: 'reliability-secret-0123456789-abcdefghij' },
    api: { requireAuth: false },
    ...config,
    server: { port, host: '127.0.0.1', logRequests: false, ...(config.server as object | undefined) },
  };
  writeFileSync(configFile, JSON.stringify(full, null, 2));
  return { dir, configFile, port };
}

/** Starts the runtime and waits for the first 200 of /api/v1/health. */
export async function startRuntimeProcess(t: Test, files: RuntimeFiles, timeoutMs = 30_000): Promise<RuntimeProcess> {
  const env = { ...process.env };
  for (const key of ['PORT', 'HOST', 'DATABASE_URL', 'OS_DATA_DIR', 'OS_AUTH_SECRET', 'AUTH_SECRET', 'OS_ENVIRONMENT_ID', 'NODE_ENV', 'LOG_LEVEL', 'NODE_OPTIONS']) delete env[key];
  const child: ChildProcess = spawn(process.execPath, [join(ROOT, 'bin/osr.js'), 'start', '--config', files.configFile, '--workers', '1'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  let running = true;
  const exited = new Promise<string>((resolve) => {
    child.once('exit', (code, signal) => {
      running = false;
      resolve(signal ?? `code ${String(code)}`);
    });
  });
  t.teardown(async () => {
    if (running) {
      child.kill('SIGKILL');
      await exited;
    }
  });
  const url = `http://127.0.0.1:${files.port}`;
  const process_: RuntimeProcess = {
    url,
    output: () => output,
    exited,
    isRunning: () => running,
    async send(method, path, body, headers = {}) {
      const res = await fetch(url + path, {
        method,
        headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
        ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      });
      return toReply(res.status, await res.text(), Object.fromEntries(res.headers));
    },
    async kill(signal) {
      if (running) child.kill(signal);
      return exited;
    },
  };
  const started = Date.now();
  for (;;) {
    if (!running) throw new Error(`the runtime exited during boot (${await exited}):\n${output}`);
    if (Date.now() - started > timeoutMs) throw new Error(`the runtime did not answer /api/v1/health within ${timeoutMs} ms:\n${output}`);
    const ok = await fetch(`${url}/api/v1/health`).then((r) => r.status === 200, () => false);
    if (ok) return process_;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
