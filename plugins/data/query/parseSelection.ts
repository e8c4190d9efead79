import type { ResolvedField } from '../../../metadata/types.ts';
import { objectColumns } from '../sql/objectColumns.ts';
import type { FieldScope } from './fieldScope.ts';
import type { QueryIssues } from './queryErrors.ts';
import { isPlainObject, pathJoin, show } from './queryErrors.ts';
import { QUERY_LIMITS } from './queryLimits.ts';
import type { ExpandNode, JoinNode, ObjectRegistry, SelectItem, SortKey } from './types.ts';

/** `a,b` or `['a','b']` -> names; anything else is an issue. */
export function nameList(input: unknown, path: string, issues: QueryIssues, limit?: 'fields' | 'expandPaths'): string[] | null {
  if (input === undefined) return null;
  let names: string[] | null = null;
  if (typeof input === 'string') names = input.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
  else if (Array.isArray(input) && input.every((s) => typeof s === 'string')) names = input as string[];
  if (names === null) {
    issues.add(path, 'must be an array of field names or a comma-separated string');
    return null;
  }
  const max = limit ? QUERY_LIMITS[limit] : Infinity;
  if (names.length > max) {
    issues.over(path, limit!, max, `${path} takes at most ${max} names, not ${names.length}`);
    return null;
  }
  return names;
}

export interface Selection {
  select: SelectItem[];
  formulas: ResolvedField[];
  /** Keys to return, in order; null returns every column read plus formulas. */
  output: string[] | null;
}

/** The projection. Without `fields`, every column of the object and of each join is read. */
export function parseSelection(input: unknown, path: string, scope: FieldScope, joins: JoinNode[], issues: QueryIssues, distinct: boolean): Selection {
  const names = nameList(input, path, issues, 'fields');
  const base = objectColumns(scope.object);
  const all = (): SelectItem[] => [
    ...base.columns.map((c) => item(scope.object.name, null, c.name, c.column, c.type, c.seqColumn, c.name)),
    ...joins.flatMap((j) => objectColumns(j.object).columns.map((c) => item(j.object.name, j.alias, c.name, c.column, c.type, c.seqColumn, `${j.alias}.${c.name}`))),
  ];
  if (names === null || names.length === 0) return { select: all(), formulas: [...base.formulas.values()], output: null };
  const select: SelectItem[] = [];
  const formulas: ResolvedField[] = [];
  names.forEach((name, i) => {
    const resolved = scope.resolve(name);
    if (resolved.ok) {
      if (!select.some((s) => s.key === resolved.key)) select.push({ ref: resolved.ref, key: resolved.key });
    } else if (resolved.formula && !distinct) {
      formulas.push(resolved.formula);
    } else {
      issues.add(pathJoin(path, i), resolved.formula ? `'${name}' is a formula field and cannot be used with distinct` : resolved.message);
    }
  });
  if (distinct) return { select, formulas, output: select.map((s) => s.key) };
  const output = [...new Set(['id', ...names])];
  // Formulas read the whole record; id is always returned so rows can be addressed and expanded.
  const read = formulas.length > 0 ? all().filter((s) => s.ref.alias === null) : [];
  for (const s of [...read, ...select]) if (!readSelect(select, s.key)) select.push(s);
  if (!readSelect(select, 'id')) select.unshift(item(scope.object.name, null, 'id', 'id', 'text', null, 'id'));
  return { select, formulas, output };
}

function readSelect(select: SelectItem[], key: string): boolean {
  return select.some((s) => s.key === key);
}

function item(object: string, alias: string | null, name: string, column: string, type: SelectItem['ref']['type'], seqColumn: string | null, key: string): SelectItem {
  return { ref: { alias, object, name, column, type, seqColumn }, key };
}

export interface RawSort {
  field: string;
  direction: 'asc' | 'desc';
  path: string;
}

