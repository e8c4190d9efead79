import type { JobsQueue } from '../../../capabilities/jobsQueue.ts';
import { definePlugin } from '../../../kernel/definePlugin.ts';

/** The hourly job that drops unused automatic indexes, and its schedule key. */
export const AUTO_INDEX_SWEEP_JOB = 'data.autoIndexSweep';
export const AUTO_INDEX_SWEEP_KEY = 'hourly';
const HOUR_MS = 3_600_000;

/**
 * `plugins.data.autoIndex`'s sweep on the job queue: every hour, in each environment, the automatic
 * indexes unused for `plugins.data.autoIndexUnusedDays` are dropped (the data plugin also sweeps at
 * start). A plugin of its own beside `data`: the job queue keeps its jobs in the environments'
 * databases, so `jobs` requires `data.database` and `data` cannot take `jobs.queue`.
 */
export default definePlugin({
  name: 'data-index-sweep',
  version: '16.0.0',
  kernel: '^16.0.0',
  requires: ['data.indexAdvice', 'runtime.info'],
  optional: ['jobs.queue'],
  register(ctx) {
    const advice = ctx.resolve('data.indexAdvice');
    const jobs = ctx.resolve('jobs.queue') as JobsQueue | undefined;
    jobs?.handle(AUTO_INDEX_SWEEP_JOB, async (job) => {
      const report = await advice.sweepUnused(job.environmentId);
      return { dropped: report.dropped.length, kept: report.kept.length };
    });
  },
  async start(ctx) {
    const jobs = ctx.resolve('jobs.queue') as JobsQueue | undefined;
    if (!jobs || !ctx.resolve('data.indexAdvice').autoIndex) return;
    for (const env of ctx.resolve('runtime.info').environments) {
      await jobs.schedule(AUTO_INDEX_SWEEP_JOB, AUTO_INDEX_SWEEP_KEY, { every: HOUR_MS }, undefined, { environmentId: env.id });
    }
  },
});
