import { Redis } from 'ioredis';
import type { EventsCounter } from '../../capabilities/eventsCounter.ts';

// INCRBY, then give the key its expiry when it has none, atomically: a window always ends.
const SCRIPT = `local n = redis.call('INCRBY', KEYS[1], ARGV[2])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) ttl = tonumber(ARGV[1]) end
return {n, ttl}`;

/**
 * How long a request waits for Redis at most (docs/jobs.md, Redis on a request's path): a Redis that
 * is down refuses at once, one that hangs (stopped, overloaded, a half-open connection) answers
 * within this or the call fails and the caller counts in its own process.
 */
export const REDIS_REQUEST_TIMEOUT_MS = 250;
/** After a call failed, Redis is not asked for this long: requests do not each wait out the timeout. */
const REST_MS = 1_000;

/** One fixed window per key, counted in Redis so every process shares it. */
export function redisCounter(url: string, onError: (error: unknown) => void, now: () => number = Date.now): EventsCounter & { close(): void } {
  // Fail fast: a request never waits on a Redis that is down or hung (callers fall back to their own count).
  const redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: true, connectTimeout: 2000, commandTimeout: REDIS_REQUEST_TIMEOUT_MS });
  redis.on('error', onError);
  // The first calls wait for the first connection attempt (at most connectTimeout), not for reconnects.
  const connecting = redis.connect().catch(onError);
  let restUntil = 0;
  return {
    shared: true,
    async hit(key, windowMs, amount = 1) {
      await connecting;
      if (now() < restUntil) throw new Error('Redis did not answer a moment ago; counting in this process meanwhile');
      try {
        const [count, ttlMs] = (await redis.eval(SCRIPT, 1, key, String(windowMs), String(amount))) as [number, number];
        return { count, ttlMs };
      } catch (error) {
        restUntil = now() + REST_MS;
        throw error;
      }
    },
    close() {
      redis.disconnect();
    },
  };
}
