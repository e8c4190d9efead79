import type { DataDatabase } from '../../capabilities/dataDatabase.ts';
import type { LifecycleReport } from '../../capabilities/lifecycleRetention.ts';
import { applyContract } from './applyContract.ts';
import type { RetentionWindow } from './retentionWindows.ts';

export interface RunInput {
  windows: readonly RetentionWindow[];
  database: DataDatabase;
  environments: readonly string[];
  dryRun: boolean;
  batchSize: number;
  maxBatches: number;
  now?: Date;
}

/** Every contract in every environment asked, one after the other (one batch runs at a time). */
export async function runLifecycle(input: RunInput): Promise<LifecycleReport> {
  const now = input.now ?? new Date();
  const report: LifecycleReport = { dryRun: input.dryRun, ranAt: now.toISOString(), environments: [] };
  for (const id of input.environments) {
    const contracts = [];
    for (const window of input.windows) {
      contracts.push(await input.database.withDatabase(id, (db) => applyContract(db, window, { dryRun: input.dryRun, now, batchSize: input.batchSize, maxBatches: input.maxBatches })));
    }
    report.environments.push({ id, contracts });
  }
  return report;
}
