/** A runtime with the job probe on one driver, and what the jobs tests read back. */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Test } from 'tap';
import type { DataDatabase } from '../../capabilities/dataDatabase.ts';
import type { DataEngine } from '../../capabilities/dataEngine.ts';
import type { JobsQueue } from '../../capabilities/jobsQueue.ts';
import type { RuntimeConfigInput } from '../../runtime/configSchema.ts';
import { checkRedis } from '../../runtime/checkRedis.ts';
import { databaseCases, POSTGRES_URL } from '../harness/databases.ts';
import { startTestRuntime, type TestRuntime } from '../harness/startTestRuntime.ts';
import { dropSchema, requirePostgres } from '../reliability/reliabilityHarness.ts';
import { EFFECT_TABLE, PROBE_BUILTINS } from './fixtures/jobProbe.ts';

export type DriverName = 'sqlite' | 'postgres';
/** A database driver, or the BullMQ backend (on Redis, with a SQLite database). */
export type BackendName = DriverName | 'redis';
export { POSTGRES_URL };
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export async function forEachDriver(t: Test, body: (t: Test, driver: DriverName) => Promise<void>): Promise<void> {
  for (const c of await databaseCases()) {
    await t.test(c.name, { skip: c.skip }, async (t) => {
      if (c.name === 'postgres') await requirePostgres(t);
      await body(t, c.name);
    });
  }
}

/** Redis unreachable: skipped with the reason, or a failure when CI=true (as PostgreSQL). */
export async function redisProblem(): Promise<string | null> {
  const reach = await checkRedis(REDIS_URL);
  return reach.ok ? null : reach.detail;
}

export async function requireRedis(t: Test): Promise<void> {
  const problem = await redisProblem();
  if (problem) {
    t.fail(`Redis is required (CI=true) but unreachable: ${problem}`);
    throw new Error(problem);
  }
}

/** Every driver with the embedded queue, then the BullMQ backend. */
export async function forEachBackend(t: Test, body: (t: Test, backend: BackendName) => Promise<void>): Promise<void> {
  await forEachDriver(t, body);
  const problem = await redisProblem();
  const ci = process.env.CI === 'true';
  await t.test('redis', { skip: problem !== null && !ci ? `Redis unreachable at ${REDIS_URL} (${problem}); set CI=true to make this a failure` : false }, async (t) => {
    await requireRedis(t);
    await body(t, 'redis');
  });
}

export function environmentFor(tag: string): { id: string; schema: string } {
  const id = `jobs-${tag}-${process.pid}-${randomBytes(3).toString('hex')}`;
  return { id, schema: `env_${id.replace(/-/g, '_')}` };
}

export interface JobsRuntime {
  rt: TestRuntime;
  environmentId: string;
  queue: JobsQueue;
  engine: DataEngine;
  /** Rows of job_effect, oldest first. */
  effects(): Promise<Array<{ job_id: string; attempt: number; pid: number; data: string }>>;
  close(): Promise<void>;
}

export async function bootJobs(t: Test, driver: BackendName, options: { environment?: string; dataDir?: string; config?: RuntimeConfigInput; keep?: boolean } = {}): Promise<JobsRuntime> {
  const env = options.environment ? { id: options.environment, schema: `env_${options.environment.replace(/-/g, '_')}` } : environmentFor('q');
  const rt = await startTestRuntime({
    config: {
      apps: [],
      api: { requireAuth: false },
      environments: [{ id: env.id }],
      ...(options.dataDir ? { dataDir: options.dataDir } : {}),
      ...(driver === 'postgres' ? { database: { url: POSTGRES_URL } } : {}),
      ...(driver === 'redis' ? { redis: { url: REDIS_URL } } : {}),
      ...options.config,
      plugins: { jobs: { pollMs: 50, ...(options.config?.plugins?.jobs as object) }, ...options.config?.plugins },
    },
    builtins: PROBE_BUILTINS,
  });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await rt.close();
  };
  t.teardown(async () => {
    await close();
    if (driver === 'postgres' && !options.keep) await dropSchema(env.schema);
    if (driver === 'redis' && !options.keep) await dropRedisKeys(env.id);
  });
  const engine = rt.runtime.kernel.service<DataEngine>('data.engine')!;
  return {
    rt,
    environmentId: env.id,
    queue: rt.runtime.kernel.service<JobsQueue>('jobs.queue')!,
    engine,
    effects: () => rt.runtime.kernel.service<DataDatabase>('data.database')!.withDatabase(env.id, (db) => db.knex(EFFECT_TABLE).select('job_id', 'attempt', 'pid', 'data').orderBy('seq')),
    close,
  };
}

/** Polls `check` until it answers true or `ms` pass; answers the last result. */
export async function waitFor(check: () => Promise<boolean> | boolean, ms = 10_000, every = 25): Promise<boolean> {
  const until = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > until) return false;
    await new Promise((resolve) => setTimeout(resolve, every));
  }
}

/** Removes an environment's BullMQ keys. */
export async function dropRedisKeys(environmentId: string): Promise<void> {
  const redis = new Redis(REDIS_URL);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `osr:${environmentId}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
