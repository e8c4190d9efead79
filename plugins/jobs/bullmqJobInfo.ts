import type { Job } from 'bullmq';
import type { JobInfo, JobState } from '../../capabilities/jobsQueue.ts';
import { errorText } from './jobStore.ts';

/** BullMQ's states in this capability's words: its `failed` is our `dead`, a delayed retry is `failed`. */
export function stateOf(bullState: string, attemptsMade: number): JobState {
  switch (bullState) {
    case 'completed': return 'completed';
    case 'failed': return 'dead';
    case 'active': return 'active';
    case 'delayed': return attemptsMade > 0 ? 'failed' : 'delayed';
    default: return 'waiting';
  }
}

const isoOf = (ms: number | undefined | null) => (ms ? new Date(ms).toISOString() : null);

export async function infoOf(job: Job, environmentId: string): Promise<JobInfo> {
  return infoIn(job, environmentId, stateOf(await job.getState(), job.attemptsMade));
}

/** A job's info when its state is known without asking Redis. */
export function infoIn(job: Job, environmentId: string, state: JobState): JobInfo {
  return {
    id: `${job.name}~${job.id}`,
    name: job.name,
    state,
    attempts: state === 'active' ? job.attemptsMade + 1 : job.attemptsMade,
    maxAttempts: job.opts.attempts ?? 1,
    priority: job.opts.priority ?? 0,
    runAt: new Date(job.timestamp + (job.opts.delay ?? 0)).toISOString(),
    startedAt: isoOf(job.processedOn),
    finishedAt: state === 'completed' || state === 'dead' ? isoOf(job.finishedOn) : null,
    lastError: job.failedReason ? errorText(job.failedReason) : null,
    repeatKey: job.repeatJobKey ?? null,
    createdAt: new Date(job.timestamp).toISOString(),
    environmentId,
  };
}
