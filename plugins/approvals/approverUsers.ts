import { codedError } from '../../kernel/errors.ts';
import type { ParsedApprovalProcess } from '../../metadata/approvalSchema.ts';
import type { ResolvedApprovalProcess } from '../../metadata/approvalTypes.ts';

/** The ids that name users of the environment, among these; at most `batch` per call. */
export type KnownUsers = (environmentId: string, userIds: readonly string[]) => Promise<string[]>;

const BATCH = 500;

/** Every user id a process body names, with its path: approvers, approver groups and escalation. */
export function approverUserPaths(body: ParsedApprovalProcess): Array<{ path: string; id: string }> {
  const out: Array<{ path: string; id: string }> = [];
  body.steps.forEach((step, s) => {
    (step.approvers.users ?? []).forEach((id, i) => out.push({ path: `steps[${s}].approvers.users[${i}]`, id }));
    (step.approvers.groups ?? []).forEach((group, g) => (group.users ?? []).forEach((id, i) => out.push({ path: `steps[${s}].approvers.groups[${g}].users[${i}]`, id })));
    (step.escalateTo?.users ?? []).forEach((id, i) => out.push({ path: `steps[${s}].escalateTo.users[${i}]`, id }));
  });
  return out;
}

/**
 * Refuses a process naming an id that is no user of the environment (another environment's user,
 * a typo, a deleted account): VALIDATION_ERROR listing each such path. Users live in each
 * environment's own identity database, so another environment's ids are unknown here.
 */
export async function checkApproverUsers(known: KnownUsers, environmentId: string, body: ParsedApprovalProcess): Promise<void> {
  const named = approverUserPaths(body);
  const ids = [...new Set(named.map((n) => n.id))];
  const found = new Set<string>();
  for (let i = 0; i < ids.length; i += BATCH) for (const id of await known(environmentId, ids.slice(i, i + BATCH))) found.add(id);
  const errors = named.filter((n) => !found.has(n.id)).map((n) => ({ path: n.path, message: `names no user of this environment: '${n.id}'` }));
  if (errors.length > 0) throw codedError('VALIDATION_ERROR', { summary: errors.map((e) => `${e.path} ${e.message}`).join('; '), errors });
}

/** Every user id a resolved (declared) process names, with its path: step approvers, groups and escalation. */
export function resolvedUserPaths(process: ResolvedApprovalProcess): Array<{ path: string; id: string }> {
  const out: Array<{ path: string; id: string }> = [];
  process.steps.forEach((step, s) => {
    step.users.forEach((id, i) => out.push({ path: `steps[${s}].approvers.users[${i}]`, id }));
    step.groups.forEach((group, g) => group.users.forEach((id, i) => out.push({ path: `steps[${s}].approvers.groups[${g}].users[${i}]`, id })));
    (step.escalateTo?.users ?? []).forEach((id, i) => out.push({ path: `steps[${s}].escalateTo.users[${i}]`, id }));
  });
  return out;
}

/**
 * The paths of a declared process naming no user of the environment. Declared processes are shared
 * by every environment and user ids are per environment, so this is reported (a warning), never refused.
 */
export async function unknownDeclaredUsers(known: KnownUsers, environmentId: string, process: ResolvedApprovalProcess): Promise<Array<{ path: string; id: string }>> {
  const named = resolvedUserPaths(process);
  const ids = [...new Set(named.map((n) => n.id))];
  const found = new Set<string>();
  for (let i = 0; i < ids.length; i += BATCH) for (const id of await known(environmentId, ids.slice(i, i + BATCH))) found.add(id);
  return named.filter((n) => !found.has(n.id));
}
