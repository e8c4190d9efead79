/** With Redis, failed sign-ins spread over two processes hit the same limit as on one. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import t from 'tap';
import { databaseCases } from '../harness/databases.ts';
import { freePort } from '../harness/freePort.ts';
import { dropSchema, requirePostgres } from '../reliability/reliabilityHarness.ts';
import { dropRedisKeys, environmentFor, POSTGRES_URL, redisProblem, REDIS_URL, requireRedis } from './jobsHarness.ts';
import { spawnJobServer } from './spawnJobServer.ts';

const pgCase = (await databaseCases()).find((c) => c.name === 'postgres')!;
const redisDown = await redisProblem();
const skip = pgCase.skip || (redisDown !== null && process.env.CI !== 'true' ? `Redis unreachable at ${REDIS_URL} (${redisDown}); set CI=true to make this a failure` : false);

t.test('20 failed sign-ins over two processes: the tenth per account is the last before 429, as on one process', { skip }, async (t) => {
  await requirePostgres(t);
  await requireRedis(t);
  const env = environmentFor('rl');
  const dataDir = mkdtempSync(join(tmpdir(), 'osr-jobs-'));
  const account = `target-${env.id}@example.com`;
  const clearCounters = async () => {
    const redis = new Redis(REDIS_URL);
    try {
      const keys = [...await redis.keys(`osr:ratelimit:signIn|account|${env.id}|*`), ...await redis.keys('osr:ratelimit:signIn|ip|*')];
      if (keys.length > 0) await redis.del(...keys);
    } finally {
      redis.disconnect();
    }
  };
  await clearCounters();
  t.teardown(async () => {
    rmSync(dataDir, { recursive: true, force: true });
    await dropSchema(env.schema);
    await dropRedisKeys(env.id);
    await clearCounters();
  });
  const settings = { JOBS_ENV: env.id, JOBS_DATA_DIR: dataDir, DATABASE_URL: POSTGRES_URL, JOBS_REQUIRE_AUTH: 'true', REDIS_URL };
  const a = await spawnJobServer(t, { ...settings, JOBS_PORT: String(await freePort()) });
  const b = await spawnJobServer(t, { ...settings, JOBS_PORT: String(await freePort()) });

  const codes: number[] = [];
  for (let i = 0; i < 20; i++) {
    const server = i % 2 === 0 ? a : b;
    const res = await fetch(`${server.url}/api/v1/auth/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: account, password: 'guess-1' }) });
    codes.push(res.status);
    if (res.status === 429) t.ok(Number(res.headers.get('retry-after')) >= 1, 'Retry-After');
  }
  t.same(codes, [...Array(10).fill(401), ...Array(10).fill(429)], 'ten attempts per account in five minutes across both, then 429 from either');
  await Promise.all([a.send({ cmd: 'stop' }), b.send({ cmd: 'stop' })]);
});
