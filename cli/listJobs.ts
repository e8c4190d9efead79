import { existsSync } from 'node:fs';
import type { SideTableAccess } from '../capabilities/dataDatabase.ts';
import type { JobCount, JobInfo } from '../capabilities/jobsQueue.ts';
import { codedError } from '../kernel/errors.ts';
import { createDataDatabase } from '../plugins/data/engine/createDataDatabase.ts';
import { openDatabase } from '../plugins/data/sql/openDatabase.ts';
import { countJobs, deadJobs, JOB_TABLE, retryDead } from '../plugins/jobs/jobStore.ts';
import { loadConfig, type LoadConfigOptions } from '../runtime/loadConfig.ts';

export interface JobsReport {
  backend: 'embedded' | 'bullmq';
  environments: Array<{ id: string; counts: JobCount[]; dead: JobInfo[] }>;
}

/** The backend a config selects: Redis when redis.url (REDIS_URL) is set. */
export function jobsBackend(redisUrl: string | null): 'embedded' | 'bullmq' {
  return redisUrl ? 'bullmq' : 'embedded';
}

/** Counts per job name and state, and the dead letters, of every environment; reads only. */
export async function listJobs(options: LoadConfigOptions, deadLimit = 20): Promise<JobsReport> {
  const config = await loadConfig(options);
  const backend = jobsBackend(config.redisUrl);
  if (backend === 'bullmq') {
    const { bullmqJobsReport } = await import('../plugins/jobs/bullmqReport.ts');
    return { backend, environments: await bullmqJobsReport(config.redisUrl!, config.environments.map((e) => e.id), deadLimit) };
  }
  const environments: JobsReport['environments'] = [];
  for (const env of config.environments) {
    const found = await withEnvironment(env, async (access) => ((await access.knex.schema.hasTable(JOB_TABLE))
      ? { id: env.id, counts: await countJobs(access), dead: await deadJobs(access, env.id, deadLimit) }
      : null));
    environments.push(found ?? { id: env.id, counts: [], dead: [] });
  }
  return { backend, environments };
}

/** Queues a dead job again (any environment holding its id). */
export async function retryJob(options: LoadConfigOptions, id: string): Promise<{ id: string; environmentId: string }> {
  const config = await loadConfig(options);
  if (jobsBackend(config.redisUrl) === 'bullmq') {
    const { bullmqRetry } = await import('../plugins/jobs/bullmqReport.ts');
    return bullmqRetry(config.redisUrl!, config.environments.map((e) => e.id), id);
  }
  for (const env of config.environments) {
    const found = await withEnvironment(env, async (access) => ((await access.knex.schema.hasTable(JOB_TABLE)) ? retryDead(access, id, new Date()) : null));
    if (found === 'dead') return { id, environmentId: env.id };
    if (found !== null) throw codedError('JOB_NOT_DEAD', { id, state: found });
  }
  throw codedError('NOT_FOUND', { what: `Job ${id}` });
}

async function withEnvironment<T>(env: { id: string; databaseUrl: string; schema: string | null }, work: (access: SideTableAccess) => Promise<T | null>): Promise<T | null> {
  // A SQLite file that does not exist yet holds no jobs; opening it would create it.
  if (env.databaseUrl.startsWith('sqlite:') && !existsSync(env.databaseUrl.slice('sqlite:'.length))) return null;
  const db = await openDatabase({ url: env.databaseUrl, ...(env.schema ? { schema: env.schema } : {}) });
  try {
    // The data plugin's side-table access (its write transactions included), on this database alone.
    return await createDataDatabase({ database: () => db }).withDatabase(env.id, work);
  } finally {
    await db.close();
  }
}

export function formatJobs(report: JobsReport): string {
  const lines = [`backend: ${report.backend}`];
  for (const env of report.environments) {
    lines.push('', `environment ${env.id}`);
    if (env.counts.length === 0) lines.push('  no jobs');
    const names = [...new Set(env.counts.map((c) => c.name))];
    for (const name of names) {
      const parts = env.counts.filter((c) => c.name === name).map((c) => `${c.state} ${c.count}`);
      lines.push(`  ${name.padEnd(30)} ${parts.join(', ')}`);
    }
    if (env.dead.length > 0) {
      lines.push('  dead letters (osr jobs retry ID queues one again):');
      for (const d of env.dead) lines.push(`    ${d.id}  ${d.name}  ${d.attempts} attempts  ${d.finishedAt ?? ''}  ${d.lastError ?? ''}`);
    }
  }
  return lines.join('\n');
}
