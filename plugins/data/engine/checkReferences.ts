import type { Knex } from 'knex';
import type { ResolvedObject } from '../../../metadata/types.ts';
import { dialectOf } from '../sql/dialect.ts';
import type { FieldError } from './coerceInput.ts';

/**
 * Lookup values must name existing records of the referenced object: one query per referenced object.
 * On PostgreSQL the referenced rows are key-share locked until commit, so a concurrent delete
 * (which locks its row for update, then looks for references) either waits and sees this record,
 * or wins and this check finds the target gone. SQLite has one writer and needs no lock.
 */
export async function checkReferences(trx: Knex.Transaction | Knex, object: ResolvedObject, values: Record<string, unknown>): Promise<FieldError[]> {
  const byTarget = new Map<string, { field: string; id: string }[]>();
  for (const [name, value] of Object.entries(values)) {
    const field = object.fields[name];
    if (field?.type !== 'lookup' || typeof value !== 'string' || !field.reference) continue;
    byTarget.set(field.reference, [...(byTarget.get(field.reference) ?? []), { field: name, id: value }]);
  }
  const errors: FieldError[] = [];
  for (const [target, refs] of byTarget) {
    const query = trx(target).whereIn('id', refs.map((r) => r.id)).select('id');
    const rows = (await (dialectOf(trx) === 'postgres' ? query.forKeyShare() : query)) as Array<{ id: string }>;
    const found = new Set(rows.map((r) => r.id));
    for (const ref of refs) if (!found.has(ref.id)) errors.push({ path: ref.field, message: `no ${target} record has id '${ref.id.slice(0, 64)}'` });
  }
  return errors;
}
