import type { Principal } from './authSession.ts';
import type { DataRecord } from './dataEngine.ts';
import { defineCapability } from './defineCapability.ts';
import type { FlowRun, FlowRunStatus, ResolvedFlow } from '../metadata/flowTypes.ts';

/** What started a run; kept on the run. */
export type FlowTrigger = 'api' | 'action' | 'record' | 'schedule' | 'hook' | 'timeRelative';

export interface FlowStartOptions {
  environmentId: string;
  /** Who starts it: the run's user for `runAs: 'caller'` flows. Null only for `runAs: 'system'` flows. */
  principal: Principal | null;
  /** Record and time-relative flows: the record, seen as `record` by the expressions. */
  record?: DataRecord | null;
  trigger: FlowTrigger;
  requestId?: string;
  /**
   * A second start with the same key (per flow and environment) starts nothing and answers the
   * first run: for starters that may deliver twice (a hook delivery, a sweep slot).
   */
  idempotencyKey?: string;
}

export interface FlowsRunner {
  /** The loaded flows, in app then name order. */
  list(): ResolvedFlow[];
  get(name: string): ResolvedFlow | undefined;
  /**
   * Validates input against the flow's declared input (VALIDATION_ERROR, one detail per field),
   * persists a run and queues it; answers at once. NOT_FOUND for an unknown flow; a null principal
   * is refused (UNAUTHENTICATED) unless the flow runs as system.
   */
  start(name: string, input: unknown, options: FlowStartOptions): Promise<{ runId: string; status: FlowRunStatus }>;
  /** A run by id (no access check: callers decide who may read it), or null. */
  getRun(environmentId: string, runId: string): Promise<FlowRun | null>;
  /** Asks a run to stop at its next step boundary; answers the run as it is then (null when unknown). */
  cancel(environmentId: string, runId: string): Promise<FlowRun | null>;
}

export const flowsRunner = defineCapability<FlowsRunner>()({
  id: 'flows.runner',
  cardinality: 'single',
  description: 'The declared flows: start one (persisted, queued, resumed after a restart), read and cancel its runs.',
});
