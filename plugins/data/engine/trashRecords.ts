import type { DataContext, DataRecord } from '../../../capabilities/dataEngine.ts';
import { codedError } from '../../../kernel/errors.ts';
import type { ResolvedObject } from '../../../metadata/types.ts';
import { requireAction } from '../access/enforceAccess.ts';
import { accessFor, type EngineDeps } from './engineDeps.ts';
import { NO_CHANGES, RECORD_HISTORY, writeHistory } from './recordHistory.ts';
import { runHooks } from './runHooks.ts';
import { DELETED_AT, DELETED_BY, hasTrash } from './trash.ts';
import { guardRow, lockedRecord, refuseIfReferenced, versionConflict, type WriteScope } from './writeRecords.ts';

/**
 * Restore and purge: the two ways out of the trash. Each runs inside the caller's transaction,
 * like the other writes: guards, the versioned write, history, hooks, together or not at all.
 */

function requireTrash(object: ResolvedObject, operation: 'restore' | 'purge'): void {
  if (!hasTrash(object)) throw codedError('METHOD_NOT_ALLOWED', { operation, object: object.name, allowed: object.apiMethods ?? [], reason: 'the object has no trash (enable.trash)' });
}

/** The answer of lockedRecord for a missing row: another user's trashed record gets the very same. */
function notFound(object: ResolvedObject, id: string) {
  return codedError('NOT_FOUND', { what: `${object.label} '${id.slice(0, 64)}'`, object: object.name, id: id.slice(0, 64) });
}

/**
 * Brings a trashed record back, its version bumped. Who may: admins and holders of modifyAll on the
 * object, or the user who deleted it while it still holds delete on the object; anyone else finds
 * no such record in the trash (404), whoever's it is. Row security applies as to an update (outside
 * the caller's read scope: 404, outside its edit scope: 403). The insert's after-hooks run with
 * `restored: true`: the record is back, so indexes (search) take it in again.
 */
export async function restoreRecord(deps: EngineDeps, scope: WriteScope, object: ResolvedObject, id: string, ctx: DataContext): Promise<DataRecord> {
  const { engine: tx, trx } = scope;
  requireTrash(object, 'restore');
  const access = await accessFor(deps, trx, ctx);
  const anyone = !access || access.profile.perms(object).modifyAll;
  if (access && !anyone) requireAction(access.profile, access.principal, object, 'delete');
  const trashed = await lockedRecord(trx, object, id, 'update', true);
  if (!anyone && trashed[DELETED_BY] !== access!.principal.userId) throw notFound(object, id);
  await guardRow(deps, trx, object, ctx, access, trashed);
  const version = Number(trashed.version);
  const count = await trx(object.name).where({ id, version }).whereNotNull(DELETED_AT)
    .update({ [DELETED_AT]: null, [DELETED_BY]: null, version: version + 1 });
  if (count === 0) throw await versionConflict(trx, object, id, version, true);
  await writeHistory(deps, trx, object, { recordId: id, operation: 'restore', version: version + 1, changes: NO_CHANGES }, ctx);
  const stored = await scope.read(object, id, ctx);
  await runHooks(deps.hooks, 'data.afterInsert', object.name, { object: object.name, record: stored, ctx, engine: tx, restored: true });
  return stored;
}

/**
 * Removes a trashed record for good, with its history entries (a purge erases what the record
 * held). Admins and holders of modifyAll on the object only: anyone else gets 403 before the record
 * is looked at. The delete hooks ran when it was trashed; they run again with `purge: true`.
 */
export async function purgeRecord(deps: EngineDeps, scope: WriteScope, object: ResolvedObject, id: string, ctx: DataContext): Promise<void> {
  const { engine: tx, trx } = scope;
  requireTrash(object, 'purge');
  const access = await accessFor(deps, trx, ctx);
  if (access) requireAction(access.profile, access.principal, object, 'modifyAll');
  const previous = await lockedRecord(trx, object, id, 'delete', true);
  await guardRow(deps, trx, object, ctx, access, previous);
  delete previous[DELETED_BY];
  await runHooks(deps.hooks, 'data.beforeDelete', object.name, { object: object.name, previous, ctx, engine: tx, purge: true });
  await refuseIfReferenced(deps, trx, object, id);
  const count = await trx(object.name).where({ id, version: Number(previous.version) }).whereNotNull(DELETED_AT).delete();
  if (count === 0) throw await versionConflict(trx, object, id, Number(previous.version), true);
  if (object.enable?.trackHistory === true) await trx(RECORD_HISTORY).where({ object: object.name, record_id: id }).delete();
  await runHooks(deps.hooks, 'data.afterDelete', object.name, { object: object.name, previous, ctx, engine: tx, purge: true });
}