/** orderBy as `[{field, order}]`, `['-priority', 'name']` or `'-priority,name'`. */
export function parseSortList(input: unknown, issues: QueryIssues): RawSort[] {
  if (input === undefined) return [];
  const entries: unknown[] = typeof input === 'string' ? input.split(',').map((s) => s.trim()).filter(Boolean) : Array.isArray(input) ? input : [input];
  const out: RawSort[] = [];
  if (entries.length > QUERY_LIMITS.orderBy) {
    issues.over('orderBy', 'orderBy', QUERY_LIMITS.orderBy, `orderBy takes at most ${QUERY_LIMITS.orderBy} sort keys, not ${entries.length}`);
    return out;
  }
  entries.forEach((entry, i) => {
    const path = typeof input === 'string' ? 'orderBy' : pathJoin('orderBy', i);
    if (typeof entry === 'string') {
      const desc = entry.startsWith('-');
      out.push({ field: desc || entry.startsWith('+') ? entry.slice(1) : entry, direction: desc ? 'desc' : 'asc', path });
      return;
    }
    if (!isPlainObject(entry) || typeof entry.field !== 'string') {
      issues.add(path, 'a sort node is {field, order: "asc" | "desc"}');
      return;
    }
    for (const key of Object.keys(entry)) if (key !== 'field' && key !== 'order') issues.add(pathJoin(path, key), `unknown sort key '${key}'`);
    const order = entry.order === undefined ? 'asc' : typeof entry.order === 'string' ? entry.order.toLowerCase() : entry.order;
    if (order !== 'asc' && order !== 'desc') {
      issues.add(pathJoin(path, 'order'), `order must be 'asc' or 'desc', not ${show(entry.order)}`);
      return;
    }
    out.push({ field: entry.field, direction: order, path: pathJoin(path, 'field') });
  });
  return out;
}

/** Sort keys of a record query: columns only (json, multiselect and formulas cannot be ordered in SQL). */
export function parseRecordSort(raw: RawSort[], scope: FieldScope, issues: QueryIssues): SortKey[] {
  const keys: SortKey[] = [];
  for (const sort of raw) {
    const resolved = scope.resolve(sort.field);
    if (!resolved.ok) {
      issues.add(sort.path, resolved.formula ? `'${sort.field}' is a formula field: it is computed after reading and cannot be sorted on` : resolved.message);
      continue;
    }
    if (resolved.ref.type === 'json' || resolved.ref.type === 'multiselect') {
      issues.add(sort.path, `'${sort.field}' is a ${resolved.ref.type} field and cannot be sorted on`);
      continue;
    }
    keys.push({ target: { kind: 'field', ref: resolved.ref }, direction: sort.direction });
  }
  return keys;
}

const MAX_EXPAND_DEPTH = QUERY_LIMITS.expandDepth;

/** expand paths -> a tree of lookup fields, one level per dotted segment. */
export function parseExpand(input: unknown, scope: FieldScope, registry: ObjectRegistry, issues: QueryIssues): ExpandNode[] {
  const paths = nameList(input, 'expand', issues, 'expandPaths') ?? [];
  const roots: ExpandNode[] = [];
  paths.forEach((path, i) => {
    const segments = path.split('.');
    if (segments.length > MAX_EXPAND_DEPTH) {
      issues.over(pathJoin('expand', i), 'expandDepth', MAX_EXPAND_DEPTH, `expand paths go at most ${MAX_EXPAND_DEPTH} levels deep`);
      return;
    }
    let object = scope.object;
    let level = roots;
    for (const segment of segments) {
      const field = Object.hasOwn(object.fields, segment) ? object.fields[segment] : undefined;
      const target = field?.type === 'lookup' && field.reference ? registry.get(field.reference) : undefined;
      if (!field || field.type !== 'lookup' || !target) {
        const why = !field ? `unknown field '${segment}' on object '${object.name}'` : field.type !== 'lookup' ? `'${segment}' on object '${object.name}' is not a lookup field` : `the object '${field.reference}' referenced by '${segment}' is unknown`;
        issues.add(pathJoin('expand', i), `cannot expand ${show(path)}: ${why}`);
        return;
      }
      scope.guard?.(object.name, segment);
      let node = level.find((n) => n.field === segment);
      if (!node) {
        node = { field: segment, column: segment, object: target, children: [] };
        level.push(node);
      }
      object = target;
      level = node.children;
    }
  });
  return roots;
}
