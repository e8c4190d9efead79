import type { Knex } from 'knex';
import type { ResolvedObject } from '../../../metadata/types.ts';
import { scopeSql } from '../query/compileQuery.ts';
import type { ScopeFilter } from '../query/types.ts';
import { dialectOf } from '../sql/dialect.ts';
import type { FieldError } from './coerceInput.ts';
import { DELETED_AT, hasTrash } from './trash.ts';

/** The caller's read scope, for lookups set by the caller: absent for engine work. */
export interface ReferenceScope {
  /** Row security and contributed scopes of a read, per object (null: every row). */
  filter: ScopeFilter;
  object(name: string): ResolvedObject | undefined;
  /** Whether this lookup's value is the caller's own choice (not kept as it was, not set by a hook). */
  applies(field: string): boolean;
}

/**
 * Lookup values must name existing records of the referenced object, and a value the caller chose
 * must name a record the caller may read: one query per referenced object, whatever the number of
 * values. A hidden record gets the very error of a missing one, so a write is no existence oracle.
 * On PostgreSQL the referenced rows are key-share locked until commit, so a concurrent delete
 * (which locks its row for update, then looks for references) either waits and sees this record,
 * or wins and this check finds the target gone. SQLite has one writer and needs no lock.
 */
export async function checkReferences(
  trx: Knex.Transaction | Knex, object: ResolvedObject, values: Record<string, unknown>, scope?: ReferenceScope,
  objectOf?: (name: string) => ResolvedObject | undefined,
): Promise<FieldError[]> {
  const byTarget = new Map<string, { field: string; id: string; scoped: boolean }[]>();
  for (const [name, value] of Object.entries(values)) {
    const field = object.fields[name];
    if (field?.type !== 'lookup' || typeof value !== 'string' || !field.reference) continue;
    const ref = { field: name, id: value, scoped: scope?.applies(name) === true };
    byTarget.set(field.reference, [...(byTarget.get(field.reference) ?? []), ref]);
  }
  const errors: FieldError[] = [];
  const dialect = dialectOf(trx);
  for (const [target, refs] of byTarget) {
    const query = trx(target).whereIn('id', refs.map((r) => r.id)).select('id');
    // A record in the trash is no record to point to, whoever sets the lookup.
    const meta = objectOf?.(target);
    if (meta && hasTrash(meta)) query.whereNull(DELETED_AT);
    const targetObject = scope?.object(target);
    const visibility = scope && refs.some((r) => r.scoped) && targetObject ? scopeSql(scope.filter, targetObject, target, dialect) : null;
    // Unknown target metadata cannot be scoped: nothing of it counts as visible.
    const unscopable = scope !== undefined && refs.some((r) => r.scoped) && !targetObject;
    if (visibility) query.select(trx.raw(`case when (${visibility.sql}) then 1 else 0 end as visible`, visibility.bindings as Knex.RawBinding[]));
    const rows = (await (dialect === 'postgres' ? query.forKeyShare() : query)) as Array<{ id: string; visible?: unknown }>;
    const found = new Set(rows.map((r) => r.id));
    const visible = new Set(rows.filter((r) => !visibility || Number(r.visible) === 1).map((r) => r.id));
    for (const ref of refs) {
      const ok = ref.scoped ? !unscopable && visible.has(ref.id) : found.has(ref.id);
      if (!ok) errors.push({ path: ref.field, message: `no ${target} record has id '${ref.id.slice(0, 64)}'` });
    }
  }
  return errors;
}
