import type { Knex } from 'knex';
import type { HookName } from '../../../capabilities/hooksRegistry.ts';
import type { DataContext, DataRecord, WriteOptions } from '../../../capabilities/dataEngine.ts';
import { conditionalFields } from '../../../metadata/fieldConditions.ts';
import type { ResolvedObject } from '../../../metadata/types.ts';
import { recordToRow } from '../sql/codec.ts';
import { dialectOf } from '../sql/dialect.ts';
import { newId } from '../sql/newId.ts';
import { objectColumns } from '../sql/objectColumns.ts';
import { insertReturning, updateReturning } from '../sql/writeReturning.ts';
import { accessFor, accessKnown, appliesTo, type EngineDeps } from './engineDeps.ts';
import { newRecord } from './newRecord.ts';
import { hasTrash } from './trash.ts';
import { assertWritable, checkRecord, coerceOrThrow, guardObject, referenceScope, versionConflict, write, type WriteAnswer } from './writeRecords.ts';

/**
 * Single-statement writes. A create or update that needs nothing from the database but its own
 * statement runs as that statement alone, committed by itself: no BEGIN, no locked read of the
 * record, no COMMIT (on PostgreSQL one round trip instead of three or four). That holds when
 *
 * - no write hook of the object applies (every handler said so through `appliesTo`),
 * - the object keeps no history, has no trash and is not a system object,
 * - the caller's read of the record filters no rows (the answer comes from `returning`),
 * - a create: no autonumber (its sequence is a statement of its own) and no lookup set (checked
 *   against the referenced record, which a transaction holds still);
 * - an update: no row scope of the caller's or contributed (each needs the stored row), no
 *   lookup and no owner in the patch, and no rule that reads the stored record (validation rules
 *   on update, conditional fields), so every check runs on the patch before the statement.
 *
 * Otherwise (or inside a transaction already) the write runs in its transaction (writeRecords.ts),
 * with the same checks in the same order: a caller cannot tell the two apart by its answers.
 * DECLINED says so before anything was written.
 */
export const DECLINED = Symbol('declined');

/** What a single-statement write runs with: the environment's knex, how the caller's read answers, and how its statement is run. */
export interface AloneScope {
  knex: Knex;
  answer(object: ResolvedObject, ctx: DataContext): Promise<WriteAnswer | undefined>;
  /** Runs the write to `table` itself: around it the engine forgets remembered totals, and after it tells other processes (writeNotifier.ts). */
  run<T>(table: string, write: () => Promise<T>): Promise<T>;
}

/**
 * The scope of a single-statement write in an environment: its database's knex, the caller's
 * answer made on it (`answerOf`, the engine's returningOf), and the statement run as a write
 * transaction would be: remembered totals forgotten around it, other processes told after it.
 */
export function aloneScope(deps: EngineDeps, environmentId: string, answerOf: (object: ResolvedObject, ctx: DataContext, knex: Knex) => Promise<WriteAnswer | undefined>): AloneScope {
  const db = deps.database(environmentId);
  return {
    knex: db.knex,
    answer: (object, ctx) => answerOf(object, ctx, db.knex),
    async run(table, statement) {
      // Totals counted while it runs are not kept (countCache.ts); those of other tables stay.
      const tables = [table];
      deps.counts?.changed(environmentId, tables);
      try {
        const done = await statement();
        db.signal?.wrote(tables);
        return done;
      } finally {
        deps.counts?.changed(environmentId, tables);
      }
    },
  };
}

/** Whether no handler of `hooks` does anything for a write of `object` in this environment now. */
export function noHookApplies(deps: EngineDeps, hooks: readonly HookName[], object: ResolvedObject, environmentId: string): boolean {
  for (const hook of hooks) {
    for (const handler of deps.hooks.handlers(hook, object.name)) {
      if (handler.appliesTo?.(object.name, environmentId) !== false) return false;
    }
  }
  return true;
}

function setsLookup(object: ResolvedObject, values: DataRecord): boolean {
  for (const name in values) {
    if (object.fields[name]?.type === 'lookup' && values[name] !== null && values[name] !== undefined) return true;
  }
  return false;
}

/**
 * Whether the caller reads (and for an update, edits) every record of the object: no contributed
 * scope and no row scope of its own. Else its read by id filters rows, or its right to edit
 * depends on the stored record.
 */
