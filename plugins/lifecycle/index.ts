import type { LifecycleRetention } from '../../capabilities/lifecycleRetention.ts';
import type { JobsQueue } from '../../capabilities/jobsQueue.ts';
import { definePlugin } from '../../kernel/definePlugin.ts';
import { codedError } from '../../kernel/errors.ts';
import type { HttpRoutes } from '../../capabilities/httpRoutes.ts';
import { addDryRunRoute } from './dryRunRoute.ts';
import { lifecycleOptionsSchema } from './lifecycleOptions.ts';
import { retentionWindows, type RetentionWindow } from './retentionWindows.ts';
import { runLifecycle } from './runLifecycle.ts';

/** The daily job's name and schedule key. */
export const LIFECYCLE_JOB = 'lifecycle.retention';
export const LIFECYCLE_SCHEDULE_KEY = 'daily';

const windowsOf = new WeakMap<object, { windows: RetentionWindow[] | null }>();

/**
 * Data lifecycle: applies the retention contracts plugins declare (`ctx.retention`), with
 * `lifecycle.retention_overrides`, in every environment, daily through `jobs.queue` when present;
 * `osr lifecycle` runs it (or a dry run) by hand. On by default; OS_LIFECYCLE_DISABLED=1 turns it off.
 */
export default definePlugin({
  name: 'lifecycle',
  version: '16.0.0',
  kernel: '^16.0.0',
  requires: ['retention.register', 'data.database', 'runtime.info'],
  optional: ['jobs.queue', 'http.routes'],
  provides: ['lifecycle.retention'],
  options: lifecycleOptionsSchema,
  register(ctx) {
    const state: { windows: RetentionWindow[] | null } = { windows: null };
    windowsOf.set(ctx, state);
    const database = ctx.resolve('data.database');
    const info = ctx.resolve('runtime.info');
    const known = info.environments.map((e) => e.id);
    const service: LifecycleRetention = {
      run: async (options = {}) => {
        if (!state.windows) throw codedError('SERVICE_UNAVAILABLE', { service: 'Lifecycle', reason: 'the runtime has not started yet' });
        if (options.environmentId !== undefined && !known.includes(options.environmentId)) {
          throw codedError('NOT_FOUND', { what: `Environment '${options.environmentId.slice(0, 64)}'`, environmentId: options.environmentId.slice(0, 64) });
        }
        return runLifecycle({
          windows: state.windows, database, environments: options.environmentId === undefined ? known : [options.environmentId],
          dryRun: options.dryRun === true, batchSize: ctx.options.batchSize, maxBatches: ctx.options.maxBatches,
        });
      },
    };
    ctx.provide('lifecycle.retention', service);
    const routes = ctx.resolve('http.routes') as HttpRoutes | undefined;
    if (routes) addDryRunRoute(routes, service);
    const jobs = ctx.resolve('jobs.queue') as JobsQueue | undefined;
    jobs?.handle(LIFECYCLE_JOB, async (job) => {
      const report = await service.run({ environmentId: job.environmentId });
      const removed = report.environments.flatMap((e) => e.contracts).reduce((n, c) => n + c.rows, 0);
      ctx.log.info({ environmentId: job.environmentId, removed }, 'retention applied');
      return { removed };
    });
  },
  async start(ctx) {
    // Every plugin has declared its contracts by now (register phase): an override naming none fails the boot.
    const state = windowsOf.get(ctx)!;
    state.windows = retentionWindows(ctx.resolve('retention.register').contracts(), ctx.options.retentionOverrides);
    const jobs = ctx.resolve('jobs.queue') as JobsQueue | undefined;
    if (!jobs) {
      ctx.log.warn('jobs.queue is not available: retention runs only through osr lifecycle');
      return;
    }
    for (const env of ctx.resolve('runtime.info').environments) {
      await jobs.schedule(LIFECYCLE_JOB, LIFECYCLE_SCHEDULE_KEY, { pattern: ctx.options.schedule }, undefined, { environmentId: env.id });
    }
  },
});
