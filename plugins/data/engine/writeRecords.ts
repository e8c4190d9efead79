import type { Knex } from 'knex';
import { newRecord } from './newRecord.ts';
import type { DataContext, DataEngine, DataRecord, WriteOptions } from '../../../capabilities/dataEngine.ts';
import { codedError } from '../../../kernel/errors.ts';
import { checkValidationRules } from '../../../metadata/checkValidationRules.ts';
import { conditionProblems } from '../../../metadata/fieldConditions.ts';
import type { ResolvedObject } from '../../../metadata/types.ts';
import { computeFormulas } from '../query/computeFormulas.ts';
import { encodeValue, formatAutonumber, recordToRow, rowToRecord } from '../sql/codec.ts';
import { dialectOf, quoteIdent } from '../sql/dialect.ts';
import { directReader } from '../sql/sqliteReader.ts';
import { runNative } from '../sql/runNative.ts';
import { runWrite } from './runWrite.ts';
import { insertReturning, updateReturning } from '../sql/writeReturning.ts';
import { newId } from '../sql/newId.ts';
import { objectColumns } from '../sql/objectColumns.ts';
import { checkReferences, type ReferenceScope } from './checkReferences.ts';
import { coerceInput, type FieldError } from './coerceInput.ts';
import { constraintError } from './constraintError.ts';
import { driverInputError } from './driverInputError.ts';
import type { AccessProfile } from '../access/accessService.ts';
import { accessFor, celContext, validationError, withUser, type EngineDeps } from './engineDeps.ts';
import { FALSE_CONDITION } from '../access/compilePolicy.ts';
import { USER_POSITION } from '../access/accessObjects.ts';
import { checkAssignmentChange, checkDelegation } from '../access/delegation.ts';
import { checkOwnerChange, checkRowWrite, checkWritableFields, combineScopes, readScope, requireAction, rowInScope } from '../access/enforceAccess.ts';
import { nextSequence } from './nextSequence.ts';
import { runHooks } from './runHooks.ts';
import { valuesAfterHooks } from './valuesAfterHooks.ts';
import { createdChanges, NO_CHANGES, updatedChanges, writeHistory } from './recordHistory.ts';
import { NOTHING_PREPARED, prepareWork, type PreparedWork } from './prepareWrite.ts';
import type { Prepared as PreparedCreate } from './createRecords.ts';
import { DELETED_AT, DELETED_BY, hasTrash } from './trash.ts';

/**
 * The write path. Each function runs inside the caller's transaction, so hooks, autonumbers,
 * reference checks, validation rules and the write itself happen together or not at all.
 * Order: coerce input -> before-hook (may change values) -> coerce again -> references and
 * validation rules -> versioned write -> read back -> after-hook.
 */

/** What a write runs with inside its transaction. */
export interface WriteScope {
  /** The engine bound to the transaction: hooks get it, so their writes commit or roll back with this one. */
  engine: DataEngine;
  trx: Knex.Transaction;
  /** The stored record as the caller may see it, without the find hooks: those belong to reads, not to a write's result. */
  read(object: ResolvedObject, id: string, ctx: DataContext): Promise<DataRecord>;
  /** The same answer made from the write statement's own returned row, where the caller's read filters no rows; else undefined. */
  answer(object: ResolvedObject, ctx: DataContext): Promise<WriteAnswer | undefined>;
}

/** A write's answer from its statement's `returning`: the columns to return, and the record the caller sees of the returned row. */
export interface WriteAnswer {
  columns: string;
  record(row: Record<string, unknown>): DataRecord;
}

export function assertWritable(object: ResolvedObject, ctx: DataContext, action: 'create' | 'update' | 'delete'): void {
  if (object.system && !ctx.system && object.userActions?.[action] !== true) throw codedError('SYSTEM_OBJECT_READ_ONLY', { object: object.name });
}

