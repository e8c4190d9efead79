/**
 * A BullMQ add waits at most plugins.jobs.enqueueTimeoutMs for Redis (a hung Redis, SIGSTOP), then
 * answers JOBS_UNAVAILABLE (503); the add is not withdrawn, so the job is queued once Redis returns.
 * A redis-server of its own on a free port: the shared one is never stopped.
 */
import { Queue } from 'bullmq';
import pino from 'pino';
import t from 'tap';
import { formatErrorMessage, isCodedError } from '../../kernel/errors.ts';
import { createBullmqQueue } from '../../plugins/jobs/createBullmqQueue.ts';
import { bullmqPrefix } from '../../plugins/jobs/bullmqNames.ts';
import { ownRedisServer } from '../harness/ownRedisServer.ts';

const server = await ownRedisServer(t);
const url = server.url;
for (let i = 0; i < 50; i++) {
  const probe = new Queue('probe', { connection: { url, maxRetriesPerRequest: 1 } });
  const ready = await probe.getJobCounts().then(() => true, () => false);
  await probe.close().catch(() => undefined);
  if (ready) break;
  await new Promise((r) => setTimeout(r, 100));
}

const handlers = new Map([['mail', () => undefined]]);
const bull = createBullmqQueue({
  redisUrl: url, environments: () => ['default'], defaultEnvironment: 'default', handlers, handle: () => undefined,
  concurrency: 1, keepCompletedMs: 60_000, leaseMs: 30_000, enqueueTimeoutMs: 1000, log: pino({ level: 'silent' }) as never,
});
t.teardown(() => bull.close());

t.test('a hung Redis: the add answers JOBS_UNAVAILABLE within the bound, and the job is queued when Redis returns', async (t) => {
  const first = await bull.queue.add('mail', { n: 1 }, { idempotencyKey: 'before' });
  t.equal(first.added, true, 'Redis answering: the add queues');

  server.hang();
  const started = Date.now();
  const error = await bull.queue.add('mail', { n: 2 }, { idempotencyKey: 'during' }).then(() => null, (e: unknown) => e);
  const waited = Date.now() - started;
  t.ok(isCodedError(error), 'a coded error');
  t.equal((error as { code?: string }).code, 'JOBS_UNAVAILABLE');
  t.equal((error as { status?: number }).status, 503);
  t.equal((error as Error).message, formatErrorMessage('JOBS_UNAVAILABLE', { timeoutMs: 1000, name: 'mail' }));
  t.ok(waited < 3000, `answered within the bound and a loaded machine's margin (${waited} ms)`);
  // Reads and changes of jobs on a request's path are bounded the same way.
  for (const [operation, call] of [['get', () => bull.queue.get(first.id)], ['counts', () => bull.queue.counts()], ['dead', () => bull.queue.dead()], ['retry', () => bull.queue.retry(first.id)]] as const) {
    const began = Date.now();
    const failed = await (call() as Promise<unknown>).then(() => null, (e: unknown) => e);
    const took = Date.now() - began;
    t.same([(failed as { code?: string })?.code, (failed as { status?: number })?.status], ['JOBS_BACKEND_TIMEOUT', 503], `${operation}: JOBS_BACKEND_TIMEOUT`);
    t.equal((failed as Error).message, formatErrorMessage('JOBS_BACKEND_TIMEOUT', { timeoutMs: 1000, operation }), `${operation}: naming it`);
    t.ok(took < 3000, `${operation}: within the bound (${took} ms)`);
  }

  server.resume();
  const counts = new Queue('mail', { connection: { url, maxRetriesPerRequest: 1 }, prefix: bullmqPrefix('default') });
  t.teardown(() => counts.close());
  let queued = 0;
  for (let i = 0; i < 100 && queued < 2; i++) {
    queued = (await counts.getJobCounts('waiting', 'delayed', 'prioritized')).waiting ?? 0;
    if (queued < 2) await new Promise((r) => setTimeout(r, 100));
  }
  t.equal(queued, 2, 'the add answered 503 was not withdrawn: it queued when Redis returned');
  const again = await bull.queue.add('mail', { n: 2 }, { idempotencyKey: 'during' });
  t.equal(again.added, false, 'a retry with the same idempotencyKey queues once');
});
