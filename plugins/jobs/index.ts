import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { JobHandler, JobsQueue } from '../../capabilities/jobsQueue.ts';
import { definePlugin } from '../../kernel/definePlugin.ts';
import { codedError } from '../../kernel/errors.ts';
import { createEmbeddedQueue } from './createEmbeddedQueue.ts';
import { createEmbeddedRunner, type Runner } from './embeddedRunner.ts';
import { checkName } from './jobOptions.ts';
import { jobsOptionsSchema } from './jobsOptions.ts';
import { ensurePayloadTable } from './jobStore.ts';

interface State {
  runner: Runner;
  handlers: Map<string, JobHandler>;
  frozen: { value: boolean };
}

const states = new WeakMap<object, State>();

/**
 * Background jobs: handlers registered by name, jobs kept in the environment's database (sys_job)
 * and claimed so that several processes on one database run each job once.
 */
export default definePlugin({
  name: 'jobs',
  version: '16.0.0',
  kernel: '^16.0.0',
  requires: ['data.engine', 'metadata.registry', 'runtime.info'],
  provides: ['jobs.queue'],
  options: jobsOptionsSchema,
  timeoutMs: 660_000,
  register(ctx) {
    ctx.resolve('metadata.registry').contributeApp(fileURLToPath(new URL('./system-app', import.meta.url)));
    const info = ctx.resolve('runtime.info');
    const engine = ctx.resolve('data.engine');
    const handlers = new Map<string, JobHandler>();
    const frozen = { value: false };
    const handle: JobsQueue['handle'] = (name, handler) => {
      checkName(name);
      if (frozen.value) throw codedError('KERNEL_FROZEN', { plugin: 'jobs', action: `register the handler of job '${name}'`, fix: 'call jobs.queue handle() in your plugin\'s register phase' });
      if (handlers.has(name)) throw codedError('JOB_OPTIONS_INVALID', { reason: `job '${name}' already has a handler; one handler per name` });
      handlers.set(name, handler as JobHandler);
    };
    const worker = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
    const runner = createEmbeddedRunner({
      engine,
      environments: () => info.environments.map((e) => e.id),
      handlers,
      worker,
      options: ctx.options,
      log: ctx.log,
    });
    states.set(ctx, { runner, handlers, frozen });
    ctx.provide('jobs.queue', createEmbeddedQueue({ engine, defaultEnvironment: info.defaultEnvironment, handlers, handle, wake: () => runner.wake() }));
  },
  async start(ctx) {
    const state = states.get(ctx)!;
    state.frozen.value = true;
    const engine = ctx.resolve('data.engine');
    for (const env of ctx.resolve('runtime.info').environments) await engine.withDatabase(env.id, ensurePayloadTable);
  },
  ready(ctx) {
    states.get(ctx)!.runner.start();
  },
  async drain(ctx) {
    const { runner } = states.get(ctx)!;
    const running = runner.inFlight();
    const result = await runner.drain(ctx.options.drainMs);
    if (running > 0) ctx.log.info(result, `jobs: drained ${result.finished} running job(s), handed back ${result.handedBack}`);
  },
});
