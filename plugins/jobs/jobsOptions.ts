import { z } from 'zod';

export const jobsOptionsSchema = z.strictObject({
  /** Handlers running at once in one process (default 8). */
  concurrency: z.number().int().min(1).max(256).default(8),
  /** Embedded backend: milliseconds between two looks for due jobs when idle (default 500). */
  pollMs: z.number().int().min(10).max(60_000).default(500),
  /**
   * A running job's lease, renewed while its handler runs: a process that dies lets its jobs run
   * again in another after it (embedded: claimed at the next poll; BullMQ: its lock duration, the
   * stalled check running every half of it). Default 30 000.
   */
  leaseMs: z.number().int().min(1000).max(3_600_000).default(30_000),
  /** Milliseconds a stopping process waits for running handlers before it hands them back (default 10 000). */
  drainMs: z.number().int().min(0).max(600_000).default(10_000),
  /** Completed jobs are deleted after this many milliseconds (default a day); dead jobs stay. */
  keepCompletedMs: z.number().int().min(0).default(86_400_000),
  /**
   * BullMQ backend: milliseconds an add waits for Redis before it answers JOBS_UNAVAILABLE (503), so
   * a request adding a job never waits on a hung Redis longer (default 1000). The add is not
   * withdrawn: if Redis takes it later, the job is queued.
   */
  enqueueTimeoutMs: z.number().int().min(50).max(60_000).default(1000),
  /** BullMQ backend: keep each job's sys_job row in step with Redis, so /data/sys_job lists them (default true). */
  mirror: z.boolean().default(true),
});

export type JobsOptions = z.output<typeof jobsOptionsSchema>;
