import type { DataContext, DataRecord, UpsertResult, WriteOptions } from '../../../capabilities/dataEngine.ts';
import { codedError, isCodedError } from '../../../kernel/errors.ts';
import type { ResolvedObject } from '../../../metadata/types.ts';
import { recordToRow } from '../sql/codec.ts';
import { dialectOf } from '../sql/dialect.ts';
import { coerceInput } from './coerceInput.ts';
import type { EngineDeps } from './engineDeps.ts';
import { inSavepoint } from './inSavepoint.ts';
import { createRecord, updateRecord, type WriteScope } from './writeRecords.ts';

/** A 400 naming the `on` field and what to fix. */
function badKey(object: ResolvedObject, on: string, message: string) {
  return codedError('VALIDATION_ERROR', { summary: `on '${on.slice(0, 64)}' ${message}`, errors: [{ path: 'on', message }], object: object.name });
}

/**
 * The key an upsert looks records up by: a field of the object declared unique, with a value in
 * `values`, in the form it is stored (coerced as a write would). The key stays in the values
 * written, so a caller that may not edit the field (and so, as edit implies read, one that may not
 * read it) is refused by the write's field check before anything depends on the stored rows.
 */
function upsertKey(scope: WriteScope, object: ResolvedObject, on: string, values: DataRecord, ): Record<string, unknown> {
  const field = Object.hasOwn(object.fields, on) ? object.fields[on] : undefined;
  if (!field) throw badKey(object, on, `is not a field of ${object.name}; name a field declared unique`);
  if (!field.unique) throw badKey(object, on, `is not declared unique on ${object.name}; upsert looks records up by a unique field only`);
  const given = values[on];
  if (given === undefined || given === null || given === '') throw badKey(object, on, `needs a value in the body: the record must carry ${on}`);
  const { values: coerced, errors } = coerceInput(object, { [on]: given }, 'update', true);
  if (errors.length > 0 || coerced[on] === undefined || coerced[on] === null) throw badKey(object, on, `has a value that is not valid: ${errors[0]?.message ?? 'empty'}`);
  return recordToRow(object, { [on]: coerced[on] }, dialectOf(scope.trx));
}

/** The id of the record holding the key, read below row security (what the caller may do with it is the update's business). */
async function existing(scope: WriteScope, object: ResolvedObject, key: Record<string, unknown>): Promise<string | undefined> {
  const row = (await scope.trx(object.name).where(key).first('id')) as { id: string } | undefined;
  return row ? String(row.id) : undefined;
}

/** A unique violation on the key field, as constraintError reports it: another writer created the record meanwhile. */
function takenKey(error: unknown, on: string): boolean {
  if (!isCodedError(error) || error.code !== 'VALIDATION_ERROR') return false;
  const errors = (error.details.errors ?? []) as { path?: string; message?: string }[];
  return errors.some((e) => e.path === on && String(e.message).startsWith('must be unique'));
}

/**
 * Create the record whose `on` field holds the value in `values`, or update the one that does.
 * The update is exactly an update by the caller (object permission, row security, editable fields,
 * `expectedVersion`, hooks); the create exactly a create. Atomic under concurrency: the create
 * runs in a savepoint, and a unique violation on the key (another transaction created the record
 * between the look-up and the insert) turns into the update of that record, so the unique index
 * decides and two records are never made.
 *
 * A record the caller may not see answers 404 as a PATCH of it would, but named by the key the
 * caller sent, not by its id: the id of a hidden record is not the caller's to learn. That the key
 * is taken is no news: a create with that value is refused as not unique all the same.
 */
export async function upsertRecord(
  deps: EngineDeps, scope: WriteScope, object: ResolvedObject,
  on: string, values: DataRecord, options: WriteOptions, ctx: DataContext,
): Promise<UpsertResult> {
  const key = upsertKey(scope, object, on, values);
  const update = async (id: string): Promise<UpsertResult> => {
    try {
      return { created: false, record: await updateRecord(deps, scope, object, id, values, options, ctx) };
    } catch (error) {
      if (isCodedError(error) && error.code === 'NOT_FOUND' && error.details.id === id.slice(0, 64)) {
        throw codedError('NOT_FOUND', { what: `${object.label} with ${on} '${String(values[on]).slice(0, 64)}'`, object: object.name, on });
      }
      throw error;
    }
  };
  const id = await existing(scope, object, key);
  if (id !== undefined) return update(id);
  try {
    return { created: true, record: await inSavepoint(scope.trx, {}, () => createRecord(deps, scope, object, values, ctx)) };
  } catch (error) {
    if (!takenKey(error, on)) throw error;
    const winner = await existing(scope, object, key);
    if (winner === undefined) throw error;
    return update(winner);
  }
}
