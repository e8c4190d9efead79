import { defineCapability } from './defineCapability.ts';

/** What one retention contract removes (or would remove) in one environment. */
export interface ContractOutcome {
  name: string;
  plugin: string;
  object: string;
  /** The window applied: the contract's keepDays, or the override. 0 keeps forever. */
  keepDays: number;
  overridden: boolean;
  /** Rows older than this (ISO) are past the window; null when nothing is removed by design. */
  cutoff: string | null;
  /** `applied`: rows past the window removed (or counted in a dry run); `kept`: keepDays 0;
   * `missing`: no such table in this environment; `skipped`: an action lifecycle does not apply. */
  status: 'applied' | 'kept' | 'missing' | 'skipped';
  /** Rows removed, or in a dry run the rows that would be. */
  rows: number;
  /** A run stops a contract after its batch budget: more rows remain for the next run. */
  more: boolean;
  reason?: string;
}

export interface LifecycleReport {
  dryRun: boolean;
  ranAt: string;
  environments: Array<{ id: string; contracts: ContractOutcome[] }>;
}

export interface LifecycleRetention {
  /** Apply every retention contract (or count, with dryRun) in one environment or all of them. */
  run(options?: { dryRun?: boolean; environmentId?: string }): Promise<LifecycleReport>;
}

export const lifecycleRetention = defineCapability<LifecycleRetention>()({
  id: 'lifecycle.retention',
  cardinality: 'single',
  description: 'Apply the declared retention contracts now (or count what they would remove): the lifecycle plugin runs it daily.',
});
