/**
 * `osr start` with workers on an in-memory SQLite database (`sqlite::memory:`), which lives inside
 * one process (cli/workersDatabase.ts; README, Running several processes): `--workers 2` asked for
 * is refused with WORKERS_IN_MEMORY_DATABASE naming the fix, and no worker serves; the default (one
 * worker per core) serves with one worker and says so, so what is written is read back.
 */
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { workersPlan } from '../../cli/workersDatabase.ts';
import { freePort } from '../harness/freePort.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
const ADMIN = { email: 'admin@example.com', password: 'admin-password-1' };

/** One request on a new connection: the cluster's primary gives each connection to the next worker. */
function send(port: number, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request({ host: '127.0.0.1', port, method, path, agent: false, headers: { ...(payload ? { 'content-type': 'application/json' } : {}), origin: `http://127.0.0.1:${port}`, ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: text ? JSON.parse(text) : null }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

function start(t: Test, args: string[]) {
  const dir = mkdtempSync(join(tmpdir(), 'osr-workers-memory-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return freePort().then((port) => {
    const config = join(dir, 'runtime.config.json');
    writeFileSync(config, JSON.stringify({
      apps: [join(ROOT, 'test/data/fixtures/fresh-app')], dataDir: dir, database: { url: 'sqlite::memory:' },
      log: { level: 'warn' }, server: { port, host: '127.0.0.1', logRequests: false },
      auth: { secret: 'workers-secret-0123456789-0123456789-abcdef', admin: ADMIN },
    }));
    const child = spawn(process.execPath, [join(ROOT, 'bin/osr.js'), 'start', '--config', config, ...args], { cwd: ROOT, env: { ...process.env, NODE_ENV: 'test' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (chunk) => (output += String(chunk)));
    child.stderr!.on('data', (chunk) => (output += String(chunk)));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    t.teardown(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });
    return { port, child, exited, output: () => output };
  });
}

t.test('the plan: refused when asked for, alone by default, nothing to say for a file or one worker', async (t) => {
  const memory = [{ id: 'main', databaseUrl: 'sqlite::memory:' }];
  t.throws(() => workersPlan(memory, 2, true), { code: 'WORKERS_IN_MEMORY_DATABASE', message: /--workers 2 cannot serve environment 'main'.*sqlite::memory:.*Fix: start with --workers 1/ }, 'asked for: refused');
  t.throws(() => workersPlan([{ id: 'files', databaseUrl: 'sqlite:/tmp/a.db' }, { id: 'empty', databaseUrl: 'sqlite:' }], 3, true), { code: 'WORKERS_IN_MEMORY_DATABASE', message: /environment 'empty'/ }, 'a URL without a path is in memory too');
  t.match(workersPlan(memory, 4, false), { alone: true, line: /serving with one worker instead of 4/ }, 'by default: one worker');
  t.same(workersPlan(memory, 1, true), { alone: false }, 'one worker: nothing to say');
  t.same(workersPlan([{ id: 'main', databaseUrl: 'sqlite:/tmp/memory.db' }, { id: 'pg', databaseUrl: 'postgres://h/db' }], 4, true), { alone: false }, 'files and PostgreSQL are shared');
});

t.test('osr start --workers 2 on sqlite::memory: is refused, naming the fix', async (t) => {
  const run = await start(t, ['--workers', '2']);
  const code = await Promise.race([run.exited, new Promise<string>((resolve) => setTimeout(() => resolve('still running after 120 s'), 120_000).unref())]);
  t.equal(code, 1, `the primary exits 1${code !== 1 ? `:\n${run.output()}` : ''}`);
  t.match(run.output(), /\[WORKERS_IN_MEMORY_DATABASE\] osr start --workers 2 cannot serve environment 'default': its database \(sqlite::memory:\) is an in-memory SQLite database/, 'the refusal names its code and why');
  t.match(run.output(), /Fix: start with --workers 1, or give the environment a SQLite file/, 'and the fix');
  t.notMatch(run.output(), /serving http/, 'no worker served');
});

t.test('osr start with the default workers on sqlite::memory: serves with one worker and says so', { skip: availableParallelism() < 2 ? 'one core: the default is one worker already' : false }, async (t) => {
  const run = await start(t, []);
  for (let i = 0; i < 1200 && !/serving http/.test(run.output()) && run.child.exitCode === null; i++) await new Promise((resolve) => setTimeout(resolve, 100));
  t.match(run.output(), new RegExp(`in-memory SQLite database \\(sqlite::memory:\\), which lives inside one process: serving with one worker instead of ${availableParallelism()}`), 'the line says one worker serves');
  t.match(run.output(), /\(worker \d+, alone: in-memory database\)/, 'the worker serves alone');
  const signedIn = await send(run.port, 'POST', '/api/v1/auth/sign-in', ADMIN);
  t.equal(signedIn.status, 200, 'the admin signs in');
  const auth = { authorization: `Bearer ${String(signedIn.json.token)}` };
  for (let i = 0; i < 4; i++) {
    const created = await send(run.port, 'POST', '/api/v1/data/fresh_item', { label: `m${i}`, n: i, status: 'open' }, auth);
    t.equal(created.status, 201, `write ${i}`);
    const read = await send(run.port, 'GET', `/api/v1/data/fresh_item/${String(created.json.id)}`, undefined, auth);
    t.same([read.status, read.json?.n], [200, i], `read back through the next connection ${i}`);
  }
  await new Promise((resolve) => setTimeout(resolve, 500));
  t.equal([...run.output().matchAll(/serving http/g)].length, 1, 'no other worker was started');
  run.child.kill('SIGTERM');
  t.equal(await run.exited, 0, 'SIGTERM stops it');
});
