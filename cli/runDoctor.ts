import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { checkGraph } from '../kernel/checkGraph.ts';
import { isCodedError, KernelBootError } from '../kernel/errors.ts';
import { BUILTIN_PLUGINS } from '../plugins/builtin.ts';
import { checkDatabase } from '../runtime/checkDatabase.ts';
import { checkRedis } from '../runtime/checkRedis.ts';
import { loadConfig, type LoadConfigOptions } from '../runtime/loadConfig.ts';
import { resolvePlugins } from '../runtime/resolvePlugins.ts';
import type { PluginEntry } from '../kernel/pluginEntry.ts';
import { checkMetadata } from './checkMetadata.ts';
import { checkHookSecrets } from './checkHookSecrets.ts';
import { checkSchema } from './checkSchema.ts';
import { checkDeclaredIndexes } from './checkDeclaredIndexes.ts';
import { declaredIndexesOf } from '../plugins/data/sql/declaredIndexesOf.ts';
import { checkMaterialized } from './checkMaterialized.ts';
import { checkSettings } from './checkSettings.ts';
import { checkSharedWriters } from './checkSharedWriters.ts';

export interface DoctorCheck {
  name: string;
  ok: boolean;
  /** Not a failure, but something to act on (printed `warn`; the doctor still exits 0). */
  warning?: boolean;
  detail: string;
  /** Problem codes with their messages, when not ok. */
  problems?: { code: string; message: string }[];
}

export interface DoctorReport {
  ok: boolean;
  checks: DoctorCheck[];
}

function problemsOf(error: unknown): { code: string; message: string }[] {
  if (error instanceof KernelBootError) return error.failures.map((f) => ({ code: f.code, message: f.message }));
  if (isCodedError(error)) return [{ code: error.code, message: error.message }];
  return [{ code: 'INTERNAL', message: (error as Error).message }];
}

/**
 * Everything `osr doctor` checks, without starting the runtime or writing anything: the config,
 * plugins and metadata go through the loaders and checks a boot runs, so a metadata problem that
 * would refuse the boot is a FAIL here too.
 */
