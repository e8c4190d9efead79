/** With Redis, two runtimes count one form's submissions from one IP together; without it each counts its own. */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import t, { type Test } from 'tap';
import { startTestRuntime, type TestRuntime } from '../harness/startTestRuntime.ts';
import { dropRedisKeys, redisProblem, REDIS_URL } from '../jobs/jobsHarness.ts';
import { FORMS_APP } from './formsHarness.ts';

const down = await redisProblem();
const skip = down !== null && process.env.CI !== 'true' ? `Redis unreachable at ${REDIS_URL} (${down}); set CI=true to make this a failure` : false;

async function boot(t: Test, environment: string, redis: boolean, prefix: string): Promise<TestRuntime> {
  const dataDir = mkdtempSync(join(tmpdir(), 'osr-forms-rl-'));
  const rt = await startTestRuntime({
    config: {
      apps: [FORMS_APP], dataDir, environments: [{ id: environment }],
      ...(redis ? { redis: { url: REDIS_URL } } : {}),
      plugins: { forms: { redisKeyPrefix: prefix } },
    },
  });
  t.teardown(async () => {
    await rt.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  return rt;
}

async function codes(a: TestRuntime, b: TestRuntime): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < 4; i++) {
    const rt = i % 2 === 0 ? a : b;
    const res = await rt.inject({ method: 'POST', url: '/api/v1/forms/tight/submit', remoteAddress: '10.9.0.1', payload: { subject: `n${i}`, email: 'r@example.com' } });
    out.push(res.statusCode);
  }
  return out;
}

t.test('shared in Redis: the third submission is refused whichever runtime takes it', { skip }, async (t) => {
  if (down !== null) throw new Error(`Redis is required when CI=true but is unreachable at ${REDIS_URL}: ${down}`);
  const environment = `forms-rl-${process.pid}-${randomBytes(3).toString('hex')}`;
  const prefix = `osr:test-forms:${environment}:`;
  t.teardown(async () => {
    await dropRedisKeys(environment);
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });
  const a = await boot(t, environment, true, prefix);
  const b = await boot(t, environment, true, prefix);
  t.same(await codes(a, b), [201, 201, 429, 429]);
  const redis = new Redis(REDIS_URL);
  t.teardown(() => redis.disconnect());
  t.same(await redis.keys(`${prefix}*`), [`${prefix}forms|${environment}|tight|10.9.0.1`], 'one shared window per form and IP');
});

t.test('in memory: each runtime counts alone', async (t) => {
  const environment = `forms-rl-${process.pid}-${randomBytes(3).toString('hex')}`;
  const a = await boot(t, environment, false, 'unused:');
  const b = await boot(t, environment, false, 'unused:');
  t.same(await codes(a, b), [201, 201, 201, 201]);
});
