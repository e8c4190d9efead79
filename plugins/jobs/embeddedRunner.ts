import type { DataDatabase, SideTableAccess } from '../../capabilities/dataDatabase.ts';
import type { DeadHandler, JobHandler } from '../../capabilities/jobsQueue.ts';
import type { Logger } from '../../kernel/logger.ts';
import { claimJobs, completeJob, errorText, failJob, handBack, insertNextOccurrence, JOB_TABLES, renewLeases, sweepCompleted, type ClaimedJob } from './jobStore.ts';
import { nextSlot } from './nextSlot.ts';

/** How often completed jobs' data and old completed jobs are removed. */
const SWEEP_MS = 10_000;

export interface RunnerOptions {
  /** Handlers running at once in this process, over every environment. */
  concurrency: number;
  /** Milliseconds between two looks for due jobs when idle. */
  pollMs: number;
  /** Lease of a claimed job; renewed at a third of it while the handler runs. */
  leaseMs: number;
  /** Completed jobs are deleted after this many milliseconds. */
  keepCompletedMs: number;
}

export interface Runner {
  start(): void;
  /** Looks for work now (after an add in this process). */
  wake(): void;
  /** Stops claiming, waits up to `ms` for running handlers, then hands the rest back. */
  drain(ms: number): Promise<{ finished: number; handedBack: number }>;
  inFlight(): number;
}

interface Running {
  job: ClaimedJob;
  environmentId: string;
  done: Promise<void>;
}

/**
 * The embedded backend's worker: polls every environment's sys_job for due jobs of the names this
 * process handles, runs them with bounded concurrency, and records the outcome only while it still
 * holds the job's lease (a job whose lease ran out may have been claimed by another process).
 */
