import type { DataRecord } from '../../capabilities/dataEngine.ts';
import type { ProcessSnapshot } from './processCatalog.ts';
import { progressText, tally, type StepSlate, type Vote } from './stepSlate.ts';

export interface AttachmentInfo { id: string; decisionId: string; name: string; contentType: string; size: number }

/** Votes of the current cycle and step, from the request's decisions. */
export function currentVotes(request: DataRecord, decisions: readonly DataRecord[]): Vote[] {
  return decisions
    .filter((d) => Number(d.cycle) === Number(request.cycle) && Number(d.step) === Number(request.step) && (d.kind === 'approve' || d.kind === 'reject'))
    .map((d) => ({ userId: String(d.user_id), kind: d.kind as Vote['kind'] }));
}

/** The progress sentence the server computes for every state. */
export function requestProgress(request: DataRecord, slate: StepSlate, decisions: readonly DataRecord[]): string {
  const definition = request.definition as ProcessSnapshot;
  const label = definition.steps[Number(request.step)]?.label ?? slate.label;
  switch (request.status) {
    case 'approved': return `Approved (${definition.steps.length} of ${definition.steps.length} steps)`;
    case 'rejected': return `Rejected on step ${label}`;
    case 'recalled': return 'Recalled by the submitter';
    case 'sent_back': return `Sent back for revision on step ${label} (${Number(request.revisions)} of ${definition.maxRevisions} revisions)`;
    default: return progressText(slate, tally(slate, currentVotes(request, decisions)));
  }
}

/** One request as GET /approvals/requests/:id answers it. */
export function requestView(request: DataRecord, decisions: readonly DataRecord[], attachments: readonly AttachmentInfo[], withDetail: boolean) {
  const definition = request.definition as ProcessSnapshot;
  const slate = request.approvers as StepSlate;
  const index = Number(request.step);
  const status = String(request.status);
  const counted = tally(slate, currentVotes(request, decisions));
  const base = {
    id: String(request.id),
    process: String(request.process),
    processLabel: definition.label,
    object: String(request.record_object),
    recordId: String(request.record_id),
    status,
    step: { index, name: definition.steps[index]?.name ?? slate.name, label: definition.steps[index]?.label ?? slate.label },
    progress: requestProgress(request, slate, decisions),
    cycle: Number(request.cycle),
    revisions: Number(request.revisions),
    maxRevisions: definition.maxRevisions,
    submittedBy: String(request.owner_id),
    submittedAt: String(request.created_at),
    dueAt: (request.due_at as string | null) ?? null,
    escalated: request.escalated === true,
    completedAt: (request.completed_at as string | null) ?? null,
  };
  if (!withDetail) return base;
  return {
    ...base,
    steps: definition.steps.map((step, i) => ({
      index: i,
      name: step.name,
      label: step.label,
      signOff: step.signOff,
      minApprovals: step.minApprovals,
      status: i < index || status === 'approved' ? 'approved' : i > index ? 'waiting' : status === 'rejected' ? 'rejected' : status === 'pending' ? 'current' : status,
      ...(i === index ? {
        approvers: slate.users,
        required: slate.required,
        approvals: counted.approvals,
        waitingFor: status === 'pending' ? counted.waitingFor : [],
        groups: slate.groups.map((g) => ({ name: g.name, label: g.label, approvers: g.users, required: g.required, approvals: counted.groups.find((c) => c.name === g.name)?.approvals ?? 0 })),
        clamps: slate.clamps,
      } : {}),
    })),
    decisions: decisions.map((d) => ({
      id: String(d.id),
      kind: String(d.kind).replace('_', '-'),
      userId: (d.user_id as string | null) ?? null,
      cycle: Number(d.cycle),
      step: Number(d.step),
      comment: (d.comment as string | null) ?? null,
      detail: (d.detail as object | null) ?? null,
      attachments: attachments.filter((a) => a.decisionId === String(d.id)),
      at: String(d.created_at),
    })),
  };
}
