import { fileURLToPath } from 'node:url';
import type { JobRun } from '../../capabilities/jobsQueue.ts';
import { definePlugin } from '../../kernel/definePlugin.ts';
import { addDashboardRoutes } from './dashboardRoutes.ts';
import { createReportDelivery, DELIVER_JOB, TICK_JOB, type DeliverData, type TickData } from './reportDelivery.ts';
import { addReportRoutes } from './reportRoutes.ts';
import { createReportStore } from './reportStore.ts';
import { createDatasetRunner } from './runDataset.ts';

/**
 * Reports and dashboards: saved structured queries (sys_report, engine-owned, owner-private unless
 * shared) run through the data engine as the caller, exported with the data export's writers, and
 * delivered by e-mail on a schedule as their owner; dashboards declared in metadata whose widgets
 * run a report or a query as the caller.
 */
export default definePlugin({
  name: 'reports',
  version: '16.0.0',
  kernel: '^16.0.0',
  requires: ['data.engine', 'metadata.registry', 'http.routes', 'jobs.queue', 'io.export'],
  // access.grants: remembered dataset answers are dropped when what decides access changes.
  optional: ['email.send', 'auth.identity', 'access.grants'],
  register(ctx) {
    ctx.resolve('metadata.registry').contributeApp(fileURLToPath(new URL('./system-app', import.meta.url)));
    const engine = ctx.resolve('data.engine');
    const metadata = ctx.resolve('metadata.registry');
    const queue = ctx.resolve('jobs.queue');
    const files = ctx.resolve('io.export');
    const store = createReportStore(engine);
    const delivery = createReportDelivery({
      engine, metadata, store, queue, files, log: ctx.log,
      email: () => ctx.resolve('email.send'),
      identity: () => ctx.resolve('auth.identity'),
    });
    queue.handle<TickData>(TICK_JOB, (job: JobRun<TickData>) => delivery.tick(job.environmentId, job.data));
    queue.handle<DeliverData>(DELIVER_JOB, (job: JobRun<DeliverData>) => delivery.deliver(job.environmentId, job.data));
    const routes = ctx.resolve('http.routes');
    addReportRoutes(routes, { engine, metadata, store, delivery, files, canSchedule: () => ctx.resolve('email.send') !== undefined && ctx.resolve('auth.identity') !== undefined });
    addDashboardRoutes(routes, { engine, metadata, store, datasets: createDatasetRunner(engine, metadata, ctx.resolve('access.grants')) });
  },
});
