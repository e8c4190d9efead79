/**
 * Jobs resume soon after a hung Redis returns (SIGSTOP, then SIGCONT: connections stay open,
 * nothing answers meanwhile): a job due while Redis hung, and one added after it returned, run
 * within 5 s of its return, and a repeatable schedule ticks again as soon. A redis-server of its own on a free port: the shared one is never stopped.
 */
import pino from 'pino';
import t from 'tap';
import { createBullmqQueue } from '../../plugins/jobs/createBullmqQueue.ts';
import { ownRedisServer } from '../harness/ownRedisServer.ts';

const server = await ownRedisServer(t);
const url = server.url;

const ran = new Map<string, number>();
const ticks: number[] = [];
const handlers = new Map([
  ['mail', (job: { data: unknown }) => { ran.set(String((job.data as { tag: string }).tag), Date.now()); }],
  ['tick', () => { ticks.push(Date.now()); }],
]);
const bull = createBullmqQueue({
  redisUrl: url, environments: () => ['default'], defaultEnvironment: 'default', handlers, handle: () => undefined,
  concurrency: 1, keepCompletedMs: 60_000, leaseMs: 30_000, enqueueTimeoutMs: 1000, log: pino({ level: 'silent' }) as never,
});

async function until(check: () => boolean, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end && !check();) await new Promise((r) => setTimeout(r, 50));
  return check();
}

t.test('after Redis hung for 10 s, jobs run within 5 s of its return', async (t) => {
  bull.start();
  await bull.queue.schedule('tick', 'every-second', { every: 1_000 });
  await bull.queue.add('mail', { tag: 'before' });
  t.ok(await until(() => ran.has('before'), 5_000), 'a job runs while Redis answers');
  // Due 2 s into the hang.
  await bull.queue.add('mail', { tag: 'due-during' }, { delay: 2_000 });
  server.hang();
  await new Promise((r) => setTimeout(r, 10_000));
  server.resume();
  const returned = Date.now();
  await bull.queue.add('mail', { tag: 'after' }).catch(() => undefined);
  const both = await until(() => ran.has('due-during') && ran.has('after'), 30_000);
  const took = (tag: string) => (ran.has(tag) ? `${ran.get(tag)! - returned} ms` : 'never');
  t.ok(both, `both ran (due during the hang: ${took('due-during')}, added after: ${took('after')})`);
  t.ok(ran.has('due-during') && ran.get('due-during')! - returned < 5_000, `the job due during the hang ran within 5 s of the return (${took('due-during')})`);
  t.ok(ran.has('after') && ran.get('after')! - returned < 5_000, `the job added after the return ran within 5 s (${took('after')})`);
  t.ok(await until(() => ticks.some((at) => at > returned), 5_000), `the schedule ticks again within 5 s of the return (${ticks.find((at) => at > returned) === undefined ? 'not yet' : `${ticks.find((at) => at > returned)! - returned} ms`})`);
  const closing = Date.now();
  const closed = await Promise.race([bull.drain(5_000).then(() => bull.close()).then(() => 'closed'), new Promise((r) => setTimeout(() => r('still closing'), 10_000))]);
  t.equal(closed, 'closed', `and the workers drain and the queue closes (${Date.now() - closing} ms)`);
});

t.test('a whole runtime on that Redis: its schedule runs again within 5 s of the return', async (t) => {
  const { bootJobs } = await import('./jobsHarness.ts');
  const j = await bootJobs(t, 'sqlite', { config: { redis: { url } } });
  t.equal(j.queue.backend, 'bullmq', 'jobs on BullMQ');
  await j.queue.schedule('probe.effect', 'each-second', { every: 1_000 }, { tick: true });
  const count = async () => (await j.effects()).length;
  const seen = async (n: number, ms: number) => {
    for (const end = Date.now() + ms; Date.now() < end;) {
      if ((await count()) > n) return true;
      await new Promise((r) => setTimeout(r, 50));
    }
    return (await count()) > n;
  };
  t.ok(await seen(0, 5_000), 'the schedule runs while Redis answers');
  server.hang();
  await new Promise((r) => setTimeout(r, 10_000));
  const before = await count();
  server.resume();
  const returned = Date.now();
  const again = await seen(before, 5_000);
  t.ok(again, `it runs again within 5 s of the return (${again ? `${Date.now() - returned} ms` : 'not within 5 s'})`);
});
