import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import type { JobCount, JobInfo, JobState } from '../../capabilities/jobsQueue.ts';
import { codedError } from '../../kernel/errors.ts';
import { infoOf, stateOf } from './bullmqJobInfo.ts';
import { bullmqPrefix, parseJobId } from './bullmqNames.ts';

const COUNTED = ['waiting', 'prioritized', 'delayed', 'active', 'completed', 'failed'] as const;

/** Queue names of an environment, found from their meta keys (SCAN, never KEYS). */
async function queueNames(redis: Redis, environmentId: string): Promise<string[]> {
  const prefix = `${bullmqPrefix(environmentId)}:`;
  const names = new Set<string>();
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*:meta`, 'COUNT', 500);
    cursor = next;
    for (const key of keys) names.add(key.slice(prefix.length, -':meta'.length));
  } while (cursor !== '0');
  return [...names].sort();
}

/** What `osr jobs` shows for the BullMQ backend, without running any worker. */
export async function bullmqJobsReport(redisUrl: string, environments: string[], deadLimit: number): Promise<Array<{ id: string; counts: JobCount[]; dead: JobInfo[] }>> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1, lazyConnect: true });
  await redis.connect();
  try {
    const out = [];
    for (const environmentId of environments) {
      const counts: JobCount[] = [];
      const dead: JobInfo[] = [];
      for (const name of await queueNames(redis, environmentId)) {
        const queue = new Queue(name, { connection: { url: redisUrl }, prefix: bullmqPrefix(environmentId) });
        try {
          const raw = await queue.getJobCounts(...COUNTED);
          const byState = new Map<JobState, number>();
          for (const state of COUNTED) byState.set(stateOf(state === 'prioritized' ? 'waiting' : state, 0), (byState.get(stateOf(state === 'prioritized' ? 'waiting' : state, 0)) ?? 0) + (raw[state] ?? 0));
          for (const [state, count] of byState) if (count > 0) counts.push({ name, state, count });
          for (const job of await queue.getJobs(['failed'], 0, deadLimit - 1)) dead.push(await infoOf(job, environmentId));
        } finally {
          await queue.close();
        }
      }
      out.push({ id: environmentId, counts, dead: dead.slice(0, deadLimit) });
    }
    return out;
  } finally {
    redis.disconnect();
  }
}

export async function bullmqRetry(redisUrl: string, environments: string[], id: string): Promise<{ id: string; environmentId: string }> {
  const parsed = parseJobId(id);
  if (!parsed) throw codedError('NOT_FOUND', { what: `Job ${id}` });
  for (const environmentId of environments) {
    const queue = new Queue(parsed.name, { connection: { url: redisUrl }, prefix: bullmqPrefix(environmentId) });
    try {
      const job = await queue.getJob(parsed.bullId);
      if (!job) continue;
      const state = stateOf(await job.getState(), job.attemptsMade);
      if (state !== 'dead') throw codedError('JOB_NOT_DEAD', { id, state });
      await job.retry('failed', { resetAttemptsMade: true });
      return { id, environmentId };
    } finally {
      await queue.close();
    }
  }
  throw codedError('NOT_FOUND', { what: `Job ${id}` });
}
