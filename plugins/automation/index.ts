import { z } from 'zod';
import type { JobsQueue } from '../../capabilities/jobsQueue.ts';
import { definePlugin } from '../../kernel/definePlugin.ts';
import { createSweep } from './createSweep.ts';
import { DELIVERY_TABLE } from './deliveryStore.ts';
import { addDeliveriesRoute } from './deliveriesRoute.ts';
import { addHookRoute } from './hookRoute.ts';

export const SWEEP_JOB = 'automation.sweep';
const SWEEP_KEY = 'daily';

const optionsSchema = z.strictObject({
  /** When the daily sweep of time-relative flows runs: a 5-field cron pattern, UTC (default 01:00). */
  sweepCron: z.string().min(9).max(100).default('0 1 * * *'),
});

/**
 * Automation starts that come from outside a caller: inbound hooks of `api` flows
 * (POST /api/v1/automation/hooks/:flowName/:hookId, signed, idempotent per delivery) and the daily
 * sweep of time-relative flows (`automation.sweep`, `osr automation sweep`). See docs/automation.md.
 */
export default definePlugin({
  name: 'automation',
  version: '16.0.0',
  kernel: '^16.0.0',
  requires: ['flows.runner', 'data.engine', 'data.database', 'metadata.registry', 'http.routes', 'runtime.info'],
  optional: ['jobs.queue'],
  provides: ['automation.sweep'],
  options: optionsSchema,
  register(ctx) {
    const runner = ctx.resolve('flows.runner');
    const database = ctx.resolve('data.database');
    const info = ctx.resolve('runtime.info');
    addHookRoute(ctx.resolve('http.routes'), { runner, database, log: ctx.log });
    addDeliveriesRoute(ctx.resolve('http.routes'), database);
    const sweep = createSweep({
      engine: ctx.resolve('data.engine'), database, runner, metadata: ctx.resolve('metadata.registry'),
      environments: () => info.environments.map((e) => e.id), log: ctx.log,
    });
    ctx.provide('automation.sweep', sweep);
    // System activity: a delivery id repeats nothing for a day (deliveryStore.ts), and is kept as activity 14 days.
    ctx.retention({
      name: 'system.activity', shared: true, object: DELIVERY_TABLE, keepDays: 14, action: 'delete', ageField: 'received_at',
      description: 'System activity: delivery ids of inbound hooks (a repeated delivery runs nothing within a day of the first).',
    });
    const jobs = ctx.resolve('jobs.queue') as JobsQueue | undefined;
    jobs?.handle(SWEEP_JOB, async (job) => {
      const report = await sweep.run({ environmentId: job.environmentId });
      const started = report.environments.flatMap((e) => e.flows.flatMap((f) => f.slots)).reduce((n, s) => n + s.started, 0);
      ctx.log.info({ environmentId: job.environmentId, date: report.date, started }, 'time-relative flows swept');
      return { started };
    });
  },
  async start(ctx) {
    const jobs = ctx.resolve('jobs.queue') as JobsQueue | undefined;
    const timeRelative = ctx.resolve('flows.runner').list().some((f) => f.start?.timeRelative);
    if (!jobs || !timeRelative) {
      if (timeRelative) ctx.log.warn('jobs.queue is not available: time-relative flows start only through osr automation sweep');
      return;
    }
    for (const env of ctx.resolve('runtime.info').environments) {
      await jobs.schedule(SWEEP_JOB, SWEEP_KEY, { pattern: ctx.options.sweepCron }, undefined, { environmentId: env.id });
    }
  },
});
