import t from 'tap';
import { bootJobs, forEachBackend, waitFor } from './jobsHarness.ts';

await forEachBackend(t, async (t, driver) => {
  await t.test('a job runs once and ends completed', async (t) => {
    const j = await bootJobs(t, driver);
    const { id, added } = await j.queue.add('probe.effect', { n: 1 });
    t.equal(added, true);
    t.ok(await waitFor(async () => (await j.queue.get(id))?.state === 'completed'), 'completed');
    const effects = await j.effects();
    t.same(effects.map((e) => [e.job_id, e.attempt, JSON.parse(e.data)]), [[id, 1, { n: 1 }]]);
    const info = (await j.queue.get(id))!;
    t.equal(info.attempts, 1);
    t.equal(info.lastError, null);
    t.equal(info.name, 'probe.effect');
  });

  await t.test('an idempotency key given twice queues once', async (t) => {
    const j = await bootJobs(t, driver);
    const first = await j.queue.add('probe.effect', { n: 1 }, { idempotencyKey: 'order-42', delay: 1500 });
    const second = await j.queue.add('probe.effect', { n: 2 }, { idempotencyKey: 'order-42' });
    t.same(second, { id: first.id, added: false });
    t.equal((await j.queue.get(first.id))!.state, 'delayed');
    t.ok(await waitFor(async () => (await j.queue.get(first.id))?.state === 'completed'));
    await new Promise((r) => setTimeout(r, 200));
    t.same((await j.effects()).map((e) => JSON.parse(e.data)), [{ n: 1 }], 'one run, with the first data');
  });

  await t.test('a failing job retries with backoff and ends dead with its error; retry queues it again', async (t) => {
    const j = await bootJobs(t, driver);
    const started = Date.now();
    const { id } = await j.queue.add('probe.fail', { message: 'smtp refused' }, { attempts: 3, backoff: 100 });
    t.ok(await waitFor(async () => (await j.queue.get(id))?.state === 'dead', 10_000), 'dead');
    const elapsed = Date.now() - started;
    t.ok(elapsed >= 300, `backoff 100 + 200 ms waited (took ${elapsed} ms)`);
    const dead = (await j.queue.get(id))!;
    t.equal(dead.attempts, 3);
    t.equal(dead.lastError, 'smtp refused (attempt 3)');
    t.ok(dead.finishedAt);
    t.same((await j.queue.dead()).map((d) => d.id), [id]);
    t.ok(await waitFor(async () => (await j.effects()).length > 0), 'onDead was called');
    t.same((await j.effects()).map((e) => [e.job_id, e.attempt, JSON.parse(e.data)]), [[id, 3, { dead: 'smtp refused (attempt 3)' }]], 'once, with the job and the last error');
    t.same((await j.queue.counts()).filter((c) => c.name === 'probe.fail'), [{ name: 'probe.fail', state: 'dead', count: 1 }]);
    const again = await j.queue.retry(id);
    t.ok(again.attempts <= 1, `attempts reset (${again.attempts})`);
    t.ok(['waiting', 'active', 'failed', 'delayed'].includes(again.state), `queued again (${again.state}; a first new attempt may already have failed and wait for its backoff)`);
    t.ok(await waitFor(async () => (await j.queue.get(id))?.state === 'dead' && (await j.queue.get(id))?.attempts === 3), 'three more attempts, then dead again');
    await t.rejects(j.queue.retry('no-such-job'), { code: 'NOT_FOUND' });
    const done = await j.queue.add('probe.effect', {});
    t.ok(await waitFor(async () => (await j.queue.get(done.id))?.state === 'completed'));
    await t.rejects(j.queue.retry(done.id), { code: 'JOB_NOT_DEAD', message: `Job ${done.id} is completed, not dead: only a dead job can be retried.` });
  });

  await t.test('cancel removes a pending job; unknown names and bad options are coded errors', async (t) => {
    const j = await bootJobs(t, driver);
    const { id } = await j.queue.add('probe.effect', {}, { delay: 60_000 });
    t.equal(await j.queue.cancel(id), true);
    t.equal(await j.queue.get(id), null);
    t.equal(await j.queue.cancel(id), false);
    await t.rejects(j.queue.add('nobody.handles', {}), { code: 'JOB_UNKNOWN_NAME' });
    await t.rejects(j.queue.add('probe.effect', {}, { attempts: 0 }), { code: 'JOB_OPTIONS_INVALID' });
    await t.rejects(j.queue.add('probe.effect', {}, { runAt: 'tomorrow' }), { code: 'JOB_OPTIONS_INVALID' });
    await t.rejects(j.queue.add('probe.effect', { blob: 'x'.repeat(300_000) }), { code: 'JOB_OPTIONS_INVALID', message: /at most 256000/ });
    await t.rejects(j.queue.add('probe.effect', {}, { idempotencyKey: '' }), { code: 'JOB_OPTIONS_INVALID' });
    await t.rejects(j.queue.schedule('probe.effect', 'k', { pattern: '61 * * * *' }), { code: 'JOB_OPTIONS_INVALID' });
  });

  await t.test('priority: lower runs first among due jobs', async (t) => {
    const j = await bootJobs(t, driver, { config: { plugins: { jobs: { concurrency: 1 } } } });
    const runAt = new Date(Date.now() + 2000);
    for (const priority of [5, 0, 2]) await j.queue.add('probe.effect', { priority }, { runAt, priority });
    t.ok(await waitFor(async () => (await j.effects()).length === 3));
    t.same((await j.effects()).map((e) => JSON.parse(e.data).priority), [0, 2, 5]);
  });

  await t.test('a repeatable job fires once per slot', async (t) => {
    const j = await bootJobs(t, driver);
    await j.queue.schedule('probe.effect', 'tick', { every: 300 }, { tick: true });
    await j.queue.schedule('probe.effect', 'tick', { every: 300 }, { tick: true });
    await new Promise((r) => setTimeout(r, 1400));
    const runs = (await j.effects()).length;
    t.ok(runs >= 2 && runs <= 5, `at most one run per 300 ms slot in 1400 ms (${runs})`);
    // One pending occurrence, or none when one was running at that moment: it then queues no next.
    t.ok([0, 1].includes(await j.queue.unschedule('probe.effect', 'tick')), 'at most one pending occurrence removed');
    await new Promise((r) => setTimeout(r, 700));
    const after = (await j.effects()).length;
    await new Promise((r) => setTimeout(r, 700));
    t.equal((await j.effects()).length, after, 'no occurrence runs once unscheduled');
  });
});
