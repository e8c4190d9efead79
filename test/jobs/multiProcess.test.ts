/**
 * Two runtime processes on one PostgreSQL database, with the embedded queue and again with BullMQ:
 * every job runs exactly once, and a repeatable job fires once per period, not once per process.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { databaseCases } from '../harness/databases.ts';
import { dropSchema, requirePostgres, withPostgres } from '../reliability/reliabilityHarness.ts';
import { dropRedisKeys, environmentFor, POSTGRES_URL, redisProblem, REDIS_URL, requireRedis, waitFor } from './jobsHarness.ts';
import { spawnJobServer } from './spawnJobServer.ts';

const pgCase = (await databaseCases()).find((c) => c.name === 'postgres')!;
const redisDown = await redisProblem();
const ci = process.env.CI === 'true';

for (const backend of ['embedded', 'bullmq'] as const) {
  const skip = pgCase.skip || (backend === 'bullmq' && redisDown !== null && !ci ? `Redis unreachable at ${REDIS_URL} (${redisDown}); set CI=true to make this a failure` : false);
  t.test(`${backend}: two processes on one database`, { skip }, async (t) => {
    await requirePostgres(t);
    if (backend === 'bullmq') await requireRedis(t);
    const env = environmentFor(`mp${backend === 'bullmq' ? 'b' : 'e'}`);
    const dataDir = mkdtempSync(join(tmpdir(), 'osr-jobs-'));
    t.teardown(async () => {
      rmSync(dataDir, { recursive: true, force: true });
      await dropSchema(env.schema);
      if (backend === 'bullmq') await dropRedisKeys(env.id);
    });
    const settings = {
      JOBS_ENV: env.id,
      JOBS_DATA_DIR: dataDir,
      DATABASE_URL: POSTGRES_URL,
      JOBS_OPTIONS: JSON.stringify({ pollMs: 50, concurrency: 8 }),
      ...(backend === 'bullmq' ? { REDIS_URL } : {}),
    };
    // The first boot creates the schema; the second joins it.
    const a = await spawnJobServer(t, settings);
    const b = await spawnJobServer(t, settings);
    t.equal(a.pid !== b.pid, true, 'two OS processes');
    const count = (sql: string) => withPostgres(async (c) => Number((await c.query(sql)).rows[0].n));

    await t.test('500 jobs added from both run exactly once each', async (t) => {
      const [fromA, fromB] = await Promise.all([
        a.send({ cmd: 'add', name: 'probe.effect', data: { from: 'a' }, count: 250 }),
        b.send({ cmd: 'add', name: 'probe.effect', data: { from: 'b' }, count: 250 }),
      ]);
      t.equal(fromA.ids.length + fromB.ids.length, 500);
      t.ok(await waitFor(async () => (await count(`select count(*) as n from "${env.schema}".job_effect`)) >= 500, 60_000), 'all ran');
      await new Promise((r) => setTimeout(r, 500));
      t.equal(await count(`select count(*) as n from "${env.schema}".job_effect`), 500, 'no job ran twice');
      t.equal(await count(`select count(distinct job_id) as n from "${env.schema}".job_effect`), 500, '500 distinct jobs');
      const pids = await withPostgres(async (c) => (await c.query(`select distinct pid from "${env.schema}".job_effect`)).rows.map((r) => Number(r.pid)).sort());
      t.same(pids, [a.pid, b.pid].sort(), 'both processes took work');
    });

    await t.test('a repeatable job scheduled by both fires once per period', async (t) => {
      const period = 1000;
      await Promise.all([a, b].map((s) => s.send({ cmd: 'schedule', name: 'probe.effect', key: 'tick', repeat: { every: period }, data: { tick: true } })));
      const since = Date.now();
      await new Promise((r) => setTimeout(r, 5 * period + 200));
      const elapsed = Date.now() - since;
      const ticks = await count(`select count(*) as n from "${env.schema}".job_effect where data like '%tick%'`);
      const periods = Math.floor(elapsed / period);
      t.ok(ticks >= periods - 1 && ticks <= periods + 1, `${ticks} runs in ${periods} periods (two processes would make ${2 * periods})`);
      const perSlot = await withPostgres(async (c) => (await c.query(`select count(*) as n from "${env.schema}".job_effect where data like '%tick%' group by (at / ${period}) having count(*) > 1`)).rows);
      t.same(perSlot, [], 'never two runs in one period');
    });

    await Promise.all([a.send({ cmd: 'stop' }), b.send({ cmd: 'stop' })]);
  });
}
