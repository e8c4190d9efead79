import type { ResolvedObject } from '../../../metadata/types.ts';
import { objectColumns } from './objectColumns.ts';

/** A query an app declares (a list view, a dataset): the filters and sorts its users will run. */
export interface DeclaredQuery {
  /** What declares it, for the log and `osr doctor`: `view sales.open_deals`, `dataset pipeline`. */
  from: string;
  where?: Record<string, unknown>;
  orderBy?: ReadonlyArray<{ field: string; order?: 'asc' | 'desc' }>;
  /** A dataset's plain dimensions (grouped by the stored value). */
  groupBy?: readonly string[];
}

export interface DeclaredIndex {
  columns: string[];
  /** Per column: read in descending order (a sort's `desc`); absent when every column is ascending. */
  descending?: boolean[];
  /** The declarations this index serves. */
  from: string[];
}

export interface DeclaredIndexes {
  indexes: DeclaredIndex[];
  /** Declarations whose index was not made, and why (over the bound). Served ones are not listed. */
  skipped: Array<{ from: string; columns: string[]; reason: string }>;
}

/** Composite indexes made from declarations, at most this many per object (the rest are reported). */
export const DECLARED_INDEXES_PER_OBJECT = 5;
/** Columns of one such index at most. */
const MAX_COLUMNS = 5;
/** Types whose values are not compared as one column value. */
const UNINDEXED = new Set(['json', 'multiselect']);
const RANGE = new Set(['$gt', '$gte', '$lt', '$lte', '$between', '$in']);

/**
 * The index a declared query's page reads through: the columns its filter pins to one value
 * first (`=`, `$eq`, `$null: true`, a `{$cel}` operand), then its sort in its directions and the
 * id the engine orders ties by (or a dataset's group columns), then its first range (`$gt` ...
 * `$in`), so the page is read in order and stops after its rows; `$or`, `$not` and other
 * operators add nothing. Null when nothing indexable is named.
 */
export function queryIndexColumns(object: ResolvedObject, query: DeclaredQuery): Omit<DeclaredIndex, 'from'> | null {
  const { byName } = objectColumns(object);
  const column = (field: string): string | null => {
    const info = byName.get(field);
    return info && !UNINDEXED.has(info.type) ? info.column : null;
  };
  const equal: string[] = [];
  const ranges: string[] = [];
  const visit = (where: unknown): void => {
    if (where === null || typeof where !== 'object' || Array.isArray(where)) return;
    for (const [key, value] of Object.entries(where as Record<string, unknown>)) {
      if (key === '$and' && Array.isArray(value)) value.forEach(visit);
      if (key.startsWith('$')) continue;
      const col = column(key);
      if (col === null) continue;
      const kind = operandKind(value);
      if (kind === 'equal') equal.push(col);
      else if (kind === 'range') ranges.push(col);
    }
  };
  visit(query.where);
  const columns: string[] = [];
  const descending: boolean[] = [];
  const add = (col: string | null, desc = false) => {
    if (col === null || columns.includes(col) || columns.length >= MAX_COLUMNS) return;
    columns.push(col);
    descending.push(desc);
  };
  equal.forEach((col) => add(col));
  const sorts = query.orderBy ?? [];
  let whole = sorts.length > 0;
  // A sort column that is not stored (a formula, a lookup's path) ends what the index can order.
  for (const sort of sorts) {
    const col = column(sort.field);
    if (col === null) {
      whole = false;
      break;
    }
    add(col, sort.order === 'desc');
  }
  if (whole && query.groupBy === undefined) add('id');
  for (const group of query.groupBy ?? []) add(column(group));
  add(ranges[0] ?? null);
  if (columns.length === 0) return null;
  return descending.some(Boolean) ? { columns, descending } : { columns };
}

function operandKind(value: unknown): 'equal' | 'range' | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'equal';
  const ops = Object.keys(value as Record<string, unknown>);
  if (ops.length === 1 && ops[0] === '$cel') return 'equal';
  if (ops.includes('$eq')) {
    const operand = (value as Record<string, unknown>).$eq;
    return operand !== null && typeof operand === 'object' && '$field' in (operand as object) ? null : 'equal';
  }
  if ((value as Record<string, unknown>).$null === true) return 'equal';
  return ops.some((op) => RANGE.has(op)) ? 'range' : null;
}

/**
 * The composite indexes an object's declared queries need beyond `existing` (its own indexes,
 * objectIndexes): one per distinct column list, none that an existing index (or a longer
 * declared one) already begins with, single columns only where not indexed; at most
 * DECLARED_INDEXES_PER_OBJECT, in declaration order, the rest in `skipped`.
 */
export function declaredQueryIndexes(object: ResolvedObject, queries: readonly DeclaredQuery[], existing: ReadonlyArray<{ columns: readonly string[] }>): DeclaredIndexes {
  const wanted: DeclaredIndex[] = [];
  const key = (index: Omit<DeclaredIndex, 'from'>) => index.columns.map((c, i) => (index.descending?.[i] ? `${c} desc` : c));
  for (const query of queries) {
    const index = queryIndexColumns(object, query);
    if (index === null) continue;
    const same = wanted.find((w) => key(w).join() === key(index).join());
    if (same) same.from.push(query.from);
    else wanted.push({ ...index, from: [query.from] });
  }
  // Read backwards, an index serves the opposite directions too: compared by direction changes.
  const startsWith = (index: readonly string[], columns: readonly string[]) => {
    if (columns.length > index.length) return false;
    const flip = index[0]?.endsWith(' desc') !== columns[0]?.endsWith(' desc');
    const turned = (c: string) => (flip ? (c.endsWith(' desc') ? c.slice(0, -5) : `${c} desc`) : c);
    return columns.every((c, i) => index[i] === turned(c));
  };
  // An index another one begins with serves nothing more: its declarations are the longer one's.
  const kept = wanted.filter((w) => {
    if (existing.some((e) => startsWith(e.columns, key(w)))) return false;
    const longer = wanted.find((o) => o !== w && o.columns.length > w.columns.length && startsWith(key(o), key(w)));
    if (longer) longer.from.push(...w.from.filter((f) => !longer.from.includes(f)));
    return !longer;
  });
  return {
    indexes: kept.slice(0, DECLARED_INDEXES_PER_OBJECT),
    skipped: kept.slice(DECLARED_INDEXES_PER_OBJECT).flatMap((w) => w.from.map((from) => ({ from, columns: w.columns, reason: `over the bound of ${DECLARED_INDEXES_PER_OBJECT} declared indexes per object` }))),
  };
}
