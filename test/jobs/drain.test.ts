import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { bootJobs, dropRedisKeys, environmentFor, forEachBackend, POSTGRES_URL, REDIS_URL, waitFor } from './jobsHarness.ts';
import { spawnJobServer } from './spawnJobServer.ts';

await forEachBackend(t, async (t, driver) => {
  await t.test('stopping a process while jobs run loses none: running jobs finish, the rest wait for the next process', async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'osr-jobs-'));
    t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
    const env = environmentFor('drain');
    const server = await spawnJobServer(t, {
      JOBS_ENV: env.id,
      JOBS_DATA_DIR: dataDir,
      JOBS_OPTIONS: JSON.stringify({ pollMs: 50, concurrency: 4, drainMs: 10_000 }),
      ...(driver === 'postgres' ? { DATABASE_URL: POSTGRES_URL } : {}),
      ...(driver === 'redis' ? { REDIS_URL } : {}),
    });
    if (driver === 'redis') t.teardown(() => dropRedisKeys(env.id));
    const added = await server.send({ cmd: 'add', name: 'probe.slow', data: { ms: 1500 }, count: 16 });
    t.equal(added.ids.length, 16);
    await new Promise((r) => setTimeout(r, 150));
    const stopped = await server.send({ cmd: 'stop' });
    t.equal(stopped.stopped, true);
    t.equal(await server.exited, '0', 'a clean exit');

    const j = await bootJobs(t, driver, { environment: env.id, dataDir });
    const before = (await j.effects()).filter((e) => e.pid === server.pid).length;
    t.ok(before >= 4 && before < 16, `the jobs running at stop finished in the stopping process (${before} of 16)`);
    t.ok(await waitFor(async () => (await j.effects()).length >= 16, 20_000), 'the others ran in the next process');
    await new Promise((r) => setTimeout(r, 300));
    const ids = (await j.effects()).map((e) => e.job_id);
    t.equal(ids.length, 16, 'each ran once');
    t.same(new Set(ids), new Set(added.ids));
  });

  // BullMQ gives a force-closed worker's job back after its lock duration (30 s): embedded only.
  await t.test('a handler that outlasts the drain is handed back, its attempt not counted, and runs in the next process', { skip: driver === 'redis' ? 'embedded backend only' : false }, async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'osr-jobs-'));
    t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
    const env = environmentFor('handback');
    const a = await bootJobs(t, driver, { environment: env.id, dataDir, config: { plugins: { jobs: { drainMs: 100 } } }, keep: true });
    const { id } = await a.queue.add('probe.slow', { ms: 1500 });
    t.ok(await waitFor(async () => (await a.queue.get(id))?.state === 'active'));
    await a.close();

    const b = await bootJobs(t, driver, { environment: env.id, dataDir });
    t.ok(await waitFor(async () => (await b.queue.get(id))?.state === 'completed', 10_000), 'completed in the next process');
    t.equal((await b.queue.get(id))!.attempts, 1, 'the handed-back attempt is not counted');
    t.same((await b.effects()).map((e) => e.pid), [process.pid], 'one effect');
  });
});
