import type { ResolvedObject } from '../../../metadata/types.ts';
import type { Condition, FieldRef, ScopeFilter } from '../query/types.ts';

/**
 * The trash: a delete of an object with `enable.trash` (or `restore` in its apiMethods) stamps the
 * row with these columns instead of removing it. They are no fields: no read, query, filter or
 * write names them, and every read path hides a stamped row (see `hideTrashed`).
 */
export const DELETED_AT = 'deleted_at';
export const DELETED_BY = 'deleted_by';

export function hasTrash(object: ResolvedObject): boolean {
  return object.enable?.trash === true;
}

function column(object: ResolvedObject, name: string, type: 'datetime' | 'text'): FieldRef {
  return { alias: null, object: object.name, name, column: name, type, seqColumn: null };
}

const live = new WeakMap<ResolvedObject, Condition>();

/** `deleted_at is null`, one condition object per object (compiled scopes are cached by identity). */
function notTrashed(object: ResolvedObject): Condition {
  let condition = live.get(object);
  if (!condition) live.set(object, (condition = { kind: 'null', target: { kind: 'field', ref: column(object, DELETED_AT, 'datetime') }, isNull: true }));
  return condition;
}

const combined = new WeakMap<Condition, Condition>();

/**
 * A scope filter that also hides trashed rows of every object it is asked about: the query's own,
 * join targets and expanded lookups. Its conditions are stable objects for stable inputs, so cached
 * plans and compiled scopes keep holding (the trash condition never changes with the data).
 */
export function hideTrashed(filter: ScopeFilter | undefined): ScopeFilter {
  return (object) => {
    const scope = filter?.(object) ?? null;
    if (!hasTrash(object)) return scope;
    if (!scope) return notTrashed(object);
    let both = combined.get(scope);
    if (!both) combined.set(scope, (both = { kind: 'and', items: [scope, notTrashed(object)] }));
    return both;
  };
}

/**
 * The trash listing's filter: trashed rows of `base` only (those `deletedBy` deleted, unless null),
 * inside `filter`; any other object read alongside (expand) hides its trashed rows as usual.
 */
export function onlyTrashed(base: ResolvedObject, deletedBy: string | null, filter: ScopeFilter | undefined): ScopeFilter {
  const hidden = hideTrashed(filter);
  const items: Condition[] = [{ kind: 'null', target: { kind: 'field', ref: column(base, DELETED_AT, 'datetime') }, isNull: false }];
  if (deletedBy !== null) {
    items.push({ kind: 'compare', target: { kind: 'field', ref: column(base, DELETED_BY, 'text') }, op: 'eq', operand: { kind: 'value', value: deletedBy } });
  }
  return (object) => {
    if (object !== base) return hidden(object);
    const scope = filter?.(object) ?? null;
    return { kind: 'and', items: scope ? [scope, ...items] : items };
  };
}

/**
 * A scope with the trash's own test taken out (what a count of live rows only needs): null when
 * nothing else limits the rows, undefined when the scope tests the trash otherwise (the trash
 * listing), which such a count cannot answer.
 */
export function withoutTrash(object: ResolvedObject, scope: Condition | null): Condition | null | undefined {
  if (!hasTrash(object)) return scope;
  // A read of a trash object without the trash's test counts trashed rows too.
  if (scope === null) return undefined;
  const trash = notTrashed(object);
  if (scope === trash) return null;
  if (scope.kind === 'and' && scope.items.length === 2 && scope.items[1] === trash) return scope.items[0]!;
  return undefined;
}
