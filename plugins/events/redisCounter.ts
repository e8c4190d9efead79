import { Redis } from 'ioredis';
import type { EventsCounter } from '../../capabilities/eventsCounter.ts';

// INCRBY, then give the key its expiry when it has none, atomically: a window always ends.
const SCRIPT = `local n = redis.call('INCRBY', KEYS[1], ARGV[2])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) ttl = tonumber(ARGV[1]) end
return {n, ttl}`;

/** One fixed window per key, counted in Redis so every process shares it. */
export function redisCounter(url: string, onError: (error: unknown) => void): EventsCounter & { close(): void } {
  // Fail fast: a request never waits on a Redis that is down (callers fall back to their own count).
  const redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: true, connectTimeout: 2000 });
  redis.on('error', onError);
  // The first calls wait for the first connection attempt (at most connectTimeout), not for reconnects.
  const connecting = redis.connect().catch(onError);
  return {
    shared: true,
    async hit(key, windowMs, amount = 1) {
      await connecting;
      const [count, ttlMs] = (await redis.eval(SCRIPT, 1, key, String(windowMs), String(amount))) as [number, number];
      return { count, ttlMs };
    },
    close() {
      redis.disconnect();
    },
  };
}
