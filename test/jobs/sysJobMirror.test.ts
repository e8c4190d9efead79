/** With BullMQ, sys_job mirrors the jobs in Redis: added, run, failed to dead, cancelled; never their data. */
import t from 'tap';
import type { DataDatabase } from '../../capabilities/dataDatabase.ts';
import { bootJobs, redisProblem, requireRedis, waitFor, type JobsRuntime } from './jobsHarness.ts';

const SECRET = 'HUNTER2-mirror-secret';
const ci = process.env.CI === 'true';
const problem = await redisProblem();

async function rows(jobs: JobsRuntime): Promise<Array<Record<string, unknown>>> {
  const database = jobs.rt.runtime.kernel.service<DataDatabase>('data.database')!;
  return database.withDatabase(jobs.environmentId, (db) => db.knex('sys_job').select('*').orderBy('created_at'));
}

t.test('sys_job follows BullMQ jobs', { skip: problem !== null && !ci ? `Redis unreachable (${problem})` : false }, async (t) => {
  await requireRedis(t);
  const jobs = await bootJobs(t, 'redis');
  const done = await jobs.queue.add('probe.effect', { n: 1 });
  const dead = await jobs.queue.add('probe.fail', { message: 'upstream refused', password: SECRET }, { attempts: 2, backoff: 10 });
  const later = await jobs.queue.add('probe.effect', { n: 2 }, { delay: 60_000 });

  const find = async (id: string) => (await rows(jobs)).find((r) => r.id === id);
  t.ok(await waitFor(async () => (await find(done.id))?.state === 'completed'), 'a run job ends completed');
  t.ok(await waitFor(async () => (await find(dead.id))?.state === 'dead'), 'a failing job ends dead');
  const deadRow = (await find(dead.id))!;
  t.match(deadRow, { name: 'probe.fail', state: 'dead', max_attempts: 2, last_error: 'upstream refused (attempt 2)' });
  t.equal(Number(deadRow.attempts), 2, 'with its attempts');
  t.type(deadRow.finished_at, 'string');
  const doneRow = (await find(done.id))!;
  t.match(doneRow, { name: 'probe.effect', state: 'completed' });
  t.equal(Number(doneRow.attempts), 1);
  t.type(doneRow.started_at, 'string');
  t.equal((await find(later.id))?.state, 'delayed', 'a delayed job shows delayed');
  t.notOk(JSON.stringify(await rows(jobs)).includes(SECRET), 'the job data is never mirrored');

  t.equal(await jobs.queue.cancel(later.id, jobs.environmentId), true);
  t.ok(await waitFor(async () => (await find(later.id)) === undefined), 'a cancelled job leaves sys_job');

  await jobs.queue.retry(dead.id, jobs.environmentId);
  t.ok(await waitFor(async () => (await find(dead.id))?.state === 'dead' && Number((await find(dead.id))?.attempts) === 2 && (await find(dead.id))?.updated_at !== deadRow.updated_at), 'a retried job is mirrored again');
});

t.test('plugins.jobs.mirror false keeps sys_job empty on BullMQ', { skip: problem !== null && !ci ? `Redis unreachable (${problem})` : false }, async (t) => {
  await requireRedis(t);
  const jobs = await bootJobs(t, 'redis', { config: { plugins: { jobs: { mirror: false } } } });
  const { id } = await jobs.queue.add('probe.effect', { n: 1 });
  t.ok(await waitFor(async () => (await jobs.queue.get(id, jobs.environmentId))?.state === 'completed'));
  t.same(await rows(jobs), [], 'no row');
});
