import { Redis } from 'ioredis';

/** One fixed window per key, counted in Redis so every process shares it. */
export interface SharedRateCounter {
  /** Counts one attempt; answers the window's count and the milliseconds left in it. */
  hit(key: string, windowMs: number): Promise<{ count: number; ttlMs: number }>;
  close(): Promise<void>;
}

// INCR then set the expiry on the window's first hit, atomically: a window always ends.
const SCRIPT = `local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) ttl = tonumber(ARGV[1]) end
return {n, ttl}`;

/** `prefix` keeps the keys of one deployment (or one test) apart from another's on a shared Redis. */
export function redisRateCounter(url: string, prefix: string, onError: (error: unknown) => void): SharedRateCounter {
  // Fail fast: a request never waits on a Redis that is down (the limiter falls back to its own count).
  const redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: true });
  redis.on('error', onError);
  redis.connect().catch(onError);
  return {
    async hit(key, windowMs) {
      const [count, ttlMs] = (await redis.eval(SCRIPT, 1, `${prefix}${key}`, String(windowMs))) as [number, number];
      return { count, ttlMs };
    },
    async close() {
      redis.disconnect();
    },
  };
}
