import type { Knex } from 'knex';
import { newRecord } from './newRecord.ts';
import type { CreateOutcome, DataContext, DataEngine, DataRecord } from '../../../capabilities/dataEngine.ts';
import type { HookName } from '../../../capabilities/hooksRegistry.ts';
import { isCodedError } from '../../../kernel/errors.ts';
import { checkValidationRules } from '../../../metadata/checkValidationRules.ts';
import { conditionProblems } from '../../../metadata/fieldConditions.ts';
import type { ResolvedObject } from '../../../metadata/types.ts';
import { ACCESS_OBJECTS } from '../access/accessObjects.ts';
import { computeFormulas } from '../query/computeFormulas.ts';
import { encodeValue, formatAutonumber } from '../sql/codec.ts';
import { dialectOf } from '../sql/dialect.ts';
import { insertMany } from '../sql/insertMany.ts';
import { newId } from '../sql/newId.ts';
import { objectColumns, type ColumnInfo } from '../sql/objectColumns.ts';
import { checkReferenceBatch, type BatchReference } from './checkReferenceBatch.ts';
import type { FieldError } from './coerceInput.ts';
import { accessKnown, celContext, validationError, type EngineDeps } from './engineDeps.ts';
import { createdChanges, historyRow, RECORD_HISTORY } from './recordHistory.ts';
import { prepareWork, type PreparedWork } from './prepareWrite.ts';
import { assertWritable, coerceOrThrow, guardObject, readerAccess, referenceScope, type WriteAnswer, type WriteScope } from './writeRecords.ts';
import { valuesAfterHooks } from './valuesAfterHooks.ts';
import { runHandlers } from './runHooks.ts';
import { SEQUENCE_TABLE } from './nextSequence.ts';
import { noHookApplies } from './writeAlone.ts';

/** Reads records by id as the caller, without the find hooks (a write's read-back); at most `limit` ids a call. */
export interface ReadBack {
  limit(object: ResolvedObject): number;
  read(object: ResolvedObject, ids: string[], ctx: DataContext): Promise<DataRecord[]>;
  /** The answer made from the inserts' own `returning`, where the caller's read filters no rows (as a single create's, WriteScope.answer); else undefined. */
  answer(object: ResolvedObject, ctx: DataContext): Promise<WriteAnswer | undefined>;
}

/** Thrown inside a batch's savepoint to undo it and create its rows one by one instead. */
class OneByOne extends Error {}

/** A failure that is the input's own (a coded request error); anything else is a fault of the whole call. */
function ownError(error: unknown): boolean {
  return isCodedError(error) && error.status < 500;
}

/** Whether every insert hook of the object may run for a batch of rows (HookRegistration.batched). */
function batchable(deps: EngineDeps, object: ResolvedObject): boolean {
  if (ACCESS_OBJECTS.has(object.name)) return false;
  const hooks = [...deps.hooks.handlers('data.beforeInsert', object.name), ...deps.hooks.handlers('data.afterInsert', object.name)];
  return hooks.every((h) => h.batched === true);
}

/**
 * Creates each input as createRecord would (writeRecords.ts), in the caller's transaction. When
 * every insert hook of the object is marked `batched`, the inputs are checked first (coercion,
 * object and field security, before-hooks, references in one query per referenced object,
 * conditional field rules, validation rules), then the valid ones written together: one block of
 * autonumbers, multi-row inserts, one history insert, read back by id, then the after-hooks. That
 * runs in a savepoint; any failure of the writing half (a unique value taken, a record the caller
 * cannot read back, an after-hook refusing a row) undoes it and the inputs are created one by one
 * through `create`, each in its own savepoint, so every outcome is the one a single create gives.
 */
export async function createRecords(
  deps: EngineDeps, scope: WriteScope, object: ResolvedObject, inputs: readonly DataRecord[], ctx: DataContext, readBack: ReadBack, idsOnly = false,
): Promise<CreateOutcome[]> {
  if (inputs.length === 0) return [];
  if (batchable(deps, object)) {
    try {
      return await scope.engine.transaction(ctx, (inner) => createBatch(deps, scope.trx, inner, object, inputs, ctx, readBack, idsOnly));
    } catch (error) {
      if (!(error instanceof OneByOne)) throw error;
    }
  }
  const outcomes: CreateOutcome[] = [];
  for (const input of inputs) {
    try {
      outcomes.push({ record: await scope.engine.create(object.name, input, ctx) });
    } catch (error) {
      if (!ownError(error)) throw error;
      outcomes.push({ error });
    }
  }
  return outcomes;
}

