import type { ResolvedObject } from '../../../metadata/types.ts';
import { objectColumns } from '../sql/objectColumns.ts';

/**
 * What an index can do for one query, read from the query as sent: the fields its top-level
 * conditions fix to one value (equality), the fields they bound (range: `$gt`, `$gte`, `$lt`,
 * `$lte`, `$between`, `$startsWith`, `$in`), and its sort. Conditions under `$or`, `$not`, on a
 * joined alias, or with operators no b-tree index serves (`$ne`, `$contains`, ...) are left out.
 * Columns, not field names: what the index is built on.
 */
export interface IndexShape {
  object: string;
  equality: string[];
  range: string[];
  sort: Array<{ column: string; direction: 'asc' | 'desc' }>;
}

const RANGE = new Set(['$gt', '$gte', '$lt', '$lte', '$between', '$startsWith', '$in']);

/** The shape of a query input (`where` as an object or its JSON text, `orderBy` as `-a,b` or a list); null when it has nothing an index serves. */
export function indexShapeOf(input: Record<string, unknown>, object: ResolvedObject): IndexShape | null {
  const { byName } = objectColumns(object);
  const columnOf = (field: string): string | null => byName.get(field)?.column ?? null;
  const equality = new Set<string>();
  const range = new Set<string>();
  const visit = (where: unknown) => {
    if (typeof where !== 'object' || where === null || Array.isArray(where)) return;
    for (const [key, value] of Object.entries(where)) {
      if (key === '$and' && Array.isArray(value)) {
        for (const part of value) visit(part);
        continue;
      }
      const column = columnOf(key);
      if (column === null) continue;
      if (typeof value !== 'object' || value === null) {
        if (value !== null) equality.add(column);
        continue;
      }
      if (Array.isArray(value)) continue;
      for (const [op, operand] of Object.entries(value)) {
        if (op === '$eq' && operand !== null && (typeof operand !== 'object' || operand === null)) equality.add(column);
        else if (op === '$in' && Array.isArray(operand) && operand.length === 1) equality.add(column);
        else if (RANGE.has(op)) range.add(column);
      }
    }
  };
  let where = input.where;
  if (typeof where === 'string') {
    try {
      where = JSON.parse(where);
    } catch {
      where = null;
    }
  }
  visit(where);
  for (const column of equality) range.delete(column);
  const sort: IndexShape['sort'] = [];
  for (const entry of sortEntries(input.orderBy)) {
    const column = columnOf(entry.field);
    if (column === null || column === 'id' || sort.some((s) => s.column === column)) continue;
    sort.push({ column, direction: entry.direction });
  }
  if (equality.size === 0 && range.size === 0 && sort.length === 0) return null;
  return { object: object.name, equality: [...equality].sort(), range: [...range].sort(), sort };
}

function sortEntries(input: unknown): Array<{ field: string; direction: 'asc' | 'desc' }> {
  const entries: unknown[] = typeof input === 'string' ? input.split(',').map((s) => s.trim()).filter(Boolean) : Array.isArray(input) ? input : input === undefined || input === null ? [] : [input];
  return entries.flatMap((entry) => {
    if (typeof entry === 'string') {
      const desc = entry.startsWith('-');
      return [{ field: desc || entry.startsWith('+') ? entry.slice(1) : entry, direction: desc ? 'desc' as const : 'asc' as const }];
    }
    if (typeof entry === 'object' && entry !== null && typeof (entry as { field?: unknown }).field === 'string') {
      const e = entry as { field: string; order?: unknown };
      return [{ field: e.field, direction: String(e.order ?? 'asc').toLowerCase() === 'desc' ? 'desc' as const : 'asc' as const }];
    }
    return [];
  });
}

/** A stable key of a shape (the recorder groups executions by it). */
export function shapeKey(shape: IndexShape): string {
  return JSON.stringify([shape.object, shape.equality, shape.range, shape.sort.map((s) => `${s.direction === 'desc' ? '-' : ''}${s.column}`)]);
}

/**
 * The composite index that serves a shape: its equality columns first (any order serves them),
 * then its sort columns in sort order (an index read forwards or backwards gives that order with
 * the equalities fixed), then its range columns not yet named (tested in the index, not the table).
 * `status = ? and priority >= ? order by priority desc, due_date` gives status, priority, due_date.
 */
export function adviseColumns(shape: IndexShape): string[] {
  const columns = [...shape.equality];
  for (const { column } of shape.sort) if (!columns.includes(column)) columns.push(column);
  for (const column of shape.range) if (!columns.includes(column)) columns.push(column);
  return columns;
}

/**
 * Whether the sort can be read from an index whose columns are all ascending (as declared indexes
 * and those the database lists are taken): every sort column in one direction (a backward scan
 * gives all descending). Mixed directions need the advised index, which names each direction.
 */
export function plainIndexSorts(shape: IndexShape): boolean {
  return shape.sort.every((s) => s.direction === shape.sort[0]!.direction);
}

/**
 * Whether an index on `index` (its columns in order) serves the advice as well as the advised one:
 * it starts with the equality columns in any order, then the rest of the advice in order.
 */
export function indexServes(index: readonly string[], advice: readonly string[], equalityCount: number): boolean {
  if (index.length < advice.length) return false;
  const head = new Set(index.slice(0, equalityCount));
  for (const column of advice.slice(0, equalityCount)) if (!head.has(column)) return false;
  for (let i = equalityCount; i < advice.length; i++) if (index[i] !== advice[i]) return false;
  return true;
}
