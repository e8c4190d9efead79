import { Redis } from 'ioredis';

/** Counts per key and window in Redis, so every runtime process shares them. */
export interface SharedUsageCounter {
  /** Adds `amount` to the key's count (0 reads it); the key expires `windowMs` after its first add. Answers the count. */
  add(key: string, amount: number, windowMs: number): Promise<number>;
  close(): Promise<void>;
}

// INCRBY, then give the key its expiry when it has none: a window always ends.
const SCRIPT = `local n = redis.call('INCRBY', KEYS[1], ARGV[1])
if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return n`;

/** `prefix` keeps the keys of one deployment (or one test) apart from another's on a shared Redis. */
export function redisUsageCounter(url: string, prefix: string, onError: (error: unknown) => void): SharedUsageCounter {
  // Fail fast: a request never waits on a Redis that is down (the limiter keeps its own count).
  const redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: true, connectTimeout: 2000 });
  redis.on('error', onError);
  // The first calls wait for the first connection attempt (at most connectTimeout), not for reconnects.
  const connecting = redis.connect().catch(onError);
  return {
    async add(key, amount, windowMs) {
      await connecting;
      return Number(await redis.eval(SCRIPT, 1, `${prefix}${key}`, String(amount), String(windowMs)));
    },
    async close() {
      redis.disconnect();
    },
  };
}
