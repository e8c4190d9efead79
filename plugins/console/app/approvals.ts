/** The approval requests as `/approvals` answers them (docs/approvals.md). */

export type RequestStatus = 'pending' | 'approved' | 'rejected' | 'sent_back' | 'recalled';

export interface RequestSummary {
  id: string;
  process: string;
  processLabel: string;
  object: string;
  recordId: string;
  status: RequestStatus;
  step: { index: number; name: string; label: string };
  progress: string;
  cycle: number;
  revisions: number;
  maxRevisions: number;
  submittedBy: string;
  submittedAt: string;
  dueAt: string | null;
  completedAt: string | null;
  /** Names of the users it mentions, id -> name. */
  people: Record<string, string>;
}

export interface StepView {
  index: number;
  name: string;
  label: string;
  status: string;
  approvers?: string[];
  required?: number;
  approvals?: number;
  waitingFor?: string[];
}

export interface Decision {
  id: string;
  kind: string;
  userId: string | null;
  cycle: number;
  step: number;
  comment: string | null;
  detail: Record<string, unknown> | null;
  at: string;
}

export interface RequestDetail extends RequestSummary {
  steps: StepView[];
  decisions: Decision[];
}

export interface RecordLock {
  requestId: string;
  process: string;
  processLabel: string;
  step: { index: number; name: string; label: string };
  /** The caller is an approver of the current step: its writes go through. */
  approver: boolean;
}

export interface RecordApprovalState {
  lock: RecordLock | null;
  requests: RequestSummary[];
}

export interface ProcessDoc {
  name: string;
  label: string;
  object: string;
}

export const STATUS_LABELS: Record<string, string> = {
  pending: 'Pending', approved: 'Approved', rejected: 'Rejected', sent_back: 'Sent back', recalled: 'Recalled',
};

export const DECISION_LABELS: Record<string, string> = {
  submit: 'Submitted', approve: 'Approved', reject: 'Rejected', 'send-back': 'Sent back', resubmit: 'Resubmitted',
  reassign: 'Reassigned', 'request-info': 'Information asked or given', remind: 'Reminded', recall: 'Recalled',
  escalate: 'Escalated', 'outcome-failed': 'Outcome failed',
};

/** Whether the user has already voted on the request's current step in its current cycle. */
export function hasVoted(request: RequestDetail, userId: string): boolean {
  return request.decisions.some((d) => d.userId === userId && d.cycle === request.cycle && d.step === request.step.index && (d.kind === 'approve' || d.kind === 'reject'));
}

/** The request's current step as the detail shows it. */
export function currentStep(request: RequestDetail): StepView | undefined {
  return request.steps.find((s) => s.index === request.step.index);
}
