import type { AutomationSweep, SweepReport } from '../../capabilities/automationSweep.ts';
import type { DataDatabase } from '../../capabilities/dataDatabase.ts';
import type { DataEngine } from '../../capabilities/dataEngine.ts';
import type { FlowsRunner } from '../../capabilities/flowsRunner.ts';
import type { MetadataRegistry } from '../../capabilities/metadataRegistry.ts';
import { codedError } from '../../kernel/errors.ts';
import type { Logger } from '../../kernel/logger.ts';
import { DATE, ensureSweepTable, slotsOf, sweepSlot } from './sweepDay.ts';

/** `automation.sweep`: the time-relative flows swept for a day, in one environment or all of them. */
export function createSweep(deps: { engine: DataEngine; database: DataDatabase; runner: FlowsRunner; metadata: MetadataRegistry; environments: () => string[]; log: Logger }): AutomationSweep {
  const ready = new Map<string, Promise<void>>();
  return {
    async run(options = {}): Promise<SweepReport> {
      const date = options.date ?? new Date().toISOString().slice(0, 10);
      if (!DATE.test(date) || Number.isNaN(Date.parse(`${date}T00:00:00Z`)) || new Date(`${date}T00:00:00Z`).toISOString().slice(0, 10) !== date) {
        throw codedError('VALIDATION_ERROR', { summary: `date '${date.slice(0, 40)}' is not a day: use YYYY-MM-DD`, errors: [{ path: 'date', message: 'must be a day as YYYY-MM-DD' }] });
      }
      const known = deps.environments();
      if (options.environmentId !== undefined && !known.includes(options.environmentId)) {
        throw codedError('NOT_FOUND', { what: `Environment '${options.environmentId.slice(0, 64)}'` });
      }
      const flows = deps.runner.list().filter((f) => f.start?.timeRelative);
      const report: SweepReport = { date, environments: [] };
      for (const environmentId of options.environmentId === undefined ? known : [options.environmentId]) {
        const withDb = <T>(work: Parameters<DataDatabase['withDatabase']>[1]) => deps.database.withDatabase(environmentId, async (db) => {
          let table = ready.get(environmentId);
          if (!table) ready.set(environmentId, (table = ensureSweepTable(db).catch((error: unknown) => {
            ready.delete(environmentId);
            throw error;
          })));
          await table;
          return work(db) as Promise<T>;
        });
        const env: SweepReport['environments'][number] = { id: environmentId, flows: [] };
        for (const flow of flows) {
          const relative = flow.start!.timeRelative!;
          const slots = [];
          for (const slot of slotsOf(flow, date)) {
            slots.push(await sweepSlot({
              engine: deps.engine, runner: deps.runner, withDb,
              fieldType: (object, field) => deps.metadata.object(object)?.fields[field]?.type ?? 'date',
              onFailure: (name, recordId, error) => deps.log.warn({ err: error, flow: name, recordId, environmentId }, `automation: time-relative flow '${name}' did not start for a record`),
            }, environmentId, flow, slot));
          }
          env.flows.push({ flow: flow.name, object: relative.object, field: relative.field, slots });
        }
        report.environments.push(env);
      }
      return report;
    },
  };
}