/**
 * Object permission (before the record is read, so the answer does not depend on whether it
 * exists), delegation rules for position assignments, editable fields and ownership.
 */
export async function guardObject(deps: EngineDeps, trx: Knex, object: ResolvedObject, ctx: DataContext, action: 'create' | 'edit' | 'delete', values: DataRecord) {
  const access = await accessFor(deps, trx, ctx);
  if (!access) return { access, values, vetted: NONE_VETTED };
  const { profile, principal } = access;
  let checked = values;
  let vetted = NONE_VETTED;
  if (action === 'create' && object.name === USER_POSITION && isDelegation(profile, object, values)) {
    // An admin records a delegation for the delegator it names; anyone else delegates as itself.
    const delegator = profile.grants.isAdmin ? String(values.delegated_by) : profile.grants.userId;
    checked = checkDelegation(delegator, profile.model, values, new Date());
    // The delegator holds the position: its reference needs no read grant on sys_position.
    vetted = DELEGATED_POSITION;
  } else {
    requireAction(profile, principal, object, action);
  }
  if (action !== 'delete') checkWritableFields(object, values, profile, principal);
  if (action === 'create') checkOwnerChange(object, values, profile, principal);
  return { access, values: checked, vetted };
}

const NONE_VETTED: ReadonlySet<string> = new Set();
const DELEGATED_POSITION: ReadonlySet<string> = new Set(['position']);

/**
 * What the lookups a caller sets are checked against: the read scope of the referenced object, as
 * a read by id applies it (row security and contributed scopes). None for engine work, unless it
 * is done for a caller (`lookupReader`): then that caller's, with `access` from readerAccess.
 */
export function referenceScope(deps: EngineDeps, ctx: DataContext, access: Awaited<ReturnType<typeof accessFor>>, applies: (field: string) => boolean): ReferenceScope | undefined {
  if (ctx.system && ctx.lookupReader === undefined) return undefined;
  const caller = ctx.system ? withUser({ environmentId: ctx.environmentId, principal: ctx.lookupReader ?? null }) : ctx;
  const own = ctx.system && ctx.lookupReader === null ? NOTHING : access ? readScope(access.profile) : undefined;
  const filter = combineScopes(own, deps.scopeFilter?.(caller));
  return filter && { filter, object: (name) => deps.metadata.object(name), applies };
}

const NOTHING = () => FALSE_CONDITION;

/** The access of the caller that engine work is done for (`lookupReader`), whose read scope checks its lookups; null otherwise. */
export async function readerAccess(deps: EngineDeps, knex: Knex, ctx: DataContext): Promise<Awaited<ReturnType<typeof accessFor>>> {
  const reader = ctx.system ? ctx.lookupReader : undefined;
  if (!reader || !deps.access) return null;
  return { profile: await deps.access.profile(knex, ctx.environmentId, reader), principal: reader };
}

/**
 * A position assignment is a delegation unless a tenant admin or delegated admin makes it plainly;
 * an admin scope is granted by tenant admins only, never passed on by a delegated admin.
 */
function isDelegation(profile: AccessProfile, object: ResolvedObject, values: DataRecord): boolean {
  const declared = values.delegated_by !== undefined && values.delegated_by !== null;
  if (profile.grants.isAdmin) return declared;
  const adminScope = profile.model.positions.some((p) => p.id === values.position && p.admin_scope);
  return adminScope || declared || !profile.perms(object).create;
}

/** Row scope of an update or delete: see checkRowWrite. A row outside a contributed scope is not found. */
export async function guardRow(deps: EngineDeps, trx: Knex.Transaction, object: ResolvedObject, ctx: DataContext, access: Awaited<ReturnType<typeof accessFor>>, previous: DataRecord, values: DataRecord = {}) {
  const id = String(previous.id);
  if (!(await rowInScope(trx, object, id, deps.scopeFilter?.(ctx)))) {
    throw codedError('NOT_FOUND', { what: `${object.label} '${id.slice(0, 64)}'`, object: object.name, id: id.slice(0, 64) });
  }
  if (!access) return;
  await checkRowWrite(trx, object, String(previous.id), access.profile, access.principal);
  checkOwnerChange(object, values, access.profile, access.principal, previous.owner_id);
}

