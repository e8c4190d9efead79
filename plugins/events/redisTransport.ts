import { Redis } from 'ioredis';
import type { Transport } from './createEventsBus.ts';

export const EVENTS_CHANNEL = 'osr:events';

/** Redis pub/sub: one connection subscribes, another publishes. */
export function redisTransport(url: string, onError: (error: unknown) => void): Transport {
  let publisher: Redis | null = null;
  let subscriber: Redis | null = null;
  return {
    kind: 'redis',
    async send(message) {
      await publisher!.publish(EVENTS_CHANNEL, message);
    },
    async open(deliver) {
      publisher = new Redis(url, { lazyConnect: true });
      subscriber = new Redis(url, { lazyConnect: true });
      publisher.on('error', onError);
      subscriber.on('error', onError);
      await Promise.all([publisher.connect(), subscriber.connect()]);
      subscriber.on('message', (_channel: string, message: string) => deliver(message));
      await subscriber.subscribe(EVENTS_CHANNEL);
    },
    async close() {
      publisher?.disconnect();
      subscriber?.disconnect();
      publisher = subscriber = null;
    },
  };
}
