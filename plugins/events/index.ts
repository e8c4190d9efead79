import type { Transport } from './createEventsBus.ts';
import { createEventsBus } from './createEventsBus.ts';
import { definePlugin } from '../../kernel/definePlugin.ts';
import { postgresTransport } from './postgresTransport.ts';
import { redisTransport } from './redisTransport.ts';

const buses = new WeakMap<object, ReturnType<typeof createEventsBus>>();

const localTransport: Transport = { kind: 'local', send: async () => undefined, open: async () => undefined, close: async () => undefined };

/**
 * Cross-process events: Redis pub/sub when redis.url is set, else LISTEN/NOTIFY when the main
 * database is PostgreSQL, else nothing leaves the process (one process on SQLite needs nothing).
 */
export default definePlugin({
  name: 'events',
  version: '16.0.0',
  kernel: '^16.0.0',
  requires: ['runtime.info'],
  provides: ['events.bus'],
  register(ctx) {
    const info = ctx.resolve('runtime.info');
    const onError = (error: unknown) => ctx.log.warn({ err: error }, 'events: cross-process message failed; caches fall back to their TTL');
    const postgresUrl = info.environments.map((e) => e.databaseUrl).find((url) => /^postgres(ql)?:/.test(url));
    const transport = info.redisUrl ? redisTransport(info.redisUrl, onError) : postgresUrl ? postgresTransport(postgresUrl, onError) : localTransport;
    const bus = createEventsBus(transport, onError);
    buses.set(ctx, bus);
    ctx.provide('events.bus', { transport: bus.transport, publish: bus.publish, subscribe: bus.subscribe });
  },
  async start(ctx) {
    const bus = buses.get(ctx)!;
    await bus.open();
    ctx.log.info({ transport: bus.transport }, `events: ${bus.transport} transport`);
  },
  async stop(ctx) {
    await buses.get(ctx)!.close();
  },
});
