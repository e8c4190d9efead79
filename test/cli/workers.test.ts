/**
 * `osr start --workers 2` (bin/clusterPrimary.js; README, Scale-out), on SQLite and PostgreSQL:
 * two worker processes serve one port; a write through one is read by the other at once (SQLite:
 * each worker looks at the file's data_version before serving anything remembered, fileChanges.ts;
 * PostgreSQL: the write signal and tokens); the
 * sign-in rate limit counts once for both (the primary counts, plugins/events/workersCounter.ts);
 * SIGTERM to the primary stops every worker. Each request goes on a connection of its own, which
 * the primary hands to the workers in turn.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import pg from 'pg';
import { freePort } from '../harness/freePort.ts';
import { postgresProblem } from '../harness/postgresProblem.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
const POSTGRES_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const ADMIN = { email: 'admin@example.com', password: 'admin-password-1' };

/** One request on a new connection (no keep-alive): the cluster's primary gives each connection to the next worker. */
function send(port: number, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: any; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request({ host: '127.0.0.1', port, method, path, agent: false, headers: { ...(payload ? { 'content-type': 'application/json' } : {}), origin: `http://127.0.0.1:${port}`, ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: text ? JSON.parse(text) : null, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

async function cluster(t: Test, database: Record<string, unknown>) {
  const dir = mkdtempSync(join(tmpdir(), 'osr-workers-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const port = await freePort();
  const config = join(dir, 'runtime.config.json');
  writeFileSync(config, JSON.stringify({
    apps: [join(ROOT, 'test/data/fixtures/fresh-app')], dataDir: dir, ...database,
    log: { level: 'warn' }, server: { port, host: '127.0.0.1', logRequests: false },
    auth: { secret: 'workers-secret-0123456789-0123456789-abcdef', admin: ADMIN },
    plugins: { auth: { rateLimit: { signIn: { perIp: { max: 6, windowSeconds: 120 }, perAccount: { max: 10, windowSeconds: 300 } } } } },
  }));
  const child = spawn(process.execPath, [join(ROOT, 'bin/osr.js'), 'start', '--config', config, '--workers', '2'], { cwd: ROOT, env: { ...process.env, NODE_ENV: 'test' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += String(chunk)));
  child.stderr!.on('data', (chunk) => (output += String(chunk)));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  t.teardown(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  const workers = () => [...output.matchAll(/\(worker (\d+), one of 2\)/g)].map((m) => m[1]!);
  for (let i = 0; i < 1200 && workers().length < 2 && child.exitCode === null; i++) await new Promise((resolve) => setTimeout(resolve, 100));
  if (workers().length < 2) throw new Error(`two workers did not start:\n${output}`);
  return { port, child, exited, workers, output: () => output };
}

async function body(t: Test, database: Record<string, unknown>) {
  const { port, child, exited, workers, output } = await cluster(t, database);
  t.equal(new Set(workers()).size, 2, 'two worker processes serve');
  const signedIn = await send(port, 'POST', '/api/v1/auth/sign-in', ADMIN);
  t.equal(signedIn.status, 200, 'the admin signs in');
  const auth = { authorization: `Bearer ${String(signedIn.json.token)}` };
  // A write through one worker, then its record, page and total through the next connections (both workers).
  let fresh = 0;
  const trials = 40;
  for (let i = 0; i < trials; i++) {
    const created = await send(port, 'POST', '/api/v1/data/fresh_item', { label: `w${i}`, n: i, status: 'open' }, auth);
    if (created.status !== 201) throw new Error(`create answered ${created.status}: ${JSON.stringify(created.json)}`);
    const token = created.headers['x-osr-write-token'];
    const headers = typeof token === 'string' ? { ...auth, 'x-osr-write-token': token } : auth;
    const [record, page] = [await send(port, 'GET', `/api/v1/data/fresh_item/${String(created.json.id)}`, undefined, headers), await send(port, 'GET', '/api/v1/data/fresh_item?orderBy=-n&limit=5', undefined, headers)];
    if (record.status === 200 && record.json.n === i && page.json.total === i + 1 && page.json.items[0]?.n === i) fresh++;
  }
  t.equal(fresh, trials, 'every write read back through the other worker too');
  // Sign-in attempts from one IP, alternating workers: counted once (6 per window), not once per worker.
  const statuses: number[] = [];
  for (let i = 0; i < 12; i++) statuses.push((await send(port, 'POST', '/api/v1/auth/sign-in', { email: `nobody${i}@example.com`, password: 'wrong-password-1' })).status);
  // Six per window in all: the admin's sign-in above and five of these; the other seven refused.
  t.same(statuses, [401, 401, 401, 401, 401, 429, 429, 429, 429, 429, 429, 429], 'the limit of one process: five more attempts, then refused');
  child.kill('SIGTERM');
  t.equal(await exited, 0, `SIGTERM to the primary stops the workers and it exits 0${child.exitCode !== 0 ? `:\n${output()}` : ''}`);
}

t.test('osr start --workers 2 on SQLite', async (t) => {
  await body(t, {});
});

t.test('osr start --workers 2 on PostgreSQL', async (t) => {
  const problem = await postgresProblem(POSTGRES_URL);
  if (problem !== null) {
    if (process.env.CI === 'true') throw new Error(`PostgreSQL is required when CI=true: ${problem}`);
    t.comment(`skipped: PostgreSQL unreachable (${problem})`);
    return;
  }
  const id = `workers-${randomBytes(3).toString('hex')}`;
  const schema = `env_${id.replace(/-/g, '_')}`;
  t.teardown(async () => {
    const client = new pg.Client({ connectionString: POSTGRES_URL });
    await client.connect();
    await client.query(`drop schema if exists ${schema} cascade`);
    await client.end();
  });
  await body(t, { environments: [{ id }], database: { url: POSTGRES_URL } });
});

t.test('a SIGTERM that comes as the first worker begins serving starts no other worker: the primary exits', async (t) => {
  // The serving line is printed before the ready message reaches the primary: a signal sent on the
  // line often comes first. Before the fix, that ready message started the second worker anyway.
  const dir = mkdtempSync(join(tmpdir(), 'osr-workers-stop-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  for (let round = 0; round < 3; round++) {
    const port = await freePort();
    const config = join(dir, 'runtime.config.json');
    writeFileSync(config, JSON.stringify({ apps: [], dataDir: dir, log: { level: 'warn' }, server: { port, host: '127.0.0.1', logRequests: false }, auth: { secret: 'workers-secret-0123456789-0123456789-abcdef', admin: ADMIN } }));
    const child = spawn(process.execPath, [join(ROOT, 'bin/osr.js'), 'start', '--config', config, '--workers', '2'], { cwd: ROOT, env: { ...process.env, NODE_ENV: 'test' }, stdio: ['ignore', 'pipe', 'pipe'] });
    t.teardown(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });
    let output = '';
    child.stderr!.on('data', (chunk) => (output += String(chunk)));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await new Promise<void>((resolve) => child.stdout!.on('data', (chunk) => {
      output += String(chunk);
      if (/serving http/.test(output)) resolve();
    }));
    child.kill('SIGTERM');
    const code = await Promise.race([exited, new Promise<string>((resolve) => setTimeout(() => resolve('still running after 30 s'), 30_000).unref())]);
    t.equal(code, 0, `round ${round}: the primary exits 0${code !== 0 ? `:\n${output}` : ''}`);
    const pids = [...output.matchAll(/\(worker (\d+), one of 2\)/g)].map((m) => Number(m[1]));
    t.same(pids.filter((pid) => { try { process.kill(pid, 0); return true; } catch { return false; } }), [], 'no worker is left running');
  }
});
