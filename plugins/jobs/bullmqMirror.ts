import type { Knex } from 'knex';
import type { DataDatabase } from '../../capabilities/dataDatabase.ts';
import type { JobInfo } from '../../capabilities/jobsQueue.ts';
import type { Logger } from '../../kernel/logger.ts';
import { JOB_TABLE, JOB_TABLES } from './jobStore.ts';

/** What the mirror writes of a BullMQ job: its info, never its data. */
export interface MirroredJob extends JobInfo {
  backoffType: 'exponential' | 'fixed';
  backoffDelay: number;
}

export interface BullmqMirror {
  /** The job was queued: a row unless one exists (a worker may already have written a later state). */
  added(job: MirroredJob): void;
  /** The job changed state in this process's worker: the row takes the new state. */
  changed(job: MirroredJob): void;
  /** The job was removed (cancelled): its row goes too. */
  removed(id: string, environmentId: string): void;
  /** Resolves once every write begun so far has ended (tests, and a stopping process). */
  settled(): Promise<void>;
}

function rowOf(job: MirroredJob, now: string): Record<string, unknown> {
  return {
    id: job.id, name: job.name, state: job.state, attempts: job.attempts, max_attempts: job.maxAttempts,
    backoff_type: job.backoffType, backoff_delay: job.backoffDelay, priority: job.priority,
    run_at: job.runAt, started_at: job.startedAt, finished_at: job.finishedAt, last_error: job.lastError,
    repeat_key: job.repeatKey, created_at: job.createdAt, updated_at: now,
  };
}

/**
 * With BullMQ, jobs live in Redis; this keeps their sys_job rows (read-only through /data) in step:
 * the adding process writes the row, and the process whose worker runs the job writes each change.
 * Writes for one job are chained in order; a failed write is logged and never fails the job.
 */
export function createBullmqMirror(database: DataDatabase, log: Logger): BullmqMirror {
  const chains = new Map<string, Promise<void>>();
  const chain = (id: string, environmentId: string, write: (knex: Knex) => Promise<unknown>) => {
    const previous = chains.get(id) ?? Promise.resolve();
    const next = previous
      .then(() => database.withDatabase(environmentId, (db) => write(db.knex), undefined, JOB_TABLES))
      .then(() => undefined, (error: unknown) => log.warn({ err: error, job: id }, 'jobs: the sys_job row of a BullMQ job could not be written'));
    chains.set(id, next);
    void next.then(() => {
      if (chains.get(id) === next) chains.delete(id);
    });
  };
  const enqueue = (job: MirroredJob, write: (row: Record<string, unknown>) => (knex: Knex) => Promise<unknown>) =>
    chain(job.id, job.environmentId, (knex) => write(rowOf(job, new Date().toISOString()))(knex));
  return {
    added(job) {
      enqueue(job, (row) => (knex) => knex(JOB_TABLE).insert({ ...row, version: 1 }).onConflict('id').ignore());
    },
    changed(job) {
      enqueue(job, (row) => (knex) => knex(JOB_TABLE).insert({ ...row, version: 1 }).onConflict('id').merge({ ...withoutKeys(row), version: knex.raw(`${JOB_TABLE}.version + 1`) }));
    },
    removed(id, environmentId) {
      chain(id, environmentId, (knex) => knex(JOB_TABLE).where({ id }).delete());
    },
    async settled() {
      while (chains.size > 0) await Promise.all([...chains.values()]);
    },
  };
}

function withoutKeys(row: Record<string, unknown>): Record<string, unknown> {
  const { id: _id, created_at: _created, ...rest } = row;
  return rest;
}