export function coerceOrThrow(object: ResolvedObject, input: DataRecord, mode: 'create' | 'update', ctx: DataContext | 'hook') {
  const { values, errors } = ctx === 'hook'
    ? coerceInput(object, input, mode, true)
    : coerceInput(object, input, mode, ctx.system === true, ctx.trustedFields);
  if (errors.length > 0) throw validationError(errors);
  return values;
}

/** What the caller itself sent (before hooks) and the stored record of an update: the conditional field rules read them. */
interface Written {
  sent: DataRecord;
  previous?: DataRecord;
}

export async function checkRecord(deps: EngineDeps, trx: Knex, object: ResolvedObject, changed: DataRecord, full: DataRecord, mode: 'create' | 'update', ctx: DataContext, references: ReferenceScope | undefined, written: Written) {
  const errors: FieldError[] = await checkReferences(trx, object, changed, references, (name) => deps.metadata.object(name));
  const cel = celContext(ctx);
  // Formulas are computed on a copy (they are not stored); without any, the checks read the record itself.
  const formulas = objectColumns(object).formulas;
  const withFormulas = formulas.size > 0 ? Object.assign({}, full) : full;
  if (formulas.size > 0) computeFormulas(withFormulas, [...formulas.values()], cel);
  const write = { mode, sent: Object.keys(written.sent), system: ctx.system === true, next: withFormulas, ...(written.previous ? { previous: written.previous } : {}) };
  errors.push(...conditionProblems(object, write, cel));
  for (const v of checkValidationRules(object, withFormulas, mode, cel)) errors.push({ path: v.field, message: v.message });
  if (errors.length > 0) throw validationError(errors);
}

export function write<T>(object: ResolvedObject, work: () => Promise<T>): Promise<T> {
  let pending: Promise<T>;
  try {
    pending = work();
  } catch (error) {
    pending = Promise.reject(error);
  }
  return pending.catch((error: unknown) => {
    throw constraintError(error, object) ?? driverInputError(error) ?? error;
  });
}

/**
 * The current row, locked against concurrent writers on PostgreSQL (SQLite has one writer). An
 * update takes the no-key lock, which lets records referencing this one be created meanwhile; a
 * delete takes the full lock, which waits for them (see checkReferences).
 */
export async function lockedRecord(trx: Knex.Transaction, object: ResolvedObject, id: string, purpose: 'update' | 'delete', trashed = false): Promise<DataRecord> {
  const reader = directReader(trx);
  const dialect = dialectOf(trx);
  // Engine ids never hold U+0000, which PostgreSQL refuses even as a parameter.
  // SQLite: the transaction's connection directly. PostgreSQL: a named statement on the
  // transaction's connection, parsed and planned once per connection.
  const statement = { sql: lockedSql(object, dialect, reader ? null : purpose, trashed), bindings: [id] };
  const row = id.includes('\u0000') ? undefined : (await (reader ? reader(statement) : runNative(trx, statement)))[0];
  if (!row) throw codedError('NOT_FOUND', { what: `${object.label} '${id.slice(0, 64)}'`, object: object.name, id: id.slice(0, 64) });
  const record = rowToRecord(object, row, dialect);
  // Who trashed it: restore answers to the one who did.
  if (trashed) record[DELETED_BY] = row[DELETED_BY] ?? null;
  return record;
}

const lockedTexts = new WeakMap<ResolvedObject, Map<string, string>>();

/**
 * The text of a locked read by id, made once per object and kind. The limit is written into the
 * SQL: a bound one costs SQLite more than the read. An update takes PostgreSQL's no-key lock, a
 * delete the full one; SQLite (`purpose` null) has one writer and no row locks.
 */
