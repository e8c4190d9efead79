import type { DataRecord } from '../../../capabilities/dataEngine.ts';
import { codedError } from '../../../kernel/errors.ts';
import type { AccessModel, Grants } from './effectiveGrants.ts';

export const MAX_DELEGATION_DAYS = 30;
const DAY_MS = 86_400_000;

function instant(value: unknown): number | null {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.getTime();
  if (typeof value !== 'string' || value === '') return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : ms;
}

/**
 * A holder of a delegatable position hands it on (to another user, or to itself as a temporary
 * assignment): for a bounded window of at most 30 days, with a reason, never for an admin scope.
 * Returns the assignment with delegated_by set to the delegator.
 */
export function checkDelegation(grants: Grants, model: AccessModel, input: DataRecord): DataRecord {
  const position = model.positions.find((p) => p.id === input.position);
  const name = position?.name ?? String(input.position ?? '');
  const refuse = (reason: string) => codedError('DELEGATION_NOT_ALLOWED', { position: name, reason, subjectId: grants.userId });
  const invalid = (reason: string, path: string) => codedError('DELEGATION_INVALID', { position: name, reason, errors: [{ path, message: reason }] });
  if (!position) throw refuse('no such position');
  if (position.admin_scope) throw refuse('it carries an admin scope, which is never delegated');
  if (!position.delegatable) throw refuse('it is not delegatable');
  if (!grants.positionIds.includes(position.id)) throw refuse('only a current holder of the position may delegate it');
  if (typeof input.reason !== 'string' || input.reason.trim() === '') throw invalid('a reason is required', 'reason');
  const from = instant(input.valid_from);
  const until = instant(input.valid_until);
  if (from === null) throw invalid('valid_from is required', 'valid_from');
  if (until === null) throw invalid('valid_until is required: a delegation always ends', 'valid_until');
  if (until <= from) throw invalid('valid_until must be after valid_from', 'valid_until');
  if (until - from > MAX_DELEGATION_DAYS * DAY_MS) throw invalid(`a delegation lasts at most ${MAX_DELEGATION_DAYS} days`, 'valid_until');
  return { ...input, delegated_by: grants.userId };
}
