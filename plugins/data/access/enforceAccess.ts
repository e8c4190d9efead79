import type { Knex } from 'knex';
import type { Principal } from '../../../capabilities/authSession.ts';
import type { DataRecord } from '../../../capabilities/dataEngine.ts';
import { codedError } from '../../../kernel/errors.ts';
import type { ResolvedObject } from '../../../metadata/types.ts';
import { scopeSql } from '../query/compileQuery.ts';
import type { FieldGuard } from '../query/fieldScope.ts';
import type { ExpandNode, QueryAst, ScopeFilter } from '../query/types.ts';
import { dialectOf } from '../sql/dialect.ts';
import type { AccessProfile } from './accessService.ts';
import { permissionKey, type ObjectAction } from './objectPermissions.ts';
import type { Operation } from './rowScope.ts';

export function denied(principal: Principal, permission: string, extra: Record<string, unknown> = {}) {
  return codedError('PERMISSION_DENIED', { permission, subjectId: principal.userId, ...extra });
}

export function requireAction(profile: AccessProfile, principal: Principal, object: ResolvedObject, action: ObjectAction): void {
  if (!profile.perms(object)[action]) throw denied(principal, permissionKey(object.name, action), { object: object.name });
}

/** Naming a field one may not read is refused before the query runs: same answer whatever the field holds. */
export function fieldGuard(profile: AccessProfile, principal: Principal): FieldGuard {
  return (object, field) => {
    if (!profile.fields.canRead(object, field)) throw denied(principal, `${object}.${field}:read`, { object, field });
  };
}

/** Read scope of every object a query touches (the query's own, join targets, expanded objects). */
export function readScope(profile: AccessProfile): ScopeFilter {
  return (object) => profile.scope(object, 'read');
}

export function combineScopes(a: ScopeFilter | undefined, b: ScopeFilter | undefined): ScopeFilter | undefined {
  if (!a || !b) return a ?? b;
  return (object) => {
    const x = a(object);
    const y = b(object);
    return x && y ? { kind: 'and', items: [x, y] } : x ?? y;
  };
}

/** Removes unreadable fields from records, their joined aliases and expanded references. */
export function stripHidden(items: DataRecord[], ast: QueryAst, profile: AccessProfile): void {
  if (ast.aggregate) return;
  stripObject(items, ast.object, profile);
  for (const join of ast.joins) {
    stripObject(items.map((r) => r[join.alias]).filter(isRecord), join.object, profile);
  }
  stripExpanded(items, ast.expand, profile);
}

function stripExpanded(items: DataRecord[], nodes: readonly ExpandNode[], profile: AccessProfile): void {
  for (const node of nodes) {
    const targets = items.map((r) => r[node.field]).filter(isRecord);
    stripObject(targets, node.object, profile);
    stripExpanded(targets, node.children, profile);
  }
}

function stripObject(records: DataRecord[], object: ResolvedObject, profile: AccessProfile): void {
  if (records.length === 0) return;
  const hidden = profile.fields.hidden(object.name, Object.keys(records[0]!));
  if (hidden.length === 0) return;
  for (const record of records) for (const field of hidden) delete record[field];
}

const isRecord = (v: unknown): v is DataRecord => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Whether the row `id` is inside the caller's scope for an operation. */
async function inScope(trx: Knex, object: ResolvedObject, id: string, profile: AccessProfile, op: Operation): Promise<boolean> {
  return rowInScope(trx, object, id, () => profile.scope(object, op));
}

/** Whether the row `id` passes a scope filter (contributed scopes, say). */
export async function rowInScope(trx: Knex, object: ResolvedObject, id: string, filter: ScopeFilter | undefined): Promise<boolean> {
  const scope = scopeSql(filter, object, object.name, dialectOf(trx));
  if (!scope) return true;
  const row = await trx(object.name).where(`${object.name}.id`, id).andWhereRaw(`(${scope.sql})`, scope.bindings as Knex.RawBinding[]).first('id');
  return row !== undefined;
}

/**
 * Before an update or delete, once the object-level permission was checked: a record outside the
 * caller's read scope answers exactly like a missing one (404), a visible one it may not change 403.
 */
export async function checkRowWrite(trx: Knex, object: ResolvedObject, id: string, profile: AccessProfile, principal: Principal): Promise<void> {
  if (!(await inScope(trx, object, id, profile, 'read'))) {
    throw codedError('NOT_FOUND', { what: `${object.label} '${id.slice(0, 64)}'`, object: object.name, id: id.slice(0, 64) });
  }
  if (!(await inScope(trx, object, id, profile, 'edit'))) throw denied(principal, permissionKey(object.name, 'edit'), { object: object.name, id });
}

/** Writing a field one may not edit is refused, whether or not the value changes. */
export function checkWritableFields(object: ResolvedObject, input: DataRecord, profile: AccessProfile, principal: Principal): void {
  for (const field of Object.keys(input)) {
    if (!profile.fields.canEdit(object.name, field)) throw denied(principal, `${object.name}.${field}:edit`, { object: object.name, field });
  }
}

/** Only the record's owner-to-be or a user with modify all may give a record to someone else. */
export function checkOwnerChange(object: ResolvedObject, input: DataRecord, profile: AccessProfile, principal: Principal, currentOwner?: unknown): void {
  if (!object.owner || input.owner_id === undefined || input.owner_id === principal.userId || input.owner_id === currentOwner) return;
  if (currentOwner !== undefined && currentOwner === principal.userId) return;
  if (!profile.perms(object).modifyAll) throw denied(principal, permissionKey(object.name, 'modifyAll'), { object: object.name, field: 'owner_id' });
}
