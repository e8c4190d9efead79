/**
 * The auth limits on the runtime's one limiter: two limiters standing for two runtime processes
 * share the sign-in and phone-code per-IP counts in Redis.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import t from 'tap';
import { authOptionsSchema } from '../../plugins/auth/authOptions.ts';
import { PhoneCodeLimiter } from '../../plugins/auth/phoneCodeLimiter.ts';
import { AUTH_RATE_PREFIX, RateLimiter } from '../../plugins/auth/rateLimiter.ts';
import { redisCounter } from '../../plugins/events/redisCounter.ts';
import { redisProblem, REDIS_URL, requireRedis } from '../jobs/jobsHarness.ts';

const redisDown = await redisProblem();
const skip = redisDown !== null && process.env.CI !== 'true' ? `Redis unreachable at ${REDIS_URL} (${redisDown}); set CI=true to make this a failure` : false;

const refusal = (promise: Promise<void>) => promise.then(() => null, (error: { code?: string; details?: { limit?: string } }) => `${error.code} ${error.details?.limit}`);

t.test('two processes share the auth and phone-code per-IP counts in Redis', { skip }, async (t) => {
  await requireRedis(t);
  // A fresh address per run: the keys are the runtime's own (osr:ratelimit:...), removed after.
  const ip = `10.${randomBytes(3).join('.')}`;
  const errors: unknown[] = [];
  const options = authOptionsSchema.parse({ rateLimit: { signIn: { perIp: { max: 3, windowSeconds: 60 }, perAccount: { max: 100, windowSeconds: 60 } } } }).rateLimit;
  const phoneLimits = { cooldownSeconds: 60, hourlyCap: 5, perIp: { max: 2, windowSeconds: 60 } };
  const process = () => {
    const counter = redisCounter(REDIS_URL, (e) => errors.push(e));
    t.teardown(() => counter.close());
    const auth = new RateLimiter(options);
    auth.share(counter, (e) => errors.push(e));
    const phone = new PhoneCodeLimiter(phoneLimits);
    phone.share(counter, (e) => errors.push(e));
    return { auth, phone };
  };
  t.teardown(async () => {
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${AUTH_RATE_PREFIX}*${ip}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });
  const a = process();
  const b = process();

  const signIn = (p: typeof a, account: string) => refusal(p.auth.hit('signIn', { environmentId: 'main', ip, account }));
  t.equal(await signIn(a, 'x@example.com'), null);
  t.equal(await signIn(b, 'y@example.com'), null);
  t.equal(await signIn(a, 'z@example.com'), null);
  t.equal(await signIn(b, 'w@example.com'), 'RATE_LIMITED signIn', 'the fourth sign-in from one address, whichever process takes it');

  const code = (p: typeof a, phone: string) => refusal(p.phone.hit({ environmentId: 'main', ip, phone }));
  t.equal(await code(a, '+4915100000001'), null);
  t.equal(await code(b, '+4915100000002'), null);
  t.equal(await code(a, '+4915100000003'), 'RATE_LIMITED phoneCode.perIp', 'the third code request from one address, counted in both processes');
  t.equal(await code(b, '+4915100000001'), 'RATE_LIMITED phoneCode.perIp');

  const redis = new Redis(REDIS_URL);
  t.teardown(() => redis.disconnect());
  t.equal(await redis.get(`${AUTH_RATE_PREFIX}phoneCode|ip|${ip}`), '4', 'the address\'s code requests, counted once in Redis');
  t.equal(await redis.get(`${AUTH_RATE_PREFIX}signIn|ip|${ip}`), '4');
  t.same(errors, [], 'Redis answered every call');
});
