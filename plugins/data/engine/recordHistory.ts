import type { Knex } from 'knex';
import { runWrite } from './runWrite.ts';
import type { DataContext, DataRecord } from '../../../capabilities/dataEngine.ts';
import type { ResolvedObject } from '../../../metadata/types.ts';
import type { AccessProfile } from '../access/accessService.ts';
import { recordToRow } from '../sql/codec.ts';
import { dialectOf } from '../sql/dialect.ts';
import { newId } from '../sql/newId.ts';
import type { EngineDeps } from './engineDeps.ts';

/** The engine-owned object history entries are stored in (system-app/objects/sys_record_history.json). */
export const RECORD_HISTORY = 'sys_record_history';

export type HistoryOperation = 'create' | 'update' | 'delete' | 'restore';

/** Field name -> its value before and after the write. */
export type FieldChanges = Record<string, { old: unknown; new: unknown }>;

export interface HistoryEntry {
  recordId: string;
  operation: HistoryOperation;
  /** The record's version after the write (a hard delete: the version it had). */
  version: number;
  changes: FieldChanges;
}

/** The declared fields a create set (null ones are left out: nothing changed). */
export function createdChanges(values: DataRecord): FieldChanges {
  const changes: FieldChanges = {};
  for (const [name, value] of Object.entries(values)) if (value !== null && value !== undefined) changes[name] = { old: null, new: value };
  return changes;
}

/** The fields an update changed, compared by value (JSON). */
export function updatedChanges(previous: DataRecord, values: DataRecord): FieldChanges {
  const changes: FieldChanges = {};
  for (const [name, value] of Object.entries(values)) {
    const old = previous[name] ?? null;
    if (JSON.stringify(old) !== JSON.stringify(value ?? null)) changes[name] = { old, new: value ?? null };
  }
  return changes;
}

/**
 * Writes one entry for an object with `enable.trackHistory`, in the write's transaction: it commits
 * or rolls back with the write. Who is `created_by`, when `created_at`.
 */
export async function writeHistory(deps: EngineDeps, trx: Knex.Transaction, object: ResolvedObject, entry: HistoryEntry, ctx: DataContext): Promise<void> {
  if (object.enable?.trackHistory !== true) return;
  const history = deps.metadata.object(RECORD_HISTORY);
  if (!history) return;
  const now = new Date().toISOString();
  const userId = ctx.principal?.userId ?? null;
  const record: DataRecord = {
    id: newId(), version: 1, created_at: now, updated_at: now, created_by: userId, updated_by: userId,
    object: object.name, record_id: entry.recordId, operation: entry.operation, record_version: entry.version, changes: entry.changes,
  };
  await runWrite(trx, trx(RECORD_HISTORY).insert(recordToRow(history, record, dialectOf(trx))));
}

/** Entries as the reader may see them: a field it may not read is left out of `changes`, old and new value alike. */
export function visibleHistory(items: DataRecord[], object: ResolvedObject, profile: AccessProfile | undefined): DataRecord[] {
  return items.map((item) => {
    const changes = (item.changes && typeof item.changes === 'object' ? item.changes : {}) as FieldChanges;
    const shown: FieldChanges = {};
    for (const [field, change] of Object.entries(changes)) if (!profile || profile.fields.canRead(object.name, field)) shown[field] = change;
    return {
      id: item.id, operation: item.operation, version: item.record_version,
      changedBy: item.created_by ?? null, changedAt: item.created_at, changes: shown,
    };
  });
}
