import type { CompiledActionExpression } from './actionTypes.ts';

export interface ApproverGroup {
  name: string;
  label: string;
  users: string[];
  positions: string[];
  /** perGroup sign-off: the group's quorum as declared (default 1); clamped to its members when a request runs. */
  minApprovals: number;
}

export interface ResolvedApprovalStep {
  name: string;
  label: string;
  /** Step-level approvers (quorum sign-off); empty with perGroup sign-off, where every approver is in a group. */
  users: string[];
  positions: string[];
  groups: ApproverGroup[];
  /** quorum: minApprovals of every approver of the step; perGroup: every group reaches its own minApprovals. */
  signOff: 'quorum' | 'perGroup';
  /** The step's quorum as declared (default 1); clamped to the eligible approvers when a request runs. */
  minApprovals: number;
  slaHours: number | null;
  escalateTo: { users: string[]; positions: string[] } | null;
}

/** What a decided request runs: a record action on its record, or a flow (exactly one of action and flow). */
export interface ApprovalOutcome {
  action?: string;
  flow?: string;
  input: Record<string, unknown>;
}

/** A quorum larger than the approvers who could ever meet it, lowered so that the step cannot deadlock. */
export interface QuorumClamp {
  /** Where the quorum is declared, e.g. steps[0].minApprovals. */
  path: string;
  declared: number;
  effective: number;
  reason: string;
}

export interface ResolvedApprovalProcess {
  name: string;
  label: string;
  description?: string;
  object: string;
  /** The entry condition as written; null: every record may be submitted. */
  when: string | null;
  compiledWhen: CompiledActionExpression | null;
  maxRevisions: number;
  steps: ResolvedApprovalStep[];
  onApprove: ApprovalOutcome | null;
  onReject: ApprovalOutcome | null;
  /** Quorums clamped at load (steps and groups naming users only); positions are counted when a request runs. */
  clamps: QuorumClamp[];
  /** The declaring file, or `api` for a process created with POST /approvals/processes. */
  source: string;
  app: string | null;
}
