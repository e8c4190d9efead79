import { isDelegated } from '../data/access/delegation.ts';
import { isActive } from '../data/access/validityWindow.ts';

export interface PositionRow { id: string; name: string; label?: string | null; delegatable?: boolean | null; admin_scope?: boolean | null }
export interface AssignmentRow { id: string; user_id: string; position: string; valid_from?: unknown; valid_until?: unknown; delegated_by?: unknown; reason?: unknown }

/** A position one user may hand on now, and the window of its own assignment a delegation must lie within. */
export interface Delegable {
  position: string;
  name: string;
  label: string | null;
  delegator: string;
  valid_from: string | null;
  valid_until: string | null;
}

const shown = (value: unknown): string | null => (value instanceof Date ? value.toISOString() : typeof value === 'string' && value !== '' ? value : null);

/**
 * What may be delegated now, as the engine's delegation rules decide it: a delegatable position
 * without the admin scope, held directly (not through a delegation) by an assignment inside its
 * window; one entry per such assignment, of `delegator` only when given (everyone's otherwise).
 */
export function delegablePositions(positions: readonly PositionRow[], assignments: readonly AssignmentRow[], now: Date, delegator?: string): Delegable[] {
  const byId = new Map(positions.filter((p) => p.delegatable === true && p.admin_scope !== true).map((p) => [p.id, p]));
  const out: Delegable[] = [];
  for (const row of assignments) {
    const position = byId.get(row.position);
    if (!position || isDelegated(row) || !isActive(row, now)) continue;
    if (delegator !== undefined && row.user_id !== delegator) continue;
    out.push({ position: position.id, name: position.name, label: position.label ?? null, delegator: row.user_id, valid_from: shown(row.valid_from), valid_until: shown(row.valid_until) });
  }
  return out.sort((a, b) => a.name.localeCompare(b.name) || a.delegator.localeCompare(b.delegator));
}

/** Whether the caller may see (and end) a delegation: an admin, its delegator or its delegate. */
export function concernsCaller(row: AssignmentRow, caller: { userId: string; isAdmin: boolean }): boolean {
  return caller.isAdmin || row.user_id === caller.userId || row.delegated_by === caller.userId;
}
