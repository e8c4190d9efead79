import { pino } from 'pino';
import type { LifecycleReport, LifecycleRetention } from '../capabilities/lifecycleRetention.ts';
import { codedError } from '../kernel/errors.ts';
import type { Logger } from '../kernel/logger.ts';
import { BUILTIN_PLUGINS } from '../plugins/builtin.ts';
import { createRuntime } from '../runtime/createRuntime.ts';
import type { LoadConfigOptions } from '../runtime/loadConfig.ts';

/**
 * Boots the runtime without a listening socket (contracts are declared by the plugins), applies
 * every retention contract once in every environment (or counts, with dryRun), and stops.
 */
export async function runLifecycleCommand(options: LoadConfigOptions, dryRun: boolean): Promise<LifecycleReport> {
  // Logs go to stderr: stdout holds the report.
  const logger = pino({ level: process.env.LOG_LEVEL ?? 'warn', base: undefined }, pino.destination(2)) as unknown as Logger;
  const builtins = BUILTIN_PLUGINS.map((b) => (b.manifest.name === 'http' ? { ...b, optionsFrom: (config: Parameters<NonNullable<typeof b.optionsFrom>>[0]) => ({ ...config.server, listen: false }) } : b));
  const runtime = await createRuntime({ ...options, logger, builtins });
  await runtime.start();
  try {
    const lifecycle = runtime.kernel.service<LifecycleRetention>('lifecycle.retention');
    if (!lifecycle) throw codedError('SERVICE_OFF', { service: 'Lifecycle', reason: 'the lifecycle plugin is off (OS_LIFECYCLE_DISABLED=1 or plugins.lifecycle.enabled false)', fix: 'unset OS_LIFECYCLE_DISABLED and remove plugins.lifecycle.enabled: false, then run again' });
    return await lifecycle.run({ dryRun });
  } finally {
    await runtime.stop();
  }
}

export function formatLifecycle(report: LifecycleReport): string {
  const verb = report.dryRun ? 'would remove' : 'removed';
  const lines = [`${report.dryRun ? 'dry run' : 'retention applied'} at ${report.ranAt}`];
  for (const env of report.environments) {
    lines.push('', `environment ${env.id}`);
    if (env.contracts.length === 0) lines.push('  no retention contracts declared');
    for (const c of env.contracts) {
      const window = c.keepDays === 0 ? 'forever' : `${c.keepDays} days${c.overridden ? ' (override)' : ''}`;
      const what = c.status === 'applied' ? `${verb} ${c.rows}${c.more ? ' (more left for the next run)' : ''}` : `${c.status}: ${c.reason ?? ''}`;
      lines.push(`  ${c.name.padEnd(30)} ${c.object.padEnd(24)} keep ${window.padEnd(20)} ${what}`);
    }
  }
  return lines.join('\n');
}
