import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';
import { dropEnvironmentSchemas, POSTGRES_URL } from '../harness/databases.ts';
import { freePort } from '../harness/freePort.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
const BIN = join(ROOT, 'bin/osr.js');
export const DESK_APP = join(ROOT, 'test/console/fixtures/desk');

export interface ConsoleServer {
  url: string;
  /** The environment ids, the default first. */
  environments: string[];
  /** Everything `osr start` printed so far. */
  output(): string;
  /** Calls the API as a client with a bearer token (or none). */
  api(method: string, path: string, body?: unknown, token?: string): Promise<{ status: number; body: any }>;
}

/**
 * `osr start` as a newcomer runs it, in a fresh workspace with the desk app: on SQLite (a file
 * under the workspace) or on PostgreSQL (the environment's own schema, dropped afterwards).
 * `config` adds top-level keys to the workspace's runtime.config.json (e.g. `auth`). `labels`, when
 * given, hosts one environment per label (the first the default), each labelled so.
 */
export async function startConsoleServer(t: Test, driver: 'sqlite' | 'postgres', config: Record<string, unknown> = {}, labels: string[] = []): Promise<ConsoleServer> {
  const cwd = mkdtempSync(join(tmpdir(), 'osr-console-'));
  const environment = `console-${process.pid}`;
  // Named, so that on PostgreSQL each has a schema of its own (env_<id>) rather than the shared public one.
  const environments = labels.length === 0 ? [{ id: environment }] : labels.map((label, i) => ({ id: i === 0 ? environment : `${environment}-${i + 1}`, label }));
  const ids = environments.map((e) => e.id);
  // A 5,000-row import on a machine shared by other test runs may take longer than the default 30 s.
  writeFileSync(join(cwd, 'runtime.config.json'), JSON.stringify({ apps: [DESK_APP], environments, server: { requestTimeoutMs: 300_000 }, ...config }));
  const port = await freePort();
  if (driver === 'postgres') await dropEnvironmentSchemas(...ids);
  const child = spawn(process.execPath, [BIN, 'start', '--port', String(port), '--workers', '1'], {
    cwd,
    env: {
      PATH: process.env.PATH, OS_DATA_DIR: join(cwd, 'data'), LOG_LEVEL: 'warn',
      // The test's own OSR_TEST_* variables (a hook's secret, named by a flow's secretEnv) reach the server.
      ...Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith('OSR_TEST_'))),
      ...(driver === 'postgres' ? { DATABASE_URL: POSTGRES_URL } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => { stdout += chunk; });
  child.stderr.on('data', (chunk) => { stderr += chunk; });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  t.teardown(async () => {
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
    child.kill('SIGKILL');
    if (driver === 'postgres') await dropEnvironmentSchemas(...ids);
    rmSync(cwd, { recursive: true, force: true });
  });
  await new Promise<void>((resolve, reject) => {
    const check = () => { if (/serving http/.test(stdout)) resolve(); };
    child.stdout.on('data', check);
    check();
    void exited.then((code) => reject(new Error(`osr start exited (${code}):\n${stdout}\n${stderr}`)));
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    environments: ids,
    output: () => stdout,
    async api(method, path, body, token) {
      const res = await fetch(`${url}/api/v1${path}`, {
        method,
        headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const text = await res.text();
      let parsed: unknown = text;
      try { parsed = text ? JSON.parse(text) : null; } catch { /* not JSON: kept as text */ }
      return { status: res.status, body: parsed };
    },
  };
}
