import { defineCapability } from './defineCapability.ts';

/**
 * - `waiting`: ready to run. `delayed`: waits for its run time (a delay, runAt or a repeat slot).
 * - `active`: claimed by a process, under a lease that the process renews while the handler runs.
 * - `failed`: its last attempt threw; it runs again at its backoff time. `dead`: out of attempts,
 *   the last error kept; only `retry` runs it again. `completed`: done.
 */
export type JobState = 'waiting' | 'delayed' | 'active' | 'completed' | 'failed' | 'dead';

export const JOB_STATES: readonly JobState[] = ['waiting', 'delayed', 'active', 'completed', 'failed', 'dead'];

/** What a handler receives. */
export interface JobRun<Data = unknown> {
  id: string;
  name: string;
  data: Data;
  /** 1 on the first attempt. */
  attempt: number;
  environmentId: string;
}

/** A handler: its return ends the job; a throw fails the attempt (the message is kept as the last error). */
export type JobHandler<Data = unknown> = (job: JobRun<Data>) => unknown;

/** What `onDead` receives: the job as its handler saw it, and the last error's message. */
export type DeadHandler<Data = unknown> = (job: JobRun<Data>, reason: string) => unknown;

export interface HandleOptions<Data = unknown> {
  /**
   * Called once, in the process that recorded it, when a job of this name goes dead: out of
   * attempts, or interrupted (its process died mid-run) more often than its attempts allow.
   * `reason` is the last error's message. A throw is logged; the job stays dead either way.
   */
  onDead?: DeadHandler<Data>;
}

export interface Backoff {
  /** `exponential` (default): delay, 2 x delay, 4 x delay...; `fixed`: delay each time. */
  type?: 'exponential' | 'fixed';
  /** Milliseconds before the second attempt (default 1000). */
  delay: number;
}

export interface AddJobOptions {
  /** Environment whose database keeps the job; default: the default environment. */
  environmentId?: string;
  /** Milliseconds from now before the first attempt. */
  delay?: number;
  /** Time of the first attempt (wins over delay). */
  runAt?: Date | string;
  /** Attempts in all, the first included (default 3, at most 100). */
  attempts?: number;
  /** Wait before a retry; a number is an exponential backoff's first delay in milliseconds. */
  backoff?: number | Backoff;
  /** A second add with the same name and key queues nothing and answers the first job's id. */
  idempotencyKey?: string;
  /** Lower runs first among jobs due at once; default 0. */
  priority?: number;
}

/** Every N milliseconds (slots aligned on multiples of N since the epoch) or a 5-field cron pattern in UTC. */
export type RepeatSpec = { every: number; pattern?: undefined } | { pattern: string; every?: undefined };

export interface JobInfo {
  id: string;
  name: string;
  state: JobState;
  /** Attempts started so far. */
  attempts: number;
  maxAttempts: number;
  priority: number;
  /** When the job runs next (waiting, delayed, failed) or last became due. */
  runAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  /** Message of the last failed attempt; never the data. */
  lastError: string | null;
  /** Schedule key of a repeatable job's occurrence. */
  repeatKey: string | null;
  createdAt: string;
  environmentId: string;
}

export interface JobCount {
  name: string;
  state: JobState;
  count: number;
}

export interface JobsQueue {
  /** Where jobs live: the environments' databases, or Redis through BullMQ. */
  readonly backend: 'embedded' | 'bullmq';
  /** Register the handler of a job name; in a plugin's register phase only (one handler per name). */
  handle<Data = unknown>(name: string, handler: JobHandler<Data>, options?: HandleOptions<Data>): void;
  /** Queue a job; `added` is false when the idempotency key was seen before (then `id` is the first job's). */
  add(name: string, data?: unknown, options?: AddJobOptions): Promise<{ id: string; added: boolean }>;
  /**
   * Keep a repeatable job: one occurrence per slot whatever the number of processes (from start on;
   * calling it again with the same key is harmless). The data is the same for every occurrence.
   */
  schedule(name: string, key: string, repeat: RepeatSpec, data?: unknown, options?: Pick<AddJobOptions, 'environmentId' | 'attempts' | 'backoff'>): Promise<void>;
  /** Stop a repeatable job: its pending occurrences are removed; answers how many. */
  unschedule(name: string, key: string, environmentId?: string): Promise<number>;
  /** Remove a job that has not started (waiting, delayed, failed); false when it is active, finished or unknown. */
  cancel(id: string, environmentId?: string): Promise<boolean>;
  get(id: string, environmentId?: string): Promise<JobInfo | null>;
  /** Jobs per name and state. */
  counts(environmentId?: string): Promise<JobCount[]>;
  /** Dead jobs, newest first (at most `limit`, default 100). */
  dead(environmentId?: string, limit?: number): Promise<JobInfo[]>;
  /** Queue a dead job again with its attempts reset; JOB_NOT_DEAD when it is not dead. */
  retry(id: string, environmentId?: string): Promise<JobInfo>;
}

export const jobsQueue = defineCapability<JobsQueue>()({
  id: 'jobs.queue',
  cardinality: 'single',
  description: 'Background jobs that survive restarts and run once across processes: named handlers, delays, retries with backoff, dead letters, repeatable schedules.',
});
