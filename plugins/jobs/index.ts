import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { DeadHandler, JobHandler, JobsQueue } from '../../capabilities/jobsQueue.ts';
import { definePlugin } from '../../kernel/definePlugin.ts';
import { codedError } from '../../kernel/errors.ts';
import { createBullmqMirror } from './bullmqMirror.ts';
import { createEmbeddedQueue } from './createEmbeddedQueue.ts';
import { createEmbeddedRunner } from './embeddedRunner.ts';
import { checkName } from './jobOptions.ts';
import type { HttpRoutes } from '../../capabilities/httpRoutes.ts';
import { addJobRoutes } from './jobRoutes.ts';
import { jobsOptionsSchema } from './jobsOptions.ts';
import { ensurePayloadTable } from './jobStore.ts';

/** What start, ready, drain and stop do for the backend in use. */
interface Backend {
  kind: 'embedded' | 'bullmq';
  run(): void;
  drain(ms: number): Promise<void>;
  close(): Promise<void>;
}

const states = new WeakMap<object, { backend: Backend; frozen: { value: boolean } }>();

/**
 * Background jobs: handlers registered by name; jobs kept in the environment's database (sys_job),
 * or in Redis through BullMQ when redis.url is set, and claimed so that several processes run
 * each job once.
 */
export default definePlugin({
  name: 'jobs',
  version: '16.0.0',
  kernel: '^16.0.0',
  requires: ['data.database', 'metadata.registry', 'runtime.info'],
  optional: ['http.routes'],
  provides: ['jobs.queue'],
  options: jobsOptionsSchema,
  timeoutMs: 660_000,
  async register(ctx) {
    ctx.resolve('metadata.registry').contributeApp(fileURLToPath(new URL('./system-app', import.meta.url)));
    const info = ctx.resolve('runtime.info');
    const database = ctx.resolve('data.database');
    const handlers = new Map<string, JobHandler>();
    const onDead = new Map<string, DeadHandler>();
    const frozen = { value: false };
    const handle: JobsQueue['handle'] = (name, handler, options) => {
      checkName(name);
      if (frozen.value) throw codedError('KERNEL_FROZEN', { plugin: 'jobs', action: `register the handler of job '${name}'`, fix: "call jobs.queue handle() in your plugin's register phase" });
      if (handlers.has(name)) throw codedError('JOB_OPTIONS_INVALID', { reason: `job '${name}' already has a handler; one handler per name` });
      handlers.set(name, handler as JobHandler);
      if (options?.onDead) onDead.set(name, options.onDead as DeadHandler);
    };
    const environments = () => info.environments.map((e) => e.id);
    // System activity: finished jobs are history, kept 14 days (the embedded queue removes them sooner, see keepCompletedMs).
    ctx.retention({
      name: 'system.activity', shared: true, object: 'sys_job', keepDays: 14, action: 'delete', ageField: 'finished_at', filter: { state: 'completed' },
      description: 'System activity: completed jobs (dead ones stay until retried or cancelled).',
    });
    let backend: Backend;
    let queue: JobsQueue;
    if (info.redisUrl) {
      // Loaded only with Redis: BullMQ and ioredis are a few hundred modules an embedded queue never needs.
      const { createBullmqQueue } = await import('./createBullmqQueue.ts');
      const bull = createBullmqQueue({
        redisUrl: info.redisUrl, environments, defaultEnvironment: info.defaultEnvironment, handlers, onDead, handle,
        concurrency: ctx.options.concurrency, keepCompletedMs: ctx.options.keepCompletedMs, leaseMs: ctx.options.leaseMs, log: ctx.log,
        enqueueTimeoutMs: ctx.options.enqueueTimeoutMs,
        ...(ctx.options.mirror ? { mirror: createBullmqMirror(database, ctx.log) } : {}),
      });
      backend = { kind: 'bullmq', run: bull.start, drain: bull.drain, close: bull.close };
      queue = bull.queue;
    } else {
      const runner = createEmbeddedRunner({
        database, environments, handlers, onDead, options: ctx.options, log: ctx.log,
        worker: `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`,
      });
      backend = {
        kind: 'embedded',
        run: runner.start,
        async drain(ms) {
          const running = runner.inFlight();
          const result = await runner.drain(ms);
          if (running > 0) ctx.log.info(result, `jobs: drained ${result.finished} running job(s), handed back ${result.handedBack}`);
        },
        close: async () => undefined,
      };
      queue = createEmbeddedQueue({ database, defaultEnvironment: info.defaultEnvironment, handlers, handle, wake: () => runner.wake() });
    }
    ctx.provide('jobs.queue', queue);
    const routes = ctx.resolve('http.routes') as HttpRoutes | undefined;
    if (routes) addJobRoutes(routes, queue);
    states.set(ctx, { backend, frozen });
  },
  async start(ctx) {
    const { backend, frozen } = states.get(ctx)!;
    frozen.value = true;
    if (backend.kind !== 'embedded') return;
    const database = ctx.resolve('data.database');
    for (const env of ctx.resolve('runtime.info').environments) await database.withDatabase(env.id, ensurePayloadTable);
  },
  ready(ctx) {
    const { backend } = states.get(ctx)!;
    backend.run();
    ctx.log.info({ backend: backend.kind }, `jobs: ${backend.kind} backend running`);
  },
  async drain(ctx) {
    await states.get(ctx)!.backend.drain(ctx.options.drainMs);
  },
  async stop(ctx) {
    await states.get(ctx)!.backend.close();
  },
});
