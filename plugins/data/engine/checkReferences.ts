import type { Knex } from 'knex';
import type { ResolvedObject } from '../../../metadata/types.ts';
import type { FieldError } from './coerceInput.ts';

/** Lookup values must name existing records of the referenced object: one query per referenced object. */
export async function checkReferences(trx: Knex.Transaction | Knex, object: ResolvedObject, values: Record<string, unknown>): Promise<FieldError[]> {
  const byTarget = new Map<string, { field: string; id: string }[]>();
  for (const [name, value] of Object.entries(values)) {
    const field = object.fields[name];
    if (field?.type !== 'lookup' || typeof value !== 'string' || !field.reference) continue;
    byTarget.set(field.reference, [...(byTarget.get(field.reference) ?? []), { field: name, id: value }]);
  }
  const errors: FieldError[] = [];
  for (const [target, refs] of byTarget) {
    const found = new Set((await trx(target).whereIn('id', refs.map((r) => r.id)).select('id')).map((r: { id: string }) => r.id));
    for (const ref of refs) if (!found.has(ref.id)) errors.push({ path: ref.field, message: `no ${target} record has id '${ref.id.slice(0, 64)}'` });
  }
  return errors;
}
