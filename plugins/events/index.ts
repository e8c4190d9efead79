import type { Transport } from './createEventsBus.ts';
import { createEventsBus } from './createEventsBus.ts';
import { definePlugin } from '../../kernel/definePlugin.ts';
import { localCounter } from './localCounter.ts';
import { inWorkers } from './workersChannel.ts';

const buses = new WeakMap<object, ReturnType<typeof createEventsBus>>();
const counters = new WeakMap<object, { close(): void }>();

const localTransport: Transport = { kind: 'local', send: async () => undefined, beat: async () => undefined, open: async () => undefined, reconnect: () => undefined, close: async () => undefined };

/**
 * Cross-process events: Redis pub/sub when redis.url is set, else LISTEN/NOTIFY when the main
 * database is PostgreSQL, else through the primary among the workers of `osr start --workers N`,
 * else nothing leaves the process (one process on SQLite needs nothing). Also the shared
 * fixed-window counter rate limits use: in Redis when set, else in the primary of the workers,
 * else in this process.
 */
export default definePlugin({
  name: 'events',
  version: '16.0.0',
  kernel: '^16.0.0',
  requires: ['runtime.info'],
  provides: ['events.bus', 'events.counter'],
  async register(ctx) {
    const info = ctx.resolve('runtime.info');
    const onError = (error: unknown) => ctx.log.warn({ err: error }, 'events: cross-process message failed; caches fall back to their TTL');
    const postgresUrl = info.environments.map((e) => e.databaseUrl).find((url) => /^postgres(ql)?:/.test(url));
    // Each transport's driver is loaded only when it is used: a process on SQLite loads neither.
    const transport = info.redisUrl
      ? (await import('./redisTransport.ts')).redisTransport(info.redisUrl, onError)
      : postgresUrl ? (await import('./postgresTransport.ts')).postgresTransport(postgresUrl, onError)
        : inWorkers() ? (await import('./workersTransport.ts')).workersTransport() : localTransport;
    const bus = createEventsBus(transport, onError, ctx.log);
    buses.set(ctx, bus);
    ctx.provide('events.bus', { transport: bus.transport, publish: bus.publish, subscribe: bus.subscribe, trusted: bus.trusted, epoch: bus.epoch, watch: bus.watch, signals: bus.signals });
    if (info.redisUrl) {
      const { redisCounter } = await import('./redisCounter.ts');
      const counter = redisCounter(info.redisUrl, (error) => ctx.log.warn({ err: error }, 'events: the shared count in Redis failed; rate limits count in this process meanwhile'));
      counters.set(ctx, counter);
      ctx.provide('events.counter', { shared: true, hit: counter.hit });
    } else if (inWorkers()) {
      const counter = (await import('./workersCounter.ts')).workersCounter();
      counters.set(ctx, counter);
      ctx.provide('events.counter', { shared: true, hit: counter.hit });
    } else {
      ctx.provide('events.counter', localCounter());
    }
  },
  async start(ctx) {
    const bus = buses.get(ctx)!;
    await bus.open();
    ctx.log.info({ transport: bus.transport }, `events: ${bus.transport} transport`);
  },
  async stop(ctx) {
    await buses.get(ctx)!.close();
    counters.get(ctx)?.close();
  },
});
