/**
 * The auth limits on the runtime's one limiter: two limiters standing for two runtime processes
 * share the sign-in and phone-code per-IP counts in Redis, and a number's cooldown and hourly cap.
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

t.test("two processes hold one number's cooldown and hourly cap between them", { skip }, async (t) => {
  await requireRedis(t);
  const number = `+49152${String(randomBytes(3).readUIntBE(0, 3)).padStart(8, '0')}`;
  const errors: unknown[] = [];
  t.teardown(async () => {
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${AUTH_RATE_PREFIX}*${number}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });
  const limiter = (limits: { cooldownSeconds: number; hourlyCap: number }) => {
    const counter = redisCounter(REDIS_URL, (e) => errors.push(e));
    t.teardown(() => counter.close());
    const phone = new PhoneCodeLimiter({ ...limits, perIp: { max: 1000, windowSeconds: 60 } });
    phone.share(counter, (e) => errors.push(e));
    return phone;
  };
  // A distinct address per request: only the number's own limits are at stake.
  let n = 0;
  const code = (p: PhoneCodeLimiter, environmentId: string) => refusal(p.hit({ environmentId, ip: `10.9.${n >> 8}.${n++ & 255}`, phone: number }));

  const [a, b] = [limiter({ cooldownSeconds: 60, hourlyCap: 5 }), limiter({ cooldownSeconds: 60, hourlyCap: 5 })];
  t.equal(await code(a, 'cool'), null, 'a code through A');
  t.equal(await code(b, 'cool'), 'RATE_LIMITED phoneCode.cooldown', 'B holds the cooldown A started');
  t.equal(await code(a, 'cool'), 'RATE_LIMITED phoneCode.cooldown', 'and A its own');

  const [c, d] = [limiter({ cooldownSeconds: 0, hourlyCap: 2 }), limiter({ cooldownSeconds: 0, hourlyCap: 2 })];
  t.equal(await code(c, 'cap'), null);
  t.equal(await code(d, 'cap'), null);
  t.equal(await code(c, 'cap'), 'RATE_LIMITED phoneCode.hourlyCap', 'the third code of the hour, whichever process takes it');
  t.equal(await code(d, 'cap'), 'RATE_LIMITED phoneCode.hourlyCap');
  t.same(errors, [], 'Redis answered every call');
});