export function createEmbeddedRunner(deps: {
  database: DataDatabase;
  environments: () => string[];
  handlers: ReadonlyMap<string, JobHandler>;
  /** Told when a job of the name goes dead here. */
  onDead?: ReadonlyMap<string, DeadHandler>;
  worker: string;
  options: RunnerOptions;
  log: Logger;
}): Runner {
  const { database, handlers, worker, options, log } = deps;
  const running = new Map<string, Running>();
  let stopped = true;
  let timer: NodeJS.Timeout | null = null;
  let renewTimer: NodeJS.Timeout | null = null;
  let ticking: Promise<void> | null = null;
  let again = false;
  let lastSweep = 0;
  const names = () => [...handlers.keys()];
  const db = <T>(environmentId: string, work: (db: SideTableAccess) => Promise<T>) => database.withDatabase(environmentId, work, undefined, JOB_TABLES);

  function tick(): Promise<void> {
    if (stopped) return Promise.resolve();
    if (ticking) {
      again = true;
      return ticking;
    }
    ticking = claimDue().finally(() => {
      ticking = null;
      schedule(again && running.size < options.concurrency ? 0 : options.pollMs);
      again = false;
    });
    return ticking;
  }

  async function claimDue(): Promise<void> {
    try {
      let claimedFull = false;
      for (const environmentId of deps.environments()) {
        const free = options.concurrency - running.size;
        if (free <= 0 || stopped) break;
        const now = new Date();
        const claimed = await db(environmentId, (d) => claimJobs(d, worker, names(), free, now, new Date(now.getTime() + options.leaseMs)));
        if (claimed.length === free) claimedFull = true;
        // Drain began while claiming: the jobs go straight back.
        if (stopped) await db(environmentId, (d) => handBack(d, worker, claimed.map((j) => j.id), new Date()));
        else for (const job of claimed) run(job, environmentId);
      }
      if (Date.now() - lastSweep > SWEEP_MS) {
        lastSweep = Date.now();
        const before = new Date(Date.now() - options.keepCompletedMs);
        for (const environmentId of deps.environments()) await db(environmentId, (d) => sweepCompleted(d, before));
      }
      if (claimedFull) again = true;
    } catch (error) {
      log.error({ err: error }, 'jobs: claiming due jobs failed; trying again at the next poll');
    }
  }

  function schedule(ms: number) {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void tick(), ms);
    timer.unref?.();
  }

  function run(job: ClaimedJob, environmentId: string) {
    const done = (async () => {
      try {
        // The next occurrence of a repeatable job is queued first, so a crash in the handler loses no slot.
        if (job.repeatKey) await queueNextOccurrence(job, environmentId);
        // A claim is an attempt: a job whose last attempt was interrupted (its process died) has none left.
        if (job.attempts > job.maxAttempts) throw new Error(`interrupted on its last attempt: its ${job.maxAttempts} attempt(s) are used up (the process running it stopped before it finished)`);
        await handlers.get(job.name)!({ id: job.id, name: job.name, data: job.data, attempt: job.attempts, environmentId });
        await db(environmentId, (d) => completeJob(d, worker, job.id, new Date()));
      } catch (error) {
        try {
          const state = await db(environmentId, (d) => failJob(d, worker, job, error, new Date()));
          log.warn({ job: job.id, name: job.name, attempt: job.attempts, state, err: error }, `jobs: ${job.name} failed (${state ?? 'no longer held'})`);
          const dead = deps.onDead?.get(job.name);
          if (state === 'dead' && dead) {
            await Promise.resolve(dead({ id: job.id, name: job.name, data: job.data, attempt: job.attempts, environmentId }, errorText(error)))
              .catch((deadError: unknown) => log.error({ job: job.id, name: job.name, err: deadError }, `jobs: the dead-job handler of ${job.name} failed`));
          }
        } catch (recordError) {
          // The lease runs out and another attempt follows: nothing is lost.
          log.error({ job: job.id, err: recordError }, 'jobs: could not record a failed attempt');
        }
      } finally {
        running.delete(job.id);
        if (!stopped) schedule(0);
      }
    })();
    running.set(job.id, { job, environmentId, done });
  }

  async function queueNextOccurrence(job: ClaimedJob, environmentId: string) {
    const at = nextSlot({ every: job.repeatEvery, pattern: job.repeatPattern }, new Date());
    await db(environmentId, (d) => insertNextOccurrence(d, job.id, {
      name: job.name, data: job.data, runAt: at, maxAttempts: job.maxAttempts,
      backoffType: job.backoffType, backoffDelay: job.backoffDelay, priority: 0,
      idempotencyKey: `repeat:${job.repeatKey}:${at.getTime()}`,
      repeat: { key: job.repeatKey!, every: job.repeatEvery, pattern: job.repeatPattern },
    }, new Date()));
  }

  async function renew() {
    const byEnv = new Map<string, string[]>();
    for (const r of running.values()) byEnv.set(r.environmentId, [...(byEnv.get(r.environmentId) ?? []), r.job.id]);
    const until = new Date(Date.now() + options.leaseMs);
    for (const [environmentId, ids] of byEnv) {
      await db(environmentId, (d) => renewLeases(d, worker, ids, until)).catch((error: unknown) => log.error({ err: error }, 'jobs: lease renewal failed'));
    }
  }

  return {
    start() {
      stopped = false;
      renewTimer = setInterval(() => void renew(), Math.max(50, Math.floor(options.leaseMs / 3)));
      renewTimer.unref?.();
      schedule(0);
    },
    wake() {
      if (!stopped && running.size < options.concurrency) schedule(0);
    },
    async drain(ms) {
      stopped = true;
      if (timer) clearTimeout(timer);
      if (ticking) await ticking;
      const before = running.size;
      const all = Promise.all([...running.values()].map((r) => r.done));
      let timeout: NodeJS.Timeout | undefined;
      await Promise.race([all, new Promise((resolve) => (timeout = setTimeout(resolve, ms)))]);
      clearTimeout(timeout);
      if (renewTimer) clearInterval(renewTimer);
      const left = [...running.values()];
      const byEnv = new Map<string, string[]>();
      for (const r of left) byEnv.set(r.environmentId, [...(byEnv.get(r.environmentId) ?? []), r.job.id]);
      let handedBack = 0;
      for (const [environmentId, ids] of byEnv) handedBack += await db(environmentId, (d) => handBack(d, worker, ids, new Date()));
      return { finished: before - left.length, handedBack };
    },
    inFlight: () => running.size,
  };
}
