import type { Knex } from 'knex';
import type { ResolvedObject } from '../../../metadata/types.ts';
import { scopeSql } from '../query/compileQuery.ts';
import { dialectOf } from '../sql/dialect.ts';
import type { ReferenceScope } from './checkReferences.ts';
import type { FieldError } from './coerceInput.ts';
import { DELETED_AT, hasTrash } from './trash.ts';

/** One record's values to check, and the caller's read scope for its lookups (none for engine work). */
export interface BatchReference {
  /** The record's place in the batch: its errors are reported under it. */
  index: number;
  values: Record<string, unknown>;
  scope: ReferenceScope | undefined;
}

interface Wanted {
  index: number;
  field: string;
  id: string;
  scoped: boolean;
  /** Where checkReferences would report it among the record's errors: by referenced object, then field. */
  rank: [number, number];
}

/**
 * checkReferences (checkReferences.ts) for a batch of records: one query per referenced object
 * for the whole batch. Each lookup must name an existing record of its object, and one the caller
 * chose must name a record the caller may read; a hidden record gets the very error of a missing
 * one. Records of one batch share a caller, so they share its read scope; which of their lookups
 * it applies to is each record's own. The referenced rows are key-share locked on PostgreSQL.
 */
export async function checkReferenceBatch(
  trx: Knex.Transaction, object: ResolvedObject, records: readonly BatchReference[], objectOf: (name: string) => ResolvedObject | undefined,
): Promise<Map<number, FieldError[]>> {
  const byTarget = new Map<string, Wanted[]>();
  let scope: ReferenceScope | undefined;
  for (const record of records) {
    scope ??= record.scope;
    const targets: string[] = [];
    for (const [i, [name, value]] of Object.entries(record.values).entries()) {
      const field = object.fields[name];
      if (field?.type !== 'lookup' || typeof value !== 'string' || !field.reference) continue;
      if (!targets.includes(field.reference)) targets.push(field.reference);
      const list = byTarget.get(field.reference) ?? [];
      list.push({ index: record.index, field: name, id: value, scoped: record.scope?.applies(name) === true, rank: [targets.indexOf(field.reference), i] });
      byTarget.set(field.reference, list);
    }
  }
  const failed: Wanted[] = [];
  const dialect = dialectOf(trx);
  for (const [target, refs] of byTarget) {
    const query = trx(target).whereIn('id', [...new Set(refs.map((r) => r.id))]).select('id');
    // A record in the trash is no record to point to, whoever sets the lookup.
    const meta = objectOf(target);
    if (meta && hasTrash(meta)) query.whereNull(DELETED_AT);
    const anyScoped = scope !== undefined && refs.some((r) => r.scoped);
    const targetObject = anyScoped ? scope!.object(target) : undefined;
    const visibility = anyScoped && targetObject ? scopeSql(scope!.filter, targetObject, target, dialect) : null;
    // Unknown target metadata cannot be scoped: nothing of it counts as visible.
    const unscopable = anyScoped && !targetObject;
    if (visibility) query.select(trx.raw(`case when (${visibility.sql}) then 1 else 0 end as visible`, visibility.bindings as Knex.RawBinding[]));
    const rows = (await (dialect === 'postgres' ? query.forKeyShare() : query)) as Array<{ id: string; visible?: unknown }>;
    const found = new Set(rows.map((r) => r.id));
    const visible = new Set(rows.filter((r) => !visibility || Number(r.visible) === 1).map((r) => r.id));
    for (const ref of refs) {
      const ok = ref.scoped ? !unscopable && visible.has(ref.id) : found.has(ref.id);
      if (!ok) failed.push(ref);
    }
  }
  const errors = new Map<number, FieldError[]>();
  failed.sort((a, b) => a.index - b.index || a.rank[0] - b.rank[0] || a.rank[1] - b.rank[1]);
  for (const ref of failed) {
    const list = errors.get(ref.index) ?? [];
    list.push({ path: ref.field, message: `no ${object.fields[ref.field]!.reference} record has id '${ref.id.slice(0, 64)}'` });
    errors.set(ref.index, list);
  }
  return errors;
}
