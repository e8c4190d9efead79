/**
 * The per-user AI limits counted in Redis: two limiters standing for two runtime processes share
 * one count (a request or token spent through one counts against the other), and a Redis that does
 * not answer leaves each process its own count.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import t from 'tap';
import { redisCounter } from '../../plugins/events/redisCounter.ts';
import { sharedUsageLimiter } from '../../plugins/ai/sharedUsageLimiter.ts';
import { createUsageLimiter } from '../../plugins/ai/usageLimiter.ts';
import { redisProblem, REDIS_URL, requireRedis } from '../jobs/jobsHarness.ts';

const redisDown = await redisProblem();
const skip = redisDown !== null && process.env.CI !== 'true' ? `Redis unreachable at ${REDIS_URL} (${redisDown}); set CI=true to make this a failure` : false;
const limits = { requestsPerMinute: 3, tokensPerDay: 1000 };
// 30 s into a minute: no window ends during the test.
const NOW = Date.UTC(2026, 0, 5, 12, 0, 30);

t.test('two processes share one count in Redis', { skip }, async (t) => {
  await requireRedis(t);
  const prefix = `osr:test:ai:${randomBytes(4).toString('hex')}:`;
  const errors: unknown[] = [];
  const process = () => {
    const limiter = sharedUsageLimiter(limits, createUsageLimiter(limits, () => NOW), () => NOW);
    const counter = redisCounter(REDIS_URL, (e) => errors.push(e));
    limiter.share(counter, prefix, (e) => errors.push(e));
    t.teardown(() => counter.close());
    return limiter;
  };
  t.teardown(async () => {
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });
  const a = process();
  const b = process();

  await a.admit('env:u1');
  await b.admit('env:u1');
  await a.admit('env:u1');
  await t.rejects(b.admit('env:u1'), { code: 'RATE_LIMITED', details: { limit: 'ai.requestsPerMinute', retryAfter: 30 } }, 'the fourth request of the minute, whichever process takes it');
  await b.admit('env:u2');

  await a.spend('env:u2', 900);
  await b.spend('env:u2', 200);
  await t.rejects(b.admit('env:u2'), { code: 'RATE_LIMITED', details: { limit: 'ai.tokensPerDay' } }, 'tokens spent in both processes add up');
  const redis = new Redis(REDIS_URL);
  t.teardown(() => redis.disconnect());
  t.equal(await redis.get(`${prefix}tokens|env:u2|${Math.floor(NOW / 86_400_000)}`), '1100', 'the day\'s tokens, counted once in Redis');
  t.same(errors, [], 'Redis answered every call');
});

t.test('a Redis that does not answer leaves each process its own count', async (t) => {
  const errors: unknown[] = [];
  const limiter = sharedUsageLimiter(limits, createUsageLimiter(limits, () => NOW), () => NOW);
  const counter = redisCounter('redis://127.0.0.1:1', () => undefined);
  limiter.share(counter, 'osr:test:ai:down:', (e) => errors.push(e));
  t.teardown(() => counter.close());
  for (let i = 0; i < 3; i++) await limiter.admit('env:u1');
  await t.rejects(limiter.admit('env:u1'), { code: 'RATE_LIMITED', details: { limit: 'ai.requestsPerMinute' } }, 'the process count still holds');
  t.ok(errors.length >= 3, 'each failed Redis call is reported');
});