/**
 * An input checked on its own: coerced values and the work prepared from them (prepareWrite.ts),
 * or the coded error a create of it answers.
 */
export type Prepared = { ok: true; values: DataRecord; work: PreparedWork } | { ok: false; error: unknown };

interface PreparedFor {
  object: string;
  principal: unknown;
  system: boolean;
  trusted: unknown;
  outcome: Prepared;
}

/** Inputs prepared by prepareCreates, by the input object itself (no copy, no key to leak). */
const preparedInputs = new WeakMap<object, PreparedFor>();

/** What of a create needs no database: the object's writability, the input's coercion and size bounds, and the work prepared from its values. */
export function prepareOne(deps: EngineDeps, object: ResolvedObject, input: DataRecord, ctx: DataContext): Prepared {
  try {
    assertWritable(object, ctx, 'create');
    const values = coerceOrThrow(object, input, 'create', ctx);
    return { ok: true, values, work: prepareWork(deps, object, 'data.afterInsert', values, ctx) };
  } catch (error) {
    if (!ownError(error)) throw error;
    return { ok: false, error };
  }
}

/**
 * What of a batch of creates needs no database (the object's writability, each input's coercion
 * and size bounds, the after-insert handlers' prepared work such as search text, the history
 * entries' encoded values), done now, outside any transaction: a createMany of these same input objects
 * for the same caller then uses it, so the transaction (on SQLite, the one writer) is held only
 * for what reads or writes the database. Only where the inputs would be written as a batch.
 */
export function prepareCreates(deps: EngineDeps, object: ResolvedObject, inputs: readonly DataRecord[], ctx: DataContext): void {
  if (!batchable(deps, object)) return;
  for (const input of inputs) {
    preparedInputs.set(input, { object: object.name, principal: ctx.principal ?? null, system: ctx.system === true, trusted: ctx.trustedFields, outcome: prepareOne(deps, object, input, ctx) });
  }
}

/** The input's preparation when it was made for this object and caller, else made now. */
function preparedFor(deps: EngineDeps, object: ResolvedObject, input: DataRecord, ctx: DataContext): Prepared {
  const made = preparedInputs.get(input);
  if (made && made.object === object.name && made.principal === (ctx.principal ?? null) && made.system === (ctx.system === true) && made.trusted === ctx.trustedFields) {
    preparedInputs.delete(input);
    return made.outcome;
  }
  return prepareOne(deps, object, input, ctx);
}

interface Checked {
  index: number;
  /** The caller's values after coercion and the security checks (what it sent). */
  sent: DataRecord;
  /** The values after the before-hooks. */
  values: DataRecord;
  record: DataRecord;
  /** Autonumber counter values by storage column. */
  numbers: Record<string, number>;
  /** What was prepared from the sent values: the after-hooks' work, the history's encoded values. */
  work: PreparedWork;
}