async function unscoped(deps: EngineDeps, knex: Knex, object: ResolvedObject, ctx: DataContext, action: 'create' | 'update'): Promise<boolean> {
  if (appliesTo(deps.scopeFilter?.(ctx), object)) return false;
  const known = accessKnown(deps, ctx);
  const access = known === undefined ? await accessFor(deps, knex, ctx) : known;
  if (!access) return true;
  return access.profile.scope(object, 'read') === null && (action === 'create' || access.profile.scope(object, 'edit') === null);
}

const CREATE_HOOKS: readonly HookName[] = ['data.beforeInsert', 'data.afterInsert'];
const UPDATE_HOOKS: readonly HookName[] = ['data.beforeUpdate', 'data.afterUpdate'];

/** No history entry and no trash to keep out of (a trashed record is not updated): nothing beside the statement. */
function plainObject(object: ResolvedObject): boolean {
  return !object.system && object.enable?.trackHistory !== true && !hasTrash(object);
}

export async function createAlone(deps: EngineDeps, scope: AloneScope, object: ResolvedObject, input: DataRecord, ctx: DataContext): Promise<DataRecord | typeof DECLINED> {
  if (!plainObject(object) || !noHookApplies(deps, CREATE_HOOKS, object, ctx.environmentId)) return DECLINED;
  if (objectColumns(object).columns.some((column) => column.seqColumn)) return DECLINED;
  const { knex } = scope;
  if (!(await unscoped(deps, knex, object, ctx, 'create'))) return DECLINED;
  assertWritable(object, ctx, 'create');
  const coerced = coerceOrThrow(object, input, 'create', ctx);
  const { access, values, vetted } = await guardObject(deps, knex, object, ctx, 'create', coerced);
  if (vetted.size > 0 || setsLookup(object, values)) return DECLINED;
  const userId = ctx.principal?.userId ?? null;
  const now = new Date().toISOString();
  const record = newRecord(values, newId(), now, userId);
  if (object.owner) record.owner_id = values.owner_id ?? userId;
  // The record's own checks (validation rules, conditional fields) as in a transaction; no lookup is set.
  await checkRecord(deps, knex, object, values, record, 'create', ctx, referenceScope(deps, ctx, access, () => true), { sent: coerced });
  // After the checks, as in a transaction, where the answer is made after the write: a caller
  // who may not read the object is refused here, before anything is written.
  const answer = await scope.answer(object, ctx);
  if (!answer) return DECLINED;
  const row = recordToRow(object, record, dialectOf(knex));
  const returned = await scope.run(object.name, () => write(object, () => insertReturning(knex, object.name, row, answer.columns, true)));
  return answer.record(returned[0]!);
}

export async function updateAlone(
  deps: EngineDeps, scope: AloneScope, object: ResolvedObject,
  id: string, patch: DataRecord, options: WriteOptions, ctx: DataContext,
): Promise<DataRecord | typeof DECLINED> {
  if (!plainObject(object) || !noHookApplies(deps, UPDATE_HOOKS, object, ctx.environmentId)) return DECLINED;
  if (conditionalFields(object).length > 0 || object.validationRules.some((rule) => !rule.on || rule.on.includes('update'))) return DECLINED;
  // Engine ids never hold U+0000, which PostgreSQL refuses even as a parameter: the transaction answers 404.
  if (id.includes('\u0000')) return DECLINED;
  const { knex } = scope;
  if (!(await unscoped(deps, knex, object, ctx, 'update'))) return DECLINED;
  assertWritable(object, ctx, 'update');
  const { values } = await guardObject(deps, knex, object, ctx, 'edit', coerceOrThrow(object, patch, 'update', ctx));
  if (setsLookup(object, values) || (object.owner && values.owner_id !== undefined)) return DECLINED;
  const answer = await scope.answer(object, ctx);
  if (!answer) return DECLINED;
  const changes = Object.assign({}, values);
  changes.updated_at = new Date().toISOString();
  changes.updated_by = ctx.principal?.userId ?? null;
  const row = recordToRow(object, changes, dialectOf(knex));
  const expected = options.expectedVersion;
  if (expected !== undefined) row.version = expected + 1;
  const returned = await scope.run(object.name, () => write(object, () => updateReturning(knex, object.name, row, id, expected ?? null, answer.columns, true)));
  // No row: the record is missing, or (with an expected version) at another version.
  if (returned.length === 0) throw await versionConflict(knex, object, id, expected ?? -1);
  return answer.record(returned[0]!);
}
