import type { DataRecord } from '../../../capabilities/dataEngine.ts';
import { codedError } from '../../../kernel/errors.ts';
import type { AccessModel, UserPositionRow } from './effectiveGrants.ts';
import { isActive } from './validityWindow.ts';

export const MAX_DELEGATION_DAYS = 30;
const DAY_MS = 86_400_000;

function instant(value: unknown): number | null {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.getTime();
  if (typeof value !== 'string' || value === '') return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : ms;
}

/** An assignment made by a delegation: it is held, but not passed on. */
export function isDelegated(row: { delegated_by?: unknown }): boolean {
  return typeof row.delegated_by === 'string' ? row.delegated_by !== '' : row.delegated_by !== undefined && row.delegated_by !== null;
}

const shown = (ms: number | null) => (ms === null ? 'open' : new Date(ms).toISOString());

/**
 * A direct holder of a delegatable position hands it on (to another user, or to itself as a
 * temporary assignment): for a bounded window of at most 30 days inside the delegator's own
 * assignment, with a reason, never for an admin scope. A position held through a delegation is not
 * passed on, so a delegate can neither re-delegate nor extend what it was given. `delegatorId` is
 * the caller, or the delegator an admin records the delegation for. Returns the assignment with
 * delegated_by set to the delegator.
 */
export function checkDelegation(delegatorId: string, model: AccessModel, input: DataRecord, now: Date): DataRecord {
  const position = model.positions.find((p) => p.id === input.position);
  const name = position?.name ?? String(input.position ?? '');
  const refuse = (reason: string) => codedError('DELEGATION_NOT_ALLOWED', { position: name, reason, subjectId: delegatorId });
  const invalid = (reason: string, path: string) => codedError('DELEGATION_INVALID', { position: name, reason, errors: [{ path, message: reason }] });
  if (!position) throw refuse('no such position');
  if (position.admin_scope) throw refuse('it carries an admin scope, which is never delegated');
  if (!position.delegatable) throw refuse('it is not delegatable');
  const held = model.userPositions.filter((r) => r.user_id === delegatorId && r.position === position.id && isActive(r, now));
  const direct = held.filter((r) => !isDelegated(r));
  if (direct.length === 0) {
    throw refuse(held.length > 0
      ? 'the delegator holds it through a delegation, which is never passed on or extended; ask the delegator or an admin'
      : 'only a current holder of the position may delegate it');
  }
  if (typeof input.reason !== 'string' || input.reason.trim() === '') throw invalid('a reason is required', 'reason');
  const from = instant(input.valid_from);
  const until = instant(input.valid_until);
  if (from === null) throw invalid('valid_from is required', 'valid_from');
  if (until === null) throw invalid('valid_until is required: a delegation always ends', 'valid_until');
  if (until <= from) throw invalid('valid_until must be after valid_from', 'valid_until');
  if (until - from > MAX_DELEGATION_DAYS * DAY_MS) throw invalid(`a delegation lasts at most ${MAX_DELEGATION_DAYS} days`, 'valid_until');
  if (!direct.some((r) => covers(r, from, until))) {
    const own = direct[0]!;
    const ownFrom = instant(own.valid_from);
    const ownUntil = instant(own.valid_until);
    const reason = `it must lie within the delegator's own assignment of the position (from ${shown(ownFrom)} until ${shown(ownUntil)})`;
    throw invalid(reason, ownFrom !== null && from < ownFrom ? 'valid_from' : 'valid_until');
  }
  return { ...input, delegated_by: delegatorId };
}

/** Whether an assignment holds over the whole of [from, until); an absent bound is open. */
function covers(row: UserPositionRow, from: number, until: number): boolean {
  const start = instant(row.valid_from);
  const end = instant(row.valid_until);
  return (start === null || start <= from) && (end === null || until <= end);
}

/**
 * An assignment changed by anyone but a tenant admin (a delegated admin, say): an admin scope is
 * neither granted nor moved that way, and a delegation stays one, under the rules above, for the
 * delegator it names, so it cannot be stretched past 30 days or beyond the delegator's assignment.
 */
export function checkAssignmentChange(model: AccessModel, previous: DataRecord, patch: DataRecord, now: Date): void {
  const merged = { ...previous, ...patch };
  const adminScope = model.positions.find((p) => p.admin_scope && (p.id === previous.position || p.id === merged.position));
  if (adminScope) {
    throw codedError('DELEGATION_NOT_ALLOWED', { position: adminScope.name, reason: 'it carries an admin scope, which only tenant admins grant or change', subjectId: String(previous.user_id ?? '') });
  }
  if (!isDelegated(previous) && !isDelegated(merged)) return;
  if (merged.delegated_by !== previous.delegated_by) {
    const reason = 'delegated_by names who delegated the position and does not change; create a new assignment instead';
    throw codedError('DELEGATION_INVALID', { position: String(merged.position ?? ''), reason, errors: [{ path: 'delegated_by', message: reason }] });
  }
  checkDelegation(String(previous.delegated_by), model, merged, now);
}
