import { fileURLToPath } from 'node:url';
import type { DataEngine, DataRecord } from '../../capabilities/dataEngine.ts';
import { definePlugin } from '../../kernel/definePlugin.ts';
import type { FlowRecordEvent, ResolvedFlow } from '../../metadata/flowTypes.ts';
import { startableByAction } from '../../metadata/checkFlowActions.ts';
import { createFlowsRunner, RUN_JOB, systemPrincipal, writers, type Runner } from './createFlowsRunner.ts';
import { addFlowRoutes, addFlowStartRoute } from './flowRoutes.ts';
import { flowsOptionsSchema } from './flowsOptions.ts';
import { parseAllowEntry } from './httpAllow.ts';

const runners = new WeakMap<object, Runner>();
/** Schedule flows' repeatable job. */
export const SCHEDULE_JOB = 'flows.schedule';

const EVENTS: Record<'data.afterInsert' | 'data.afterUpdate' | 'data.afterDelete', FlowRecordEvent> = {
  'data.afterInsert': 'insert', 'data.afterUpdate': 'update', 'data.afterDelete': 'delete',
};

/**
 * Flows declared by apps (flows/<name>.json): runs persisted in sys_flow_run and executed on
 * jobs.queue (a wait is a delayed job), resumed after a restart; started through
 * POST /flows/:flow/start, actions of run.type flow, record events and cron schedules; offered to
 * other plugins as `flows.runner` (inbound hooks and time-relative sweeps start runs through it).
 * See docs/automation.md.
 */
/** Days a finished run is kept (retention contract `flows.runs`). */
const FLOW_RUN_RETENTION_DAYS = 90;

