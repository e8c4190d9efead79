import type { Knex } from 'knex';
import type { ResolvedObject } from '../../../metadata/types.ts';
import type { ScopeFilter } from '../query/types.ts';
import type { FieldError } from './coerceInput.ts';
import { unresolvedReferences } from './unresolvedReferences.ts';

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
 * values (unresolvedReferences.ts). A hidden record gets the very error of a missing one, so a
 * write is no existence oracle; the referenced rows are key-share locked on PostgreSQL.
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
  for (const [target, refs] of byTarget) {
    for (const ref of await unresolvedReferences(trx, target, refs, scope, objectOf)) errors.push({ path: ref.field, message: `no ${target} record has id '${ref.id.slice(0, 64)}'` });
  }
  return errors;
}
