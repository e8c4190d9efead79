import { Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { createHash } from 'node:crypto';
import type { DeadHandler, JobHandler, JobInfo, JobsQueue, JobCount, JobState } from '../../capabilities/jobsQueue.ts';
import { codedError } from '../../kernel/errors.ts';
import type { Logger } from '../../kernel/logger.ts';
import { bullmqPrefix, jobIdFor, parseJobId } from './bullmqNames.ts';
import { MAX_ATTEMPTS } from './jobOptions.ts';
import { withTimeout } from '../../kernel/withTimeout.ts';
import { infoIn, infoOf, stateOf } from './bullmqJobInfo.ts';
import type { BullmqMirror, MirroredJob } from './bullmqMirror.ts';
import { checkRepeat, newJob } from './jobOptions.ts';
import { errorText } from './jobStore.ts';

export interface BullmqBackend {
  queue: JobsQueue;
  start(): void;
  /** Closes the workers: running jobs finish within `ms`, else BullMQ's stalled check gives them back. */
  drain(ms: number): Promise<void>;
  close(): Promise<void>;
}

const COUNTED = ['waiting', 'prioritized', 'delayed', 'active', 'completed', 'failed'] as const;

/**
 * BullMQ's own stalled limit is per worker; ours is the job's attempts (checked before the handler
 * runs), so BullMQ's is set above the most attempts a job may have and never decides first.
 */
const BULLMQ_STALL_LIMIT = MAX_ATTEMPTS + 1;

/** A job interrupted (its lock lost: its process died) more often than its attempts allow: why it dies. */
export function interruptedTooOften(stalled: number, attempts: number): string | null {
  if (stalled <= attempts) return null;
  return `interrupted ${stalled} times, more than its ${attempts} attempt(s) allow: the process running it stopped (or lost its lock) before it finished`;
}

/**
 * jobs.queue on Redis through BullMQ: one BullMQ queue per job name and environment (key prefix
 * osr:<environment>), one worker per handler. Same semantics as the embedded backend; BullMQ's
 * failed state is this capability's dead.
 */
export function createBullmqQueue(deps: {
  redisUrl: string;
  environments: () => string[];
  defaultEnvironment: string;
  handlers: ReadonlyMap<string, JobHandler>;
  /** Told when a job of the name goes dead in this process's worker. */
  onDead?: ReadonlyMap<string, DeadHandler>;
  handle: JobsQueue['handle'];
  concurrency: number;
  keepCompletedMs: number;
  /** The lock of a running job (renewed at half of it); a lost lock is found by the stalled check, run every half of it. */
  leaseMs: number;
  /** An add waits this long for Redis, then answers JOBS_UNAVAILABLE (the add is not withdrawn; default 1000). */
  enqueueTimeoutMs?: number;
  log: Logger;
  /** Keeps sys_job in step with Redis; absent: sys_job stays empty (plugins.jobs.mirror false). */
  mirror?: BullmqMirror;
}): BullmqBackend {
  const { handlers } = deps;
  const queues = new Map<string, Queue>();
  const workers: Worker[] = [];
  const connection = { url: deps.redisUrl, maxRetriesPerRequest: null };
  const env = (environmentId?: string) => environmentId ?? deps.defaultEnvironment;
  const queueOf = (environmentId: string, name: string) => {
    const key = `${environmentId}\0${name}`;
    let queue = queues.get(key);
    if (!queue) queues.set(key, (queue = new Queue(name, { connection, prefix: bullmqPrefix(environmentId) })));
    return queue;
  };
  let lockClient: Redis | null = null;
  const locks = () => (lockClient ??= new Redis(deps.redisUrl, { maxRetriesPerRequest: 1, lazyConnect: false }));
  const known = (name: string) => {
    if (!handlers.has(name)) throw codedError('JOB_UNKNOWN_NAME', { name });
  };
  const findJob = async (id: string, environmentId: string): Promise<Job | null> => {
    const parsed = parseJobId(id);
    if (!parsed || !handlers.has(parsed.name)) return null;
    return (await queueOf(environmentId, parsed.name).getJob(parsed.bullId)) ?? null;
  };
  const mirrored = (job: Job, info: JobInfo): MirroredJob => {
    const backoff = typeof job.opts.backoff === 'object' ? job.opts.backoff : { type: 'fixed', delay: job.opts.backoff ?? 0 };
    return { ...info, backoffType: backoff.type === 'fixed' ? 'fixed' : 'exponential', backoffDelay: backoff.delay ?? 0 };
  };
  const mirrorChange = (job: Job | undefined, environmentId: string, name: string) => {
    if (!deps.mirror || !job) return;
    infoOf(job, environmentId).then((info) => deps.mirror!.changed(mirrored(job, info)), (error: unknown) => deps.log.warn({ err: error, name }, 'jobs: a BullMQ job state could not be read for sys_job'));
  };
  const jobOptions = (job: ReturnType<typeof newJob>) => ({
    attempts: job.maxAttempts,
    backoff: { type: job.backoffType, delay: job.backoffDelay },
    removeOnComplete: { age: Math.ceil(deps.keepCompletedMs / 1000) },
    removeOnFail: false,
  });

  const addNow: JobsQueue['add'] = async (name, data, options = {}) => {
      const now = new Date();
      const job = newJob(name, data, options, now);
      const { id, bullId } = jobIdFor(name, job.idempotencyKey);
      const q = queueOf(env(options.environmentId), name);
      // BullMQ ignores an add whose job id exists: the key queues once.
      const existed = job.idempotencyKey !== null && (await q.getJob(bullId)) !== undefined;
      if (existed) return { id, added: false };
      const added = await q.add(name, job.data, {
        ...jobOptions(job),
        jobId: bullId,
        delay: Math.max(0, job.runAt.getTime() - now.getTime()),
        ...(job.priority > 0 ? { priority: job.priority } : {}),
      });
      const environmentId = env(options.environmentId);
      deps.mirror?.added(mirrored(added, infoIn(added, environmentId, job.runAt.getTime() > now.getTime() ? 'delayed' : 'waiting')));
      return { id, added: true };
  };

  /**
   * A call on a request's path waits for Redis at most enqueueTimeoutMs, then JOBS_BACKEND_TIMEOUT
   * (an add: JOBS_UNAVAILABLE). The call goes on; what it does when Redis answers is not undone.
   */
  const timeoutMs = deps.enqueueTimeoutMs ?? 1000;
  const bounded = <T>(operation: string, work: () => Promise<T>) =>
    withTimeout(work, timeoutMs, () => codedError('JOBS_BACKEND_TIMEOUT', { timeoutMs, operation }));
  const queue: JobsQueue = {
    backend: 'bullmq',
    handle: deps.handle,
    async add(name, data, options = {}) {
      known(name);
      let timedOut = false;
      // An add answered late is not withdrawn: whether Redis took it is logged when it answers.
      const adding = addNow(name, data, options);
      adding.then(
        (result) => { if (timedOut) deps.log.warn({ name, id: result.id }, 'jobs: Redis took an add after its request was answered JOBS_UNAVAILABLE'); },
        (error: unknown) => { if (timedOut) deps.log.warn({ err: error, name }, 'jobs: an add answered JOBS_UNAVAILABLE was not queued'); },
      );
      return withTimeout(() => adding, timeoutMs, () => {
        timedOut = true;
        deps.log.warn({ name, timeoutMs }, 'jobs: Redis did not answer an add in time; it is queued if Redis takes it later');
        return codedError('JOBS_UNAVAILABLE', { timeoutMs, name });
      });
    },
    async schedule(name, key, repeat, data, options = {}) {
      known(name);
      const spec = checkRepeat(key, repeat);
      const job = newJob(name, data, options, new Date());
      const environmentId = env(options.environmentId);
      const q = queueOf(environmentId, name);
      // Every process schedules at start: an unchanged schedule is left alone, and of processes
      // writing one at the same moment only one does. (BullMQ runs an 'every' job at once on each
      // upsert, so a second upsert would run a second job in the same period.)
      const existing = await q.getJobScheduler(key);
      const unchanged = existing !== undefined && (spec.pattern ? existing.pattern === spec.pattern : Number(existing.every) === spec.every)
        && JSON.stringify(existing.template?.data ?? null) === JSON.stringify(job.data ?? null);
      if (unchanged) return;
      const version = createHash('sha256').update(JSON.stringify([spec.pattern ?? null, spec.every ?? null, job.data ?? null])).digest('hex').slice(0, 16);
      const claimed = await locks().set(`${bullmqPrefix(environmentId)}:schedule-lock:${name}:${key}:${version}`, String(process.pid), 'PX', 10_000, 'NX');
      if (claimed === null) return;
      await q.upsertJobScheduler(
        key,
        spec.pattern ? { pattern: spec.pattern, tz: 'UTC' } : { every: spec.every! },
        { name, data: job.data, opts: jobOptions(job) },
      );
    },
    unschedule(name, key, environmentId) {
      return bounded('unschedule', async () => {
        known(name);
        return (await queueOf(env(environmentId), name).removeJobScheduler(key)) ? 1 : 0;
      });
    },
    cancel(id, environmentId) {
      return bounded('cancel', async () => {
        const job = await findJob(id, env(environmentId));
        if (!job) return false;
        const state = stateOf(await job.getState(), job.attemptsMade);
        if (state !== 'waiting' && state !== 'delayed' && state !== 'failed') return false;
        await job.remove();
        deps.mirror?.removed(id, env(environmentId));
        return true;
      });
    },
    get(id, environmentId) {
      return bounded('get', async () => {
        const job = await findJob(id, env(environmentId));
        return job ? infoOf(job, env(environmentId)) : null;
      });
    },
    counts(environmentId) {
      return bounded('counts', async () => {
        const out: JobCount[] = [];
        for (const name of [...handlers.keys()].sort()) {
          const counts = await queueOf(env(environmentId), name).getJobCounts(...COUNTED);
          const byState = new Map<JobState, number>();
          for (const state of COUNTED) {
            const ours = stateOf(state === 'prioritized' ? 'waiting' : state, 0);
            byState.set(ours, (byState.get(ours) ?? 0) + (counts[state] ?? 0));
          }
          for (const [state, count] of byState) if (count > 0) out.push({ name, state, count });
        }
        return out;
      });
    },
    dead(environmentId, limit = 100) {
      return bounded('dead', async () => {
        const out = [];
        for (const name of handlers.keys()) {
          const jobs = await queueOf(env(environmentId), name).getJobs(['failed'], 0, Math.min(Math.max(1, limit), 1000) - 1);
          for (const job of jobs) out.push(await infoOf(job, env(environmentId)));
        }
        return out.sort((a, b) => (b.finishedAt ?? '').localeCompare(a.finishedAt ?? '')).slice(0, limit);
      });
    },
    retry(id, environmentId) {
      return bounded('retry', async () => {
        const job = await findJob(id, env(environmentId));
        if (!job) throw codedError('NOT_FOUND', { what: `Job ${id}` });
        const state = stateOf(await job.getState(), job.attemptsMade);
        if (state !== 'dead') throw codedError('JOB_NOT_DEAD', { id, state });
        await job.retry('failed', { resetAttemptsMade: true });
        mirrorChange(job, env(environmentId), job.name);
        return (await queue.get(id, environmentId))!;
      });
    },
  };

  return {
    queue,
    start() {
      for (const environmentId of deps.environments()) {
        for (const [name, handler] of handlers) {
          const worker = new Worker(name, async (job: Job) => {
            deps.mirror?.changed(mirrored(job, { ...infoIn(job, environmentId, 'active'), startedAt: new Date().toISOString() }));
            // Each interruption (a process killed mid-run) counts against the job's attempts.
            const interrupted = interruptedTooOften(job.stalledCounter ?? 0, job.opts.attempts ?? 1);
            if (interrupted) throw new UnrecoverableError(interrupted);
            await handler({ id: `${name}~${job.id}`, name, data: job.data, attempt: job.attemptsMade + 1, environmentId });
          }, {
            connection, prefix: bullmqPrefix(environmentId), concurrency: deps.concurrency,
            lockDuration: deps.leaseMs, stalledInterval: Math.max(500, Math.floor(deps.leaseMs / 2)), maxStalledCount: BULLMQ_STALL_LIMIT,
          });
          worker.on('failed', (job, error) => {
            deps.log.warn({ job: job?.id, name, err: error }, `jobs: ${name} failed`);
            mirrorChange(job, environmentId, name);
            const dead = deps.onDead?.get(name);
            const final = job !== undefined && (error?.name === 'UnrecoverableError' || job.attemptsMade >= (job.opts.attempts ?? 1));
            if (!dead || !final) return;
            void Promise.resolve()
              .then(() => dead({ id: `${name}~${job.id}`, name, data: job.data, attempt: job.attemptsMade, environmentId }, error?.name === 'UnrecoverableError' ? errorText(error.message) : errorText(error)))
              .catch((deadError: unknown) => deps.log.error({ job: job.id, name, err: deadError }, `jobs: the dead-job handler of ${name} failed`));
          });
          worker.on('completed', (job) => mirrorChange(job, environmentId, name));
          worker.on('error', (error) => deps.log.error({ err: error }, 'jobs: BullMQ worker error'));
          workers.push(worker);
        }
      }
    },
    async drain(ms) {
      let timeout: NodeJS.Timeout | undefined;
      const closing = Promise.all(workers.map((w) => w.close()));
      const timedOut = await Promise.race([closing.then(() => false), new Promise<boolean>((resolve) => (timeout = setTimeout(() => resolve(true), ms)))]);
      clearTimeout(timeout);
      if (timedOut) await Promise.all(workers.map((w) => w.close(true)));
    },
    async close() {
      await deps.mirror?.settled();
      lockClient?.disconnect();
      lockClient = null;
      await Promise.all([...queues.values()].map((q) => q.close()));
      queues.clear();
    },
  };
}