function lockedSql(object: ResolvedObject, dialect: 'sqlite' | 'postgres', purpose: 'update' | 'delete' | null, trashed: boolean): string {
  let texts = lockedTexts.get(object);
  if (!texts) lockedTexts.set(object, (texts = new Map()));
  const key = `${dialect}:${purpose}:${trashed}`;
  let sql = texts.get(key);
  if (sql === undefined) {
    const id = dialect === 'postgres' ? '$1' : '?';
    const trash = !hasTrash(object) ? '' : ` and ${quoteIdent(DELETED_AT)} is ${trashed ? 'not null' : 'null'}`;
    const lock = dialect !== 'postgres' || purpose === null ? '' : purpose === 'update' ? ' for no key update' : ' for update';
    sql = `select * from ${quoteIdent(object.name)} where ${quoteIdent('id')} = ${id}${trash} limit 1${lock}`;
    texts.set(key, sql);
  }
  return sql;
}

/** Rows of the live table (or of the trash) only, for an object with a trash. */
export function inTrash<T extends Knex.QueryBuilder>(query: T, object: ResolvedObject, trashed = false): T {
  if (!hasTrash(object)) return query;
  return (trashed ? query.whereNotNull(`${object.name}.${DELETED_AT}`) : query.whereNull(`${object.name}.${DELETED_AT}`)) as T;
}

export function checkVersion(options: WriteOptions, current: number): void {
  if (options.expectedVersion !== undefined && options.expectedVersion !== current) {
    throw codedError('CONCURRENT_UPDATE', { expectedVersion: options.expectedVersion, currentVersion: current });
  }
}

/** Zero rows from a versioned write: someone else changed or deleted the record meanwhile. */
export async function versionConflict(trx: Knex, object: ResolvedObject, id: string, expected: number, trashed = false) {
  const current = await inTrash(trx(object.name).where({ id }), object, trashed).first('version');
  if (!current) return codedError('NOT_FOUND', { what: `${object.label} '${id.slice(0, 64)}'`, object: object.name, id: id.slice(0, 64) });
  return codedError('CONCURRENT_UPDATE', { expectedVersion: expected, currentVersion: Number(current.version) });
}

/** A record that lookups still point to is not deleted: the caller clears or deletes those first. */
export async function refuseIfReferenced(deps: EngineDeps, trx: Knex.Transaction, object: ResolvedObject, id: string): Promise<void> {
  const referencing: { object: string; field: string }[] = [];
  for (const other of deps.metadata.objects()) {
    for (const [name, field] of Object.entries(other.fields)) {
      if (field.type !== 'lookup' || field.reference !== object.name) continue;
      const hit = await trx(other.name).where(name, id).first('id');
      if (hit) referencing.push({ object: other.name, field: name });
    }
  }
  if (referencing.length > 0) {
    throw codedError('CONFLICT', {
      summary: `${object.label} '${id}' is still referenced by ${referencing.map((r) => `${r.object}.${r.field}`).join(', ')}; clear those references or delete those records first.`,
      referencedBy: referencing,
    });
  }
}

/**
 * Creates one record. `prepared`: the input's writability, coercion and prepared work, made by
 * prepareOne (createRecords.ts) for this input before the transaction opened; without it they are
 * made here.
 */
