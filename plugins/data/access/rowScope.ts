import type { ResolvedObject } from '../../../metadata/types.ts';
import { parseScopeFilter } from '../query/parseQuery.ts';
import { resolveIn } from '../query/fieldScope.ts';
import type { Condition } from '../query/types.ts';
import type { RecipientType } from './accessObjects.ts';
import { compilePolicy, FALSE_CONDITION } from './compilePolicy.ts';
import type { Grants, ObjectPerms } from './effectiveGrants.ts';

export type Operation = 'read' | 'edit';

export interface ShareRow {
  id: string;
  object: string;
  record_id: string;
  recipient_type: RecipientType;
  recipient_id: string;
  access: Operation;
}

export interface RuleRow {
  id: string;
  name: string;
  object: string;
  kind: 'owner' | 'criteria';
  criteria: unknown;
  owner_position: string | null;
  recipient_type: RecipientType;
  recipient_id: string;
  access: Operation;
}

/** What opens rows to one user beyond ownership: shares and rules addressed to it, and who holds which position. */
export interface SharingInputs {
  shares: ShareRow[];
  rules: RuleRow[];
  /** Users holding a position now (owner-based rules). */
  holders(positionId: string): string[];
}

/** One way a row may be opened, labelled for explain. */
export interface ScopePart {
  source: 'owner' | 'share' | 'sharingRule' | 'policy';
  name: string;
  condition: Condition;
}

export function matchesRecipient(grants: Grants, type: RecipientType, id: string): boolean {
  if (type === 'user') return id === grants.userId;
  if (type === 'position') return grants.positionIds.includes(id);
  return grants.unitIds.includes(id);
}

const grantsOp = (access: Operation, op: Operation) => op === 'read' || access === 'edit';

/**
 * The rows of an object a user may read or edit, as a condition ANDed into every query: null when
 * nothing limits them (admin, view all / modify all, a public sharing model), else the OR of what
 * opens rows: ownership, record shares, sharing rules and row policies.
 */
export function rowScope(object: ResolvedObject, grants: Grants, perms: ObjectPerms, sharing: SharingInputs, op: Operation): Condition | null {
  if (grants.isAdmin) return null;
  if (!perms.read || (op === 'edit' && !perms.edit)) return FALSE_CONDITION;
  if (op === 'read' ? perms.viewAll : perms.modifyAll) return null;
  if (!object.owner || object.sharingModel === 'public_read_write' || (op === 'read' && object.sharingModel === 'public_read')) return null;
  return { kind: 'or', items: scopeParts(object, grants, sharing, op).map((p) => p.condition) };
}

export function scopeParts(object: ResolvedObject, grants: Grants, sharing: SharingInputs, op: Operation): ScopePart[] {
  const field = (name: string) => {
    const resolved = resolveIn(object, null, name, name);
    if (!resolved.ok) throw new Error(resolved.message);
    return { kind: 'field' as const, ref: resolved.ref };
  };
  const parts: ScopePart[] = [];
  if (object.owner) parts.push({ source: 'owner', name: 'owner', condition: { kind: 'compare', target: field('owner_id'), op: 'eq', operand: { kind: 'value', value: grants.userId } } });
  const shared = sharing.shares.filter((s) => s.object === object.name && grantsOp(s.access, op));
  if (shared.length > 0) parts.push({ source: 'share', name: shared.map((s) => s.id).join(','), condition: { kind: 'in', target: field('id'), values: [...new Set(shared.map((s) => s.record_id))], negate: false } });
  for (const rule of sharing.rules) {
    if (rule.object !== object.name || !grantsOp(rule.access, op)) continue;
    const condition = ruleCondition(object, rule, sharing, field);
    if (condition) parts.push({ source: 'sharingRule', name: rule.name, condition });
  }
  const user = { id: grants.userId, positions: grants.positions, organizationId: grants.organizationId ?? null };
  for (const policy of object.policies) {
    if (!grantsOp(policy.access, op)) continue;
    parts.push({ source: 'policy', name: policy.name, condition: compilePolicy(policy.condition, object, user) });
  }
  return parts;
}

export function ruleCondition(object: ResolvedObject, rule: RuleRow, sharing: SharingInputs, field: (name: string) => { kind: 'field'; ref: import('../query/types.ts').FieldRef }): Condition | null {
  if (rule.kind === 'owner') {
    if (!object.owner || !rule.owner_position) return null;
    return { kind: 'in', target: field('owner_id'), values: sharing.holders(rule.owner_position), negate: false };
  }
  try {
    const criteria = typeof rule.criteria === 'string' ? JSON.parse(rule.criteria) as unknown : rule.criteria;
    // An empty criteria would open every row: a rule must say which.
    return criteria && typeof criteria === 'object' && Object.keys(criteria).length > 0 ? parseScopeFilter(criteria, object) : null;
  } catch {
    // A rule that no longer fits the object's metadata opens nothing.
    return null;
  }
}
