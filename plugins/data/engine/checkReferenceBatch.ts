import type { Knex } from 'knex';
import type { ResolvedObject } from '../../../metadata/types.ts';
import type { ReferenceScope } from './checkReferences.ts';
import type { FieldError } from './coerceInput.ts';
import { unresolvedReferences } from './unresolvedReferences.ts';

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
  for (const [target, refs] of byTarget) failed.push(...await unresolvedReferences(trx, target, refs, scope, objectOf));
  const errors = new Map<number, FieldError[]>();
  failed.sort((a, b) => a.index - b.index || a.rank[0] - b.rank[0] || a.rank[1] - b.rank[1]);
  for (const ref of failed) {
    const list = errors.get(ref.index) ?? [];
    list.push({ path: ref.field, message: `no ${object.fields[ref.field]!.reference} record has id '${ref.id.slice(0, 64)}'` });
    errors.set(ref.index, list);
  }
  return errors;
}
