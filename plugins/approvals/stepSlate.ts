import type { ResolvedApprovalStep } from '../../metadata/approvalTypes.ts';

/** A quorum lowered to the approvers a request could find: reported on the request. */
export interface SlateClamp {
  /** `step` or the group's name. */
  scope: string;
  declared: number;
  effective: number;
  eligible: number;
  reason: string;
}

export interface SlateGroup {
  name: string;
  label: string;
  users: string[];
  required: number;
}

/** Who may decide the current step of one request, and how many approvals complete it. */
export interface StepSlate {
  step: number;
  name: string;
  label: string;
  signOff: 'quorum' | 'perGroup';
  /** Every eligible approver of the step (the submitter never is one). */
  users: string[];
  /** quorum sign-off: approvals needed; perGroup: unused (0). */
  required: number;
  groups: SlateGroup[];
  clamps: SlateClamp[];
}

/** Position name -> user ids holding it now. */
export type PositionMembers = ReadonlyMap<string, readonly string[]>;

function membersOf(users: readonly string[], positions: readonly string[], members: PositionMembers, submitter: string): string[] {
  const out = new Set<string>();
  for (const user of users) out.add(user);
  for (const position of positions) for (const user of members.get(position) ?? []) out.add(user);
  out.delete(submitter);
  return [...out].sort();
}

function clamp(scope: string, declared: number, eligible: number, clamps: SlateClamp[]): number {
  // Never below 1: a step without approvers waits for a reassign rather than passing unseen.
  const effective = Math.max(1, Math.min(declared, eligible));
  if (effective !== declared) clamps.push({ scope, declared, effective, eligible, reason: `${declared} approval(s) asked of ${eligible} eligible approver(s): clamped to ${effective}` });
  return effective;
}

/** The slate of a step when a request reaches it: approvers resolved, quorums clamped to them. */
export function buildSlate(step: ResolvedApprovalStep, index: number, members: PositionMembers, submitter: string): StepSlate {
  const clamps: SlateClamp[] = [];
  const groups = step.groups.map((g) => {
    const users = membersOf(g.users, g.positions, members, submitter);
    return { name: g.name, label: g.label, users, required: step.signOff === 'perGroup' ? clamp(g.name, g.minApprovals, users.length, clamps) : 0 };
  });
  const users = [...new Set([...membersOf(step.users, step.positions, members, submitter), ...groups.flatMap((g) => g.users)])].sort();
  const required = step.signOff === 'quorum' ? clamp('step', step.minApprovals, users.length, clamps) : 0;
  return { step: index, name: step.name, label: step.label, signOff: step.signOff, users, required, groups, clamps };
}

/** The slate after `from`'s place went to `to` (reassign, escalation); quorums clamped again. */
export function replaceApprover(slate: StepSlate, from: string, to: string): StepSlate {
  const swap = (users: string[]) => [...new Set(users.map((u) => (u === from ? to : u)))].sort();
  return { ...slate, users: swap(slate.users), groups: slate.groups.map((g) => ({ ...g, users: swap(g.users) })) };
}

export interface Vote { userId: string; kind: 'approve' | 'reject' }

export interface Tally {
  approvals: number;
  rejected: boolean;
  complete: boolean;
  groups: Array<{ name: string; label: string; approvals: number; required: number }>;
  /** Eligible approvers who have not decided yet. */
  waitingFor: string[];
}

/** Counts the votes of the current step: one per approver, only eligible approvers count. */
export function tally(slate: StepSlate, votes: readonly Vote[]): Tally {
  const approved = new Set(votes.filter((v) => v.kind === 'approve' && slate.users.includes(v.userId)).map((v) => v.userId));
  const rejected = votes.some((v) => v.kind === 'reject' && slate.users.includes(v.userId));
  const decided = new Set(votes.map((v) => v.userId));
  const groups = slate.groups.map((g) => ({ name: g.name, label: g.label, approvals: g.users.filter((u) => approved.has(u)).length, required: g.required }));
  const complete = !rejected && (slate.signOff === 'perGroup' ? groups.every((g) => g.approvals >= g.required) : approved.size >= slate.required);
  return { approvals: approved.size, rejected, complete, groups, waitingFor: slate.users.filter((u) => !decided.has(u)) };
}

/** The progress sentence of a pending step, e.g. "2 of 3 approvals on step Finance". */
export function progressText(slate: StepSlate, counted: Tally): string {
  if (slate.signOff === 'perGroup') {
    const parts = counted.groups.map((g) => `${g.label} ${g.approvals} of ${g.required}`).join(', ');
    return `${counted.groups.filter((g) => g.approvals >= g.required).length} of ${counted.groups.length} groups signed off on step ${slate.label} (${parts})`;
  }
  return `${counted.approvals} of ${slate.required} approvals on step ${slate.label}`;
}
