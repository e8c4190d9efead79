import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Transport } from './createEventsBus.ts';

export const EVENTS_CHANNEL = 'osr:events';

/** A publish waits this long for Redis at most; one sent while Redis is away is queued until it returns. */
const PUBLISH_TIMEOUT_MS = 1_000;

/**
 * Redis pub/sub: one connection subscribes (to the events channel and this process's heartbeat
 * channel, heartbeat.ts), another publishes. ioredis reconnects and subscribes again by itself.
 */
export function redisTransport(url: string, onError: (error: unknown) => void): Transport {
  const heartbeatChannel = `osr:heartbeat:${randomBytes(8).toString('hex')}`;
  let publisher: Redis | null = null;
  let subscriber: Redis | null = null;
  return {
    kind: 'redis',
    async send(message) {
      await publisher!.publish(EVENTS_CHANNEL, message);
    },
    async beat(token) {
      await publisher?.publish(heartbeatChannel, token);
    },
    async open(events) {
      publisher = new Redis(url, { lazyConnect: true, commandTimeout: PUBLISH_TIMEOUT_MS });
      subscriber = new Redis(url, { lazyConnect: true });
      publisher.on('error', onError);
      subscriber.on('error', onError);
      subscriber.on('message', (channel: string, message: string) => {
        if (channel === EVENTS_CHANNEL) events.deliver(message);
        else if (channel === heartbeatChannel) events.echo(message);
      });
      subscriber.on('close', () => events.down());
      await Promise.all([publisher.connect(), subscriber.connect()]);
      await subscriber.subscribe(EVENTS_CHANNEL, heartbeatChannel);
      // Once subscribed again after a reconnect (ioredis resubscribes before it is ready).
      subscriber.on('ready', () => events.up());
      events.up();
    },
    reconnect() {
      subscriber?.disconnect(true);
      publisher?.disconnect(true);
    },
    async close() {
      publisher?.disconnect();
      subscriber?.disconnect();
      publisher = subscriber = null;
    },
  };
}