export async function createRecord(deps: EngineDeps, scope: WriteScope, object: ResolvedObject, input: DataRecord, ctx: DataContext, prepared?: PreparedCreate): Promise<DataRecord> {
  const { engine: tx, trx } = scope;
  if (prepared && !prepared.ok) throw prepared.error;
  if (!prepared) assertWritable(object, ctx, 'create');
  const sent = prepared ? prepared.values : coerceOrThrow(object, input, 'create', ctx);
  const work = prepared ? prepared.work : NOTHING_PREPARED;
  const { access, values: coerced, vetted } = await guardObject(deps, trx, object, ctx, 'create', sent);
  const event = { object: object.name, record: coerced, ctx, engine: tx };
  const hooked = deps.hooks.handlers('data.beforeInsert', object.name).length > 0;
  // The hooks change `coerced` itself (or replace the record): a copy tells what they changed.
  const before = hooked ? { ...coerced } : coerced;
  const running = runHooks(deps.hooks, 'data.beforeInsert', object.name, event);
  if (running) await running;
  const values = valuesAfterHooks(object, coerced, before, event.record, hooked);
  const now = new Date().toISOString();
  const userId = ctx.principal?.userId ?? null;
  const record = newRecord(values, newId(), now, userId);
  if (object.owner) record.owner_id = values.owner_id ?? userId;
  const row = recordToRow(object, record, dialectOf(trx));
  for (const column of objectColumns(object).columns) {
    if (!column.seqColumn) continue;
    const sequence = await nextSequence(trx, `${object.name}.${column.name}`);
    record[column.name] = row[column.column] = formatAutonumber(column.field?.format, sequence);
    row[column.seqColumn] = sequence;
  }
  // A lookup the caller sent (and the hooks kept) must name a record the caller may read.
  const references = referenceScope(deps, ctx, access ?? await readerAccess(deps, trx, ctx), (field) => !vetted.has(field) && values[field] === coerced[field]);
  await checkRecord(deps, trx, object, values, record, 'create', ctx, references, { sent: coerced });
  const answer = await scope.answer(object, ctx);
  const returned = answer ? await write(object, () => insertReturning(trx, object.name, row, answer.columns)) : null;
  if (!returned) await write(object, () => runWrite(trx, trx(object.name).insert(row)));
  await writeHistory(deps, trx, object, { recordId: String(record.id), operation: 'create', version: 1, changes: createdChanges(values, work.history) }, ctx);
  const stored = returned ? answer!.record(returned[0]!) : await scope.read(object, record.id as string, ctx);
  const after = runHooks(deps.hooks, 'data.afterInsert', object.name, { object: object.name, record: stored, ctx, engine: tx }, work.hooks);
  if (after) await after;
  return stored;
}

/** A patch's coercion and the work prepared from it before the transaction opened (prepareUpdate). */
export interface PreparedUpdate {
  values: DataRecord;
  work: PreparedWork;
}

/**
 * What of an update needs neither the database nor the stored record: the object's writability,
 * the patch's coercion and size bounds, and the work prepared from the patch (prepareWrite.ts),
 * made before the transaction opens. Undefined where the patch is refused: the update then
 * refuses it in its transaction, in its usual order.
 */
export function prepareUpdate(deps: EngineDeps, object: ResolvedObject, patch: DataRecord, ctx: DataContext): PreparedUpdate | undefined {
  try {
    assertWritable(object, ctx, 'update');
    const values = coerceOrThrow(object, patch, 'update', ctx);
    return { values, work: prepareWork(deps, object, 'data.afterUpdate', values, ctx) };
  } catch {
    return undefined;
  }
}

/**
 * Updates one record. `prepared` (prepareUpdate, for this patch and caller) spares the coercion
 * and carries the work prepared from the patch. What stays in the transaction is what reads the
 * locked stored record: the row and version checks, the before-hooks, the references and rules,
 * the history entry's old values (and the comparison that decides which fields changed), and the
 * after-handlers' work on the record as stored (the search index's words of the values it had).
 */
