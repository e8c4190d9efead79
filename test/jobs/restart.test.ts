import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { bootJobs, dropRedisKeys, environmentFor, forEachBackend, POSTGRES_URL, REDIS_URL, waitFor } from './jobsHarness.ts';
import { spawnJobServer } from './spawnJobServer.ts';

await forEachBackend(t, async (t, driver) => {
  await t.test('jobs added before a kill -9 run after the restart, a job cut mid-run included', async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'osr-jobs-'));
    t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
    const env = environmentFor('kill');
    const server = await spawnJobServer(t, {
      JOBS_ENV: env.id,
      JOBS_DATA_DIR: dataDir,
      JOBS_OPTIONS: JSON.stringify({ pollMs: 50, leaseMs: 1500 }),
      ...(driver === 'postgres' ? { DATABASE_URL: POSTGRES_URL } : {}),
      ...(driver === 'redis' ? { REDIS_URL } : {}),
    });
    if (driver === 'redis') t.teardown(() => dropRedisKeys(env.id));
    const delayed = await server.send({ cmd: 'add', name: 'probe.effect', data: { kind: 'delayed' }, options: { delay: 1500 } });
    const slow = await server.send({ cmd: 'add', name: 'probe.slow', data: { ms: 60_000 } });
    t.equal(delayed.ok && slow.ok, true, 'added in the child');
    t.ok(await waitFor(async () => (await server.send({ cmd: 'get', id: slow.ids[0] })).job.state === 'active'), 'the slow job runs in the child');
    server.child.kill('SIGKILL');
    t.equal(await server.exited, 'SIGKILL');

    const j = await bootJobs(t, driver, { environment: env.id, dataDir });
    const [delayedId] = delayed.ids;
    const [slowId] = slow.ids;
    t.ok(await waitFor(async () => (await j.queue.get(delayedId))?.state === 'completed'), 'the delayed job ran after the restart');
    // The slow job's lease (1.5 s) runs out and it is claimed again; its second attempt is cut short by the test.
    // (BullMQ gives a dead worker's job back after its lock duration, 30 s: not waited for here.)
    if (driver !== 'redis') t.ok(await waitFor(async () => (await j.queue.get(slowId))?.attempts === 2, 10_000), 'the cut job is claimed again');
    t.same((await j.effects()).map((e) => e.job_id), [delayedId], 'the delayed job ran once');
  });

  // Embedded: a claim is an attempt. BullMQ counts interruptions apart (test/flows/bullmqStalls.test.ts).
  if (driver !== 'redis') {
    await t.test('a job killed on its last attempt is dead when claimed again, not run again and again', async (t) => {
      const dataDir = mkdtempSync(join(tmpdir(), 'osr-jobs-'));
      t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
      const env = environmentFor('last');
      const server = await spawnJobServer(t, {
        JOBS_ENV: env.id,
        JOBS_DATA_DIR: dataDir,
        JOBS_OPTIONS: JSON.stringify({ pollMs: 50, leaseMs: 1000 }),
        ...(driver === 'postgres' ? { DATABASE_URL: POSTGRES_URL } : {}),
      });
      const slow = await server.send({ cmd: 'add', name: 'probe.slow', data: { ms: 60_000 }, options: { attempts: 1 } });
      const [id] = slow.ids;
      t.ok(await waitFor(async () => (await server.send({ cmd: 'get', id })).job.state === 'active'), 'its one attempt runs');
      server.child.kill('SIGKILL');
      t.equal(await server.exited, 'SIGKILL');
      const j = await bootJobs(t, driver, { environment: env.id, dataDir });
      t.ok(await waitFor(async () => (await j.queue.get(id))?.state === 'dead', 10_000), 'after the lease it goes dead');
      const job = await j.queue.get(id);
      t.equal(job?.attempts, 2, 'claimed once more, and not run');
      t.match(job?.lastError, /^interrupted on its last attempt: its 1 attempt\(s\) are used up/, 'naming why');
    });
  }
});
