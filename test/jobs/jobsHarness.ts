/** A runtime with the job probe on one driver, and what the jobs tests read back. */
import { randomBytes } from 'node:crypto';
import type { Test } from 'tap';
import type { DataEngine } from '../../capabilities/dataEngine.ts';
import type { JobsQueue } from '../../capabilities/jobsQueue.ts';
import type { RuntimeConfigInput } from '../../runtime/configSchema.ts';
import { databaseCases, POSTGRES_URL } from '../harness/databases.ts';
import { startTestRuntime, type TestRuntime } from '../harness/startTestRuntime.ts';
import { dropSchema, requirePostgres } from '../reliability/reliabilityHarness.ts';
import { EFFECT_TABLE, PROBE_BUILTINS } from './fixtures/jobProbe.ts';

export type DriverName = 'sqlite' | 'postgres';
export { POSTGRES_URL };

export async function forEachDriver(t: Test, body: (t: Test, driver: DriverName) => Promise<void>): Promise<void> {
  for (const c of await databaseCases()) {
    await t.test(c.name, { skip: c.skip }, async (t) => {
      if (c.name === 'postgres') await requirePostgres(t);
      await body(t, c.name);
    });
  }
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

export async function bootJobs(t: Test, driver: DriverName, options: { environment?: string; dataDir?: string; config?: RuntimeConfigInput; keep?: boolean } = {}): Promise<JobsRuntime> {
  const env = options.environment ? { id: options.environment, schema: `env_${options.environment.replace(/-/g, '_')}` } : environmentFor('q');
  const rt = await startTestRuntime({
    config: {
      apps: [],
      api: { requireAuth: false },
      environments: [{ id: env.id }],
      ...(options.dataDir ? { dataDir: options.dataDir } : {}),
      ...(driver === 'postgres' ? { database: { url: POSTGRES_URL } } : {}),
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
  });
  const engine = rt.runtime.kernel.service<DataEngine>('data.engine')!;
  return {
    rt,
    environmentId: env.id,
    queue: rt.runtime.kernel.service<JobsQueue>('jobs.queue')!,
    engine,
    effects: () => engine.withDatabase(env.id, (db) => db.knex(EFFECT_TABLE).select('job_id', 'attempt', 'pid', 'data').orderBy('seq')),
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
