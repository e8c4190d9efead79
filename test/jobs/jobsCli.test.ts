/** `osr jobs` and `osr doctor` as operators run them: a child process on the environment's database or Redis. */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { bootJobs, dropRedisKeys, environmentFor, redisProblem, REDIS_URL, requireRedis, waitFor } from './jobsHarness.ts';

const BIN = new URL('../../bin/osr.js', import.meta.url).pathname;

function osr(args: string[], cwd: string, env: Record<string, string>) {
  const child = spawn(process.execPath, [BIN, ...args], { cwd, env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', OSR_FROM_SOURCE: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  child.stderr.on('data', (c) => (stderr += c));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

function workspace(t: Test, environmentId: string) {
  const cwd = mkdtempSync(join(tmpdir(), 'osr-jobs-cli-'));
  t.teardown(() => rmSync(cwd, { recursive: true, force: true }));
  writeFileSync(join(cwd, 'runtime.config.json'), JSON.stringify({ apps: [], environments: [{ id: environmentId }] }));
  return { cwd, dataDir: join(cwd, 'data') };
}

async function deadAndDone(t: Test, backend: 'sqlite' | 'redis', environment: string, dataDir: string) {
  const j = await bootJobs(t, backend, { environment, dataDir, keep: true });
  const dead = await j.queue.add('probe.fail', { message: 'no route to host' }, { attempts: 1 });
  const done = await j.queue.add('probe.effect', {});
  t.ok(await waitFor(async () => (await j.queue.get(dead.id))?.state === 'dead' && (await j.queue.get(done.id))?.state === 'completed'));
  await j.close();
  return { dead: dead.id, done: done.id };
}

t.test('embedded: counts and dead letters, retry of a dead job, and doctor names the backend', async (t) => {
  const env = environmentFor('cli');
  const ws = workspace(t, env.id);
  const ids = await deadAndDone(t, 'sqlite', env.id, ws.dataDir);
  const shell = { OS_DATA_DIR: ws.dataDir };

  const listed = await osr(['jobs', '--json'], ws.cwd, shell);
  t.equal(listed.code, 0, listed.stderr);
  const report = JSON.parse(listed.stdout);
  t.equal(report.backend, 'embedded');
  t.same(report.environments[0].counts.filter((c: { name: string }) => c.name.startsWith('probe.')), [{ name: 'probe.effect', state: 'completed', count: 1 }, { name: 'probe.fail', state: 'dead', count: 1 }]);
  t.match(report.environments[0].dead, [{ id: ids.dead, name: 'probe.fail', state: 'dead', attempts: 1, lastError: 'no route to host (attempt 1)' }]);

  const text = await osr(['jobs'], ws.cwd, shell);
  t.match(text.stdout, /backend: embedded/);
  t.match(text.stdout, new RegExp(`${ids.dead}\\s+probe.fail\\s+1 attempts`));

  const retried = await osr(['jobs', 'retry', ids.dead], ws.cwd, shell);
  t.equal(retried.code, 0, retried.stderr);
  t.match(retried.stdout, `job ${ids.dead} queued again in environment ${env.id}`);
  const after = JSON.parse((await osr(['jobs', '--json'], ws.cwd, shell)).stdout);
  t.same(after.environments[0].counts.filter((c: { name: string }) => c.name === 'probe.fail'), [{ name: 'probe.fail', state: 'waiting', count: 1 }]);
  const notDead = await osr(['jobs', 'retry', ids.done], ws.cwd, shell);
  t.equal(notDead.code, 1);
  t.match(notDead.stderr, `Job ${ids.done} is completed, not dead: only a dead job can be retried.`);
  const unknown = await osr(['jobs', 'retry', 'nope'], ws.cwd, shell);
  t.equal(unknown.code, 1);
  t.match(unknown.stderr, 'Job nope was not found.');

  const doctor = JSON.parse((await osr(['doctor', '--json'], ws.cwd, shell)).stdout);
  t.match(doctor.checks.find((c: { name: string }) => c.name === 'jobs'), { ok: true, detail: /^embedded:/ });
  const withRedis = JSON.parse((await osr(['doctor', '--json'], ws.cwd, { ...shell, REDIS_URL })).stdout);
  t.match(withRedis.checks.find((c: { name: string }) => c.name === 'jobs'), { ok: true, detail: /^bullmq:/ });
});

const problem = await redisProblem();
const skip = problem !== null && process.env.CI !== 'true' ? `Redis unreachable at ${REDIS_URL} (${problem}); set CI=true to make this a failure` : false;
t.test('bullmq: osr jobs reads the counts and dead letters from Redis', { skip }, async (t) => {
  await requireRedis(t);
  const env = environmentFor('clibull');
  t.teardown(() => dropRedisKeys(env.id));
  const ws = workspace(t, env.id);
  const ids = await deadAndDone(t, 'redis', env.id, ws.dataDir);
  const shell = { OS_DATA_DIR: ws.dataDir, REDIS_URL };
  const listed = await osr(['jobs', '--json'], ws.cwd, shell);
  t.equal(listed.code, 0, listed.stderr);
  const report = JSON.parse(listed.stdout);
  t.equal(report.backend, 'bullmq');
  t.same(report.environments[0].counts.filter((c: { name: string }) => c.name.startsWith('probe.')), [{ name: 'probe.effect', state: 'completed', count: 1 }, { name: 'probe.fail', state: 'dead', count: 1 }]);
  t.match(report.environments[0].dead, [{ id: ids.dead, state: 'dead', lastError: 'no route to host (attempt 1)' }]);
  const retried = await osr(['jobs', 'retry', ids.dead], ws.cwd, shell);
  t.equal(retried.code, 0, retried.stderr);
  const after = JSON.parse((await osr(['jobs', '--json'], ws.cwd, shell)).stdout);
  t.same(after.environments[0].counts.filter((c: { name: string }) => c.name === 'probe.fail'), [{ name: 'probe.fail', state: 'waiting', count: 1 }]);
});
