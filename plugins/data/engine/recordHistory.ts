import type { Knex } from 'knex';
import { runWrite } from './runWrite.ts';
import type { DataContext, DataRecord } from '../../../capabilities/dataEngine.ts';
import type { ResolvedObject } from '../../../metadata/types.ts';
import type { AccessProfile } from '../access/accessService.ts';
import { recordToRow } from '../sql/codec.ts';
import { dialectOf, type Dialect } from '../sql/dialect.ts';
import { newId } from '../sql/newId.ts';
import { objectColumns } from '../sql/objectColumns.ts';
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
  changes: Changes;
}

/** An entry's changes and their JSON text, as the `changes` column stores it. */
export interface Changes {
  changes: FieldChanges;
  text: string;
}

export const NO_CHANGES: Changes = Object.freeze({ changes: Object.freeze({}) as FieldChanges, text: '{}' });

/**
 * The JSON text of the text values a write sets, by field, made before its transaction opens
 * (prepareWrite.ts): an entry's `changes` then quotes them as they are instead of encoding them
 * while the transaction is held. Text only: the long values are text, and a text cannot be changed
 * in place (an array or object value could, by a hook: those are encoded when the entry is made).
 */
export type EncodedValues = ReadonlyMap<string, { value: string; json: string }>;

export function encodeValues(values: DataRecord): EncodedValues {
  const encoded = new Map<string, { value: string; json: string }>();
  for (const [name, value] of Object.entries(values)) if (typeof value === 'string') encoded.set(name, { value, json: JSON.stringify(value) });
  return encoded;
}

/** JSON.stringify(value), or the text made before for this very value of the field. */
function jsonOf(name: string, value: unknown, known: EncodedValues | undefined): string {
  const made = known?.get(name);
  return made !== undefined && made.value === value ? made.json : JSON.stringify(value);
}

/** `"name":{"old":...,"new":...}`, as JSON.stringify writes one key of FieldChanges. */
const part = (name: string, old: string, value: string) => `${JSON.stringify(name)}:{"old":${old},"new":${value}}`;

/** The declared fields a create set (null ones are left out: nothing changed). */
export function createdChanges(values: DataRecord, known?: EncodedValues): Changes {
  const changes: FieldChanges = {};
  const parts: string[] = [];
  for (const [name, value] of Object.entries(values)) {
    if (value === null || value === undefined) continue;
    changes[name] = { old: null, new: value };
    parts.push(part(name, 'null', jsonOf(name, value, known)));
  }
  return { changes, text: `{${parts.join(',')}}` };
}

/**
 * The fields an update changed, compared by value (JSON). The new values' text may come from
 * before the transaction (`known`); the old ones are the locked stored record's, encoded here.
 */
export function updatedChanges(previous: DataRecord, values: DataRecord, known?: EncodedValues): Changes {
  const changes: FieldChanges = {};
  const parts: string[] = [];
  for (const [name, value] of Object.entries(values)) {
    const old = previous[name] ?? null;
    const oldJson = JSON.stringify(old);
    const newJson = jsonOf(name, value ?? null, known);
    if (oldJson === newJson) continue;
    changes[name] = { old, new: value ?? null };
    parts.push(part(name, oldJson, newJson));
  }
  return { changes, text: `{${parts.join(',')}}` };
}

/** The history row of an entry, its `changes` column the text made for it (the json column's encoding is JSON.stringify on both drivers). */
export function historyRow(history: ResolvedObject, record: DataRecord, changes: Changes, dialect: Dialect): Record<string, unknown> {
  const row = recordToRow(history, record, dialect);
  row[changesColumn(history)] = changes.text;
  return row;
}

function changesColumn(history: ResolvedObject): string {
  return objectColumns(history).columns.find((c) => c.name === 'changes')!.column;
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
    object: object.name, record_id: entry.recordId, operation: entry.operation, record_version: entry.version,
  };
  await runWrite(trx, trx(RECORD_HISTORY).insert(historyRow(history, record, entry.changes, dialectOf(trx))));
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