export default definePlugin({
  name: 'flows',
  version: '16.0.0',
  kernel: '^16.0.0',
  requires: ['data.engine', 'data.database', 'jobs.queue', 'access.grants', 'metadata.registry', 'http.routes', 'runtime.info'],
  optional: ['actions.registry', 'email.send', 'notifications.send'],
  provides: ['flows.runner'],
  options: flowsOptionsSchema,
  register(ctx) {
    const metadata = ctx.resolve('metadata.registry');
    metadata.contributeApp(fileURLToPath(new URL('./system-app', import.meta.url)));
    const queue = ctx.resolve('jobs.queue');
    const actions = ctx.resolve('actions.registry');
    const runner = createFlowsRunner({
      flows: () => metadata.apps().flatMap((app) => app.flows),
      database: ctx.resolve('data.database'),
      engine: ctx.resolve('data.engine'),
      queue,
      grants: ctx.resolve('access.grants'),
      actions: () => actions,
      email: () => ctx.resolve('email.send'),
      notifications: () => ctx.resolve('notifications.send'),
      httpAllow: ctx.options.http.allow.map(parseAllowEntry),
      jobAttempts: ctx.options.jobAttempts,
      log: ctx.log,
    });
    runners.set(ctx, runner);
    ctx.provide('flows.runner', runner);
    queue.handle<{ runId: string }>(RUN_JOB, (job) => runner.execute(job.environmentId, job.data.runId), {
      // Out of attempts, or interrupted more often than they allow: the run says so instead of staying running.
      onDead: (job, reason) => runner.jobDead(job.environmentId, job.data.runId, reason),
    });
    queue.handle<{ flow: string }>(SCHEDULE_JOB, async (job) => {
      const flow = runner.get(job.data.flow);
      if (flow?.type !== 'schedule') {
        // The flow was removed or is no longer a schedule flow: its schedule goes too.
        await queue.unschedule(SCHEDULE_JOB, `flow:${job.data.flow}`, job.environmentId);
        ctx.log.info({ flow: job.data.flow, environmentId: job.environmentId }, `flows: the schedule of '${job.data.flow}' was removed: no schedule flow of that name is declared`);
        return;
      }
      // One run per schedule slot: the occurrence's job id keys it.
      await runner.start(flow.name, {}, { environmentId: job.environmentId, principal: null, trigger: 'schedule', idempotencyKey: `schedule:${job.id}` });
    });
    actions?.startFlowsWith(async (flow, input, principal, options) => {
      const declared = runner.get(flow);
      if (!declared || !startableByAction(declared)) throw new Error(`flow '${flow}' cannot be started by an action`);
      return runner.start(flow, input, { environmentId: options.environmentId, principal, trigger: 'action', ...(options.requestId ? { requestId: options.requestId } : {}) });
    });

    // Record flows: the engine's after-write events, inside the write (the run row commits with it).
    for (const [hook, event] of Object.entries(EVENTS) as Array<[keyof typeof EVENTS, FlowRecordEvent]>) {
      const starts = (f: ResolvedFlow, object: string) => f.type === 'record' && f.start?.record?.object === object && f.start.record.on.includes(event);
      ctx.hook(hook, async (e: HookEvent) => {
        const flows = runner.list().filter((f) => starts(f, e.object));
        if (flows.length === 0) return;
        const written = event === 'delete' ? e.previous : e.record;
        if (!written) return;
        // The whole record, whoever wrote it (event.record is the writer's view), read in the write's transaction.
        const record = event === 'delete' ? written : await e.engine.get(e.object, String(written.id), {}, { environmentId: e.ctx.environmentId, principal: systemPrincipal(e.ctx.environmentId), system: true });
        // A flow's own writes do not start it again (no loops); other flows' writes do.
        const writer = e.ctx.principal ? writers.get(e.ctx.principal) : undefined;
        for (const flow of flows) {
          if (writer === flow.name) continue;
          if (flow.when && flow.when.evaluate({ input: {}, steps: {}, record, context: { now: new Date(), user: e.ctx?.user ?? null } }) !== true) continue;
          await runner.startForRecord(flow, record, e.ctx.environmentId, e.engine);
        }
        // A run starts from its own record alone: an import may run this for a batch of rows after writing them.
      }, { priority: 900, appliesTo: (object) => runner.list().some((f) => starts(f, object)), ...(hook === 'data.afterInsert' ? { batched: true } : {}) });
    }
    addFlowRoutes(ctx.resolve('http.routes'), runner);
    ctx.retention({
      name: 'flows.runs',
      object: 'sys_flow_run',
      description: 'Finished flow runs (completed, failed, cancelled) are deleted once they ended longer ago than the window; running and waiting runs are kept.',
      // Another window: lifecycle.retention_overrides["flows.runs"].
      keepDays: FLOW_RUN_RETENTION_DAYS,
      action: 'delete',
      ageField: 'ended_at',
    });
  },
  async start(ctx) {
    const runner = runners.get(ctx)!;
    const routes = ctx.resolve('http.routes');
    for (const flow of runner.list()) if (startableByAction(flow)) addFlowStartRoute(routes, runner, flow);
    ctx.log.info({ flows: runner.list().map((f) => f.name) }, 'flows loaded');
  },
  async ready(ctx) {
    const runner = runners.get(ctx)!;
    const queue = ctx.resolve('jobs.queue');
    for (const env of ctx.resolve('runtime.info').environments) {
      for (const flow of runner.list().filter((f: ResolvedFlow) => f.type === 'schedule')) {
        await queue.schedule(SCHEDULE_JOB, `flow:${flow.name}`, { pattern: flow.start!.schedule!.cron }, { flow: flow.name }, { environmentId: env.id });
      }
      const queued = await runner.recover(env.id);
      if (queued > 0) ctx.log.info({ environment: env.id, queued }, 'flows: queued runs that had no job');
    }
    const every = ctx.options.recoverAfterMs;
    if (every > 0) {
      const environments = ctx.resolve('runtime.info').environments.map((e) => e.id);
      let checking = false;
      const timer = setInterval(() => {
        if (checking) return;
        checking = true;
        void (async () => {
          for (const env of environments) {
            const queued = await runner.recover(env, every);
            if (queued > 0) ctx.log.warn({ environment: env, queued }, 'flows: queued runs left without a job by a process that stopped');
          }
        })().catch((error: unknown) => ctx.log.warn({ err: (error as Error).message }, 'flows: the check for runs without a job failed; it runs again'))
          .finally(() => { checking = false; });
      }, Math.floor(every / 2));
      timer.unref?.();
      timers.set(ctx, timer);
    }
  },
  drain(ctx) {
    const timer = timers.get(ctx);
    if (timer) clearInterval(timer);
  },
});

const timers = new WeakMap<object, NodeJS.Timeout>();

/** The fields of the write events this plugin reads. */
interface HookEvent {
  object: string;
  ctx: { environmentId: string; principal?: object | null; user?: { id: string; organizationId: string | null; positions: string[] } | null };
  engine: DataEngine;
  record?: DataRecord;
  previous?: DataRecord;
}