async function createBatch(
  deps: EngineDeps, trx: Knex.Transaction, engine: DataEngine, object: ResolvedObject, inputs: readonly DataRecord[], ctx: DataContext, readBack: ReadBack, idsOnly: boolean,
): Promise<CreateOutcome[]> {
  const outcomes: CreateOutcome[] = new Array(inputs.length);
  const checked: Checked[] = [];
  const references: BatchReference[] = [];
  const now = new Date().toISOString();
  const userId = ctx.principal?.userId ?? null;
  // Without access checks (engine work, no principal) the guard has nothing to wait for.
  const guarded = accessKnown(deps, ctx) !== null;
  const beforeHooks = deps.hooks.handlers('data.beforeInsert', object.name);
  for (const [index, input] of inputs.entries()) {
    const prepared = preparedFor(deps, object, input, ctx);
    if (!prepared.ok) {
      outcomes[index] = { error: prepared.error };
      continue;
    }
    try {
      const coerced = prepared.values;
      const { access, values: sent, vetted } = guarded ? await guardObject(deps, trx, object, ctx, 'create', coerced) : { access: null, values: coerced, vetted: NO_VETTED };
      // As in createRecord, the hooks change `sent` itself: what they add counts as sent.
      const event = { object: object.name, record: sent, ctx, engine };
      const before = beforeHooks.length > 0 ? { ...sent } : sent;
      const running = runHandlers(beforeHooks, event);
      if (running) await running;
      const values = valuesAfterHooks(object, sent, before, event.record, beforeHooks.length > 0);
      const record = newRecord(values, newId(), now, userId);
      if (object.owner) record.owner_id = values.owner_id ?? userId;
      const scoped = referenceScope(deps, ctx, access ?? await readerAccess(deps, trx, ctx), (field) => !vetted.has(field) && values[field] === sent[field]);
      references.push({ index, values, scope: scoped });
      checked.push({ index, sent, values, record, numbers: {}, work: prepared.work });
    } catch (error) {
      if (!ownError(error)) throw error;
      outcomes[index] = { error };
    }
  }
  await numberRecords(trx, object, checked);
  const problems = await checkReferenceBatch(trx, object, references, (name) => deps.metadata.object(name));
  const cel = celContext(ctx);
  const formulas = [...objectColumns(object).formulas.values()];
  const valid: Checked[] = [];
  for (const item of checked) {
    const errors: FieldError[] = problems.get(item.index) ?? [];
    // The checks only read the record; formulas are computed on a copy (they are not stored).
    const next = formulas.length > 0 ? { ...item.record } : item.record;
    if (formulas.length > 0) computeFormulas(next, formulas, cel);
    errors.push(...conditionProblems(object, { mode: 'create', sent: Object.keys(item.sent), system: ctx.system === true, next }, cel));
    for (const v of checkValidationRules(object, next, 'create', cel)) errors.push({ path: v.field, message: v.message });
    if (errors.length > 0) outcomes[item.index] = { error: validationError(errors) };
    else valid.push(item);
  }
  // An autonumber taken by a row that failed would leave a gap a single create does not leave.
  if (valid.length < checked.length && objectColumns(object).columns.some((c) => c.seqColumn)) throw new OneByOne();
  // As a single create: answered from the inserts' `returning` where the caller's read filters no rows.
  const answer = valid.length > 0 ? await readBack.answer(object, ctx) : undefined;
  // Ids alone (CreateManyOptions.idsOnly): where every row is the caller's to read and no
  // after-insert handler applies (HookOptions.appliesTo), nothing is answered back (the ids were
  // made here) and no handler runs, as for a single-statement create (writeAlone.ts).
  const bare = idsOnly && answer !== undefined && noHookApplies(deps, AFTER_INSERT, object, ctx.environmentId);
  let returned: Array<Record<string, unknown>>;
  try {
    returned = await insertEncoded(trx, object, valid, bare ? undefined : answer?.columns);
    await writeHistories(deps, trx, object, valid, ctx, now);
  } catch {
    // A unique value taken (by a row before it or in the batch), a value the driver refuses: each row says which.
    throw new OneByOne();
  }
  if (bare) {
    for (const item of valid) outcomes[item.index] = { record: { id: item.record.id } };
    return outcomes;
  }
  const afterHooks = deps.hooks.handlers('data.afterInsert', object.name);
  const stored = answer ? answered(returned, answer) : await readAll(object, valid.map((v) => String(v.record.id)), ctx, readBack);
  for (const item of valid) {
    const record = stored.get(String(item.record.id));
    if (!record) throw new OneByOne();
    try {
      const running = runHandlers(afterHooks, { object: object.name, record, ctx, engine }, item.work.hooks);
      if (running) await running;
    } catch (error) {
      if (!ownError(error)) throw error;
      throw new OneByOne();
    }
    outcomes[item.index] = { record };
  }
  return outcomes;
}

const NO_VETTED: ReadonlySet<string> = new Set();
const AFTER_INSERT: readonly HookName[] = ['data.afterInsert'];

/** One block of each autonumber counter for the rows, in row order. */
async function numberRecords(trx: Knex.Transaction, object: ResolvedObject, rows: Checked[]): Promise<void> {
  if (rows.length === 0) return;
  for (const column of objectColumns(object).columns) {
    if (!column.seqColumn) continue;
    const result = await trx.raw(
      `insert into ${SEQUENCE_TABLE} (name, value) values (?, ?)
       on conflict (name) do update set value = ${SEQUENCE_TABLE}.value + ?
       returning value`,
      [`${object.name}.${column.name}`, rows.length, rows.length],
    );
    const last = Number(((Array.isArray(result) ? result : result.rows) as Array<{ value: number | string }>)[0]!.value);
    for (const [i, row] of rows.entries()) {
      const sequence = last - rows.length + 1 + i;
      row.record[column.name] = formatAutonumber(column.field?.format, sequence);
      row.numbers[column.seqColumn] = sequence;
    }
  }
}

