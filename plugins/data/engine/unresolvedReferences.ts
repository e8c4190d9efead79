import type { Knex } from 'knex';
import type { ResolvedObject } from '../../../metadata/types.ts';
import { scopeSql } from '../query/compileQuery.ts';
import { dialectOf } from '../sql/dialect.ts';
import type { ReferenceScope } from './checkReferences.ts';
import { DELETED_AT, hasTrash } from './trash.ts';

/** A lookup value to resolve: the record id it names, and whether the caller's read scope applies to it. */
export interface WantedReference {
  id: string;
  scoped: boolean;
}

/**
 * The lookups of `refs` (all naming records of `target`) that do not resolve, in one query: a
 * missing record, one in the trash, or (for a scoped one) a record the caller may not read, which
 * gets the very answer of a missing one. On PostgreSQL the rows found are key-share locked until
 * commit, so a concurrent delete either waits and sees the reference or wins and this finds the
 * target gone; SQLite has one writer and needs no lock.
 */
export async function unresolvedReferences<R extends WantedReference>(
  trx: Knex.Transaction | Knex, target: string, refs: readonly R[], scope: ReferenceScope | undefined,
  objectOf: ((name: string) => ResolvedObject | undefined) | undefined,
): Promise<R[]> {
  const dialect = dialectOf(trx);
  const query = trx(target).whereIn('id', [...new Set(refs.map((r) => r.id))]).select('id');
  // A record in the trash is no record to point to, whoever sets the lookup.
  const meta = objectOf?.(target);
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
  return refs.filter((ref) => !(ref.scoped ? !unscopable && visible.has(ref.id) : found.has(ref.id)));
}