export async function runDoctor(options: LoadConfigOptions): Promise<DoctorReport> {
  const checks: DoctorCheck[] = [];
  let config;
  try {
    config = await loadConfig(options);
    checks.push({ name: 'config', ok: true, detail: config.configFile ? `loaded ${config.configFile}` : 'no config file; defaults and environment variables' });
  } catch (error) {
    checks.push({ name: 'config', ok: false, detail: 'the configuration is not valid', problems: problemsOf(error) });
    return { ok: false, checks };
  }

  if (config.auth.secret) checks.push({ name: 'secret', ok: true, detail: 'OS_AUTH_SECRET is set' });
  else if (config.production) checks.push({ name: 'secret', ok: false, detail: 'NODE_ENV=production and OS_AUTH_SECRET is not set', problems: [{ code: 'SECRET_REQUIRED', message: 'Set OS_AUTH_SECRET to a long random value (at least 32 characters).' }] });
  else {
    const kept = existsSync(join(config.dataDir, '.auth-secret'));
    checks.push({ name: 'secret', ok: true, detail: kept ? 'development secret kept in the data directory (set OS_AUTH_SECRET in production)' : 'a development secret will be generated at first start (set OS_AUTH_SECRET in production)' });
  }

  const db = await checkDatabase(config.databaseUrl);
  checks.push({ name: 'database', ...db });
  if (config.redisUrl) checks.push({ name: 'redis', ...(await checkRedis(config.redisUrl)) });
  checks.push({ name: 'jobs', ok: true, detail: config.redisUrl ? 'bullmq: jobs and schedules on Redis (REDIS_URL)' : "embedded: jobs in each environment's database (set REDIS_URL for BullMQ)" });

  checks.push(checkSettings(config, process.env));

  const missingApps = config.apps.filter((dir) => !existsSync(dir));
  checks.push(missingApps.length === 0
    ? { name: 'apps', ok: true, detail: `${config.apps.length} app director${config.apps.length === 1 ? 'y' : 'ies'}` }
    : { name: 'apps', ok: false, detail: `missing: ${missingApps.join(', ')}`, problems: missingApps.map((d) => ({ code: 'CONFIG_INVALID', message: `apps: directory ${d} does not exist` })) });

  let entries: PluginEntry[];
  try {
    entries = await resolvePlugins(config, BUILTIN_PLUGINS);
  } catch (error) {
    checks.push({ name: 'capabilities', ok: false, detail: 'plugins could not be resolved', problems: problemsOf(error) });
    return { ok: false, checks };
  }
  const graph = checkGraph(entries);
  const metadata = await checkMetadata(config.apps, entries);
  const protocol = [...graph.failures.filter((f) => f.code === 'KERNEL_PROTOCOL_INCOMPATIBLE'), ...metadata.protocol];
  const other = graph.failures.filter((f) => f.code !== 'KERNEL_PROTOCOL_INCOMPATIBLE');
  checks.push(other.length === 0
    ? { name: 'capabilities', ok: true, detail: `${graph.order.length} plugins in boot order: ${graph.order.join(' -> ')}` }
    : { name: 'capabilities', ok: false, detail: `${other.length} problem(s) in the capability graph`, problems: problemsOf(new KernelBootError(other)) });
  checks.push(protocol.length === 0
    ? { name: 'protocol', ok: true, detail: 'every plugin and app is compatible with this runtime' }
    : { name: 'protocol', ok: false, detail: 'incompatible plugins or apps', problems: protocol.map((f) => ({ code: f.code, message: f.message })) });
  checks.push(metadata.check);
  if (entries.some((e) => e.enabled && e.manifest?.name === 'automation')) {
    const hooks = metadata.flows.filter((f) => f.type === 'api' && f.hook);
    if (hooks.length > 0) checks.push(checkHookSecrets(hooks, process.env));
  }
  const data = entries.find((e) => e.enabled && e.manifest?.name === 'data');
  if (data && metadata.objects && db.ok) {
    const schemaSync = String((data.options as { schemaSync?: string } | undefined)?.schemaSync ?? 'additive');
    const declared = declaredIndexesOf(metadata.objects, metadata.apps);
    checks.push(await checkSchema(config.environments, metadata.objects, schemaSync, declared));
    if (schemaSync !== 'off') checks.push(checkDeclaredIndexes(metadata.objects, metadata.apps, declared));
    const materialized = checkMaterialized(metadata.objects, metadata.apps, schemaSync);
    if (materialized) checks.push(materialized);
  }
  if (data && db.ok) {
    const shared = await checkSharedWriters(config.environments, String((data.options as { countCache?: string } | undefined)?.countCache ?? 'on'));
    if (shared) checks.push(shared);
  }
  if (data) {
    const slowQueryMs = Number((data.options as { slowQueryMs?: number } | undefined)?.slowQueryMs ?? 50);
    checks.push({ name: 'index advice', ok: true, detail: `no traffic history here: run with traffic, then read GET /api/v1/metrics/index-advice as an admin (reads of ${slowQueryMs} ms or more are recorded, plugins.data.slowQueryMs)` });
  }
  return { ok: checks.every((c) => c.ok), checks };
}

export function formatDoctor(report: DoctorReport): string {
  const lines = report.checks.map((c) => {
    const head = `${c.ok ? (c.warning ? 'warn' : 'ok  ') : 'FAIL'} ${c.name.padEnd(13)} ${c.detail}`;
    const extra = (c.problems ?? []).map((p) => `       [${p.code}] ${p.message.replace(/\n/g, '\n       ')}`);
    return [head, ...extra].join('\n');
  });
  lines.push('', report.ok ? (report.checks.some((c) => c.warning) ? 'No problems found; read the lines marked warn.' : 'No problems found.') : 'Problems found: fix the lines marked FAIL, then run osr doctor again.');
  return lines.join('\n');
}