/** Rows with the same columns in multi-row inserts (a column left out keeps its default). */
async function insertRows(trx: Knex.Transaction, object: ResolvedObject, rows: Record<string, unknown>[]): Promise<void> {
  const groups = new Map<string, { columns: string[]; values: unknown[][] }>();
  for (const row of rows) {
    const columns = Object.keys(row);
    const key = columns.join('\u0000');
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { columns, values: [] }));
    group.values.push(columns.map((c) => row[c]));
  }
  for (const group of groups.values()) await insertMany(trx, object.name, group.columns, group.values);
}

/**
 * The rows' records encoded straight into the value lists of multi-row inserts, rows with the same
 * columns together (recordToRow's encoding; a column left out keeps its default), each row's
 * autonumber counters after its columns.
 */
async function insertEncoded(trx: Knex.Transaction, object: ResolvedObject, rows: readonly Checked[], returning?: string): Promise<Array<Record<string, unknown>>> {
  const dialect = dialectOf(trx);
  const { columns } = objectColumns(object);
  const groups = new Map<string, { columns: string[]; values: unknown[][] }>();
  const present: ColumnInfo[] = [];
  for (const { record, numbers } of rows) {
    present.length = 0;
    let key = '';
    for (const column of columns) {
      if (!Object.hasOwn(record, column.name)) continue;
      present.push(column);
      key += `${column.column}\u0000`;
    }
    const sequences = Object.keys(numbers);
    if (sequences.length > 0) key += `#${sequences.join('\u0000')}`;
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { columns: [...present.map((c) => c.column), ...sequences], values: [] }));
    const values: unknown[] = new Array(present.length + sequences.length);
    for (const [i, column] of present.entries()) values[i] = encodeValue(column.type, record[column.name], dialect);
    for (const [i, name] of sequences.entries()) values[present.length + i] = numbers[name];
    group.values.push(values);
  }
  const returned: Array<Record<string, unknown>> = [];
  for (const group of groups.values()) returned.push(...(await insertMany(trx, object.name, group.columns, group.values, returning)));
  return returned;
}

/** The records the caller sees of the returned rows, by id (a returned row without its id answers nothing: the batch is redone one by one). */
function answered(rows: Array<Record<string, unknown>>, answer: WriteAnswer): Map<string, DataRecord> {
  const found = new Map<string, DataRecord>();
  for (const row of rows) if (row.id !== undefined && row.id !== null) found.set(String(row.id), answer.record(row));
  return found;
}

/** The history entries of the created records (objects with enable.trackHistory), in one insert. */
async function writeHistories(deps: EngineDeps, trx: Knex.Transaction, object: ResolvedObject, created: Checked[], ctx: DataContext, now: string): Promise<void> {
  if (object.enable?.trackHistory !== true || created.length === 0) return;
  const history = deps.metadata.object(RECORD_HISTORY);
  if (!history) return;
  const userId = ctx.principal?.userId ?? null;
  const dialect = dialectOf(trx);
  // The values' JSON text was made before the transaction (prepareWork): only a value a before-hook changed is encoded here.
  const rows = created.map((item) => historyRow(history, {
    id: newId(), version: 1, created_at: now, updated_at: now, created_by: userId, updated_by: userId,
    object: object.name, record_id: String(item.record.id), operation: 'create', record_version: 1,
  }, createdChanges(item.values, item.work.history), dialect));
  await insertRows(trx, history, rows);
}

async function readAll(object: ResolvedObject, ids: string[], ctx: DataContext, readBack: ReadBack): Promise<Map<string, DataRecord>> {
  const found = new Map<string, DataRecord>();
  const size = readBack.limit(object);
  for (let i = 0; i < ids.length; i += size) {
    for (const record of await readBack.read(object, ids.slice(i, i + size), ctx)) found.set(String(record.id), record);
  }
  return found;
}
