import { pino } from 'pino';
import type { AutomationSweep, SweepReport } from '../capabilities/automationSweep.ts';
import { codedError } from '../kernel/errors.ts';
import type { Logger } from '../kernel/logger.ts';
import { BUILTIN_PLUGINS } from '../plugins/builtin.ts';
import { createRuntime } from '../runtime/createRuntime.ts';
import type { LoadConfigOptions } from '../runtime/loadConfig.ts';

/**
 * Boots the runtime without a listening socket, sweeps the time-relative flows for one day (default
 * today, UTC) in every environment, and stops: operators backfill a missed day with it.
 */
export async function runSweepCommand(options: LoadConfigOptions, date?: string): Promise<SweepReport> {
  const logger = pino({ level: process.env.LOG_LEVEL ?? 'warn', base: undefined }, pino.destination(2)) as unknown as Logger;
  const builtins = BUILTIN_PLUGINS.map((b) => (b.manifest.name === 'http' ? { ...b, optionsFrom: (config: Parameters<NonNullable<typeof b.optionsFrom>>[0]) => ({ ...config.server, listen: false }) } : b));
  const runtime = await createRuntime({ ...options, logger, builtins });
  await runtime.start();
  try {
    const sweep = runtime.kernel.service<AutomationSweep>('automation.sweep');
    if (!sweep) throw codedError('SERVICE_UNAVAILABLE', { service: 'Automation', reason: 'the automation plugin is off (plugins.automation.enabled false)' });
    return await sweep.run(date === undefined ? {} : { date });
  } finally {
    await runtime.stop();
  }
}

export function formatSweep(report: SweepReport): string {
  const lines = [`time-relative flows swept for ${report.date}`];
  for (const env of report.environments) {
    lines.push('', `environment ${env.id}`);
    if (env.flows.length === 0) lines.push('  no time-relative flows declared');
    for (const flow of env.flows) {
      for (const s of flow.slots) {
        const days = s.from === s.to ? s.from : `${s.from}..${s.to}`;
        lines.push(`  ${flow.flow.padEnd(24)} ${`${flow.object}.${flow.field}`.padEnd(28)} ${s.slot.padEnd(12)} ${days.padEnd(22)} matched ${s.matched}, started ${s.started}, already ${s.already}${s.failed ? `, failed ${s.failed}` : ''}`);
      }
    }
  }
  return lines.join('\n');
}