export async function updateRecord(
  deps: EngineDeps, scope: WriteScope, object: ResolvedObject,
  id: string, patch: DataRecord, options: WriteOptions, ctx: DataContext, prepared?: PreparedUpdate,
): Promise<DataRecord> {
  const { engine: tx, trx } = scope;
  if (!prepared) assertWritable(object, ctx, 'update');
  const work = prepared ? prepared.work : NOTHING_PREPARED;
  const { access, values: coerced } = await guardObject(deps, trx, object, ctx, 'edit', prepared ? prepared.values : coerceOrThrow(object, patch, 'update', ctx));
  const previous = await lockedRecord(trx, object, id, 'update');
  await guardRow(deps, trx, object, ctx, access, previous, coerced);
  if (access && object.name === USER_POSITION && !access.profile.grants.isAdmin) checkAssignmentChange(access.profile.model, previous, coerced, new Date());
  const version = Number(previous.version);
  checkVersion(options, version);
  const event = { object: object.name, id, previous, patch: coerced, ctx, engine: tx };
  const running = runHooks(deps.hooks, 'data.beforeUpdate', object.name, event);
  if (running) await running;
  const values = coerceOrThrow(object, event.patch, 'update', 'hook');
  // A lookup left as it was needs no read grant: the caller only sent back what the record holds.
  const references = referenceScope(deps, ctx, access ?? await readerAccess(deps, trx, ctx), (field) => values[field] === coerced[field] && values[field] !== previous[field]);
  // Built key by key: V8 makes a spread followed by more keys far slower than either alone.
  await checkRecord(deps, trx, object, values, Object.assign({}, previous, values), 'update', ctx, references, { sent: coerced, previous });
  const changes = Object.assign({}, values);
  changes.updated_at = new Date().toISOString();
  changes.updated_by = ctx.principal?.userId ?? null;
  const row = recordToRow(object, changes, dialectOf(trx));
  row.version = version + 1;
  const answer = await scope.answer(object, ctx);
  const returned = answer ? await write(object, () => updateReturning(trx, object.name, row, id, version, answer.columns)) : null;
  const count = returned ? returned.length : await write(object, () => runWrite(trx, trx(object.name).where({ id, version }).update(row)));
  if (count === 0) throw await versionConflict(trx, object, id, version);
  await writeHistory(deps, trx, object, { recordId: id, operation: 'update', version: version + 1, changes: updatedChanges(previous, values, work.history) }, ctx);
  const stored = returned ? answer!.record(returned[0]!) : await scope.read(object, id, ctx);
  const after = runHooks(deps.hooks, 'data.afterUpdate', object.name, { object: object.name, previous, record: stored, ctx, engine: tx }, work.hooks);
  if (after) await after;
  return stored;
}

export async function deleteRecord(
  deps: EngineDeps, scope: WriteScope, object: ResolvedObject,
  id: string, options: WriteOptions, ctx: DataContext,
): Promise<void> {
  const { engine: tx, trx } = scope;
  assertWritable(object, ctx, 'delete');
  const { access } = await guardObject(deps, trx, object, ctx, 'delete', {});
  const previous = await lockedRecord(trx, object, id, 'delete');
  await guardRow(deps, trx, object, ctx, access, previous);
  const version = Number(previous.version);
  checkVersion(options, version);
  // A delete into the trash says so to the hooks (`trash: true`): the record may come back.
  const trash = hasTrash(object);
  await runHooks(deps.hooks, 'data.beforeDelete', object.name, { object: object.name, previous, ctx, engine: tx, ...(trash ? { trash } : {}) });
  await refuseIfReferenced(deps, trx, object, id);
  const userId = ctx.principal?.userId ?? null;
  const count = await write(object, () => trash
    ? trx(object.name).where({ id, version }).whereNull(DELETED_AT).update({ [DELETED_AT]: encodeValue('datetime', new Date().toISOString(), dialectOf(trx)), [DELETED_BY]: userId, version: version + 1 })
    : trx(object.name).where({ id, version }).delete());
  if (count === 0) throw await versionConflict(trx, object, id, version);
  await writeHistory(deps, trx, object, { recordId: id, operation: 'delete', version: trash ? version + 1 : version, changes: NO_CHANGES }, ctx);
  await runHooks(deps.hooks, 'data.afterDelete', object.name, { object: object.name, previous, ctx, engine: tx, ...(trash ? { trash } : {}) });
}
