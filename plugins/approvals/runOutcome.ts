import type { ActionsRegistry } from '../../capabilities/actionsRegistry.ts';
import type { Principal } from '../../capabilities/authSession.ts';
import type { DataRecord } from '../../capabilities/dataEngine.ts';
import type { FlowsRunner } from '../../capabilities/flowsRunner.ts';
import { codedError } from '../../kernel/errors.ts';
import type { ApprovalOutcome } from '../../metadata/approvalTypes.ts';
import { OUTCOME_RECORD_INPUT } from '../../metadata/resolveApprovalProcess.ts';

/**
 * Runs what a decided request's outcome names: a record action on its record as the deciding
 * approver, or a flow (once per request, revision and outcome; a flow input `record_id` gets the
 * record's id). Throws what the action or the start throws; the caller records the failure.
 */
export async function runOutcome(
  deps: { actions: ActionsRegistry | undefined; flows?: FlowsRunner | undefined },
  env: string, request: DataRecord, outcome: ApprovalOutcome, kind: 'onApprove' | 'onReject', principal: Principal,
): Promise<void> {
  if (outcome.flow !== undefined) {
    if (!deps.flows) throw codedError('NOT_FOUND', { what: `Flow '${outcome.flow}'` });
    const flow = deps.flows.get(outcome.flow);
    const input = { ...outcome.input, ...(flow?.input[OUTCOME_RECORD_INPUT] ? { [OUTCOME_RECORD_INPUT]: String(request.record_id) } : {}) };
    await deps.flows.start(outcome.flow, input, { environmentId: env, principal: flow?.runAs === 'system' ? null : principal, trigger: 'action', idempotencyKey: `approval:${String(request.id)}:${String(request.cycle)}:${kind}` });
    return;
  }
  if (!deps.actions) throw codedError('NOT_FOUND', { what: `Action '${outcome.action}'` });
  await deps.actions.run(outcome.action!, { ...outcome.input, recordId: request.record_id }, principal, { environmentId: env });
}
