import type { ResolvedObject } from '../../../metadata/types.ts';
import { objectIndexes } from '../sql/desiredSchema.ts';
import { decideScope, exactColumn, isExactValue, settled } from './narrowScope.ts';
import type { Condition, FieldRef, GroupKey } from './types.ts';

/** One part of a partitioned aggregation: the rows whose group key is among `values` (or, for `rest`, none of them). */
export interface ScopeBranch {
  /** The key values of this part; with `rest`, the values it excludes (those of the other parts). */
  values: unknown[];
  /** The part holds every key value but `values`, and NULL. */
  rest: boolean;
  /** The scope that remains for these rows (null: every row of the part is visible). */
  scope: Condition | null;
}

export interface ScopePartition {
  key: FieldRef;
  branches: ScopeBranch[];
}

/** The rows of a branch, as a condition on the key (NULL keys fall in the rest). */
export function branchKeyCondition(key: FieldRef, branch: ScopeBranch): Condition {
  return { kind: 'in', target: { kind: 'field', ref: key }, values: branch.values, negate: branch.rest };
}

/** More tested values than this and the partition is not worth its statements. */
const MAX_TESTED_VALUES = 8;
const MAX_BRANCHES = 4;

/**
 * A scoped aggregation split by the value of a group key the scope itself tests. A row policy
 * such as `status in ('open', 'active') OR owner = me`, grouped by status, admits every row of
 * the open and active groups and only the caller's own rows of the others: counting the two
 * parts separately lets the first read an index on status alone, with no row lookups, and the
 * second find the caller's rows through the owner's index. Each group falls wholly in one part,
 * so every aggregate (count, sum, distinct counts, lists) is that part's own result.
 *
 * Returns null when no split pays: no group key is tested by the scope, no part would be
 * unrestricted, or a restricted part could not be found through an index (it would scan the
 * table, and the split would read more than the plain query).
 */
export function partitionScope(scope: Condition, groupBy: GroupKey[], object: ResolvedObject): ScopePartition | null {
  const indexed = leadingIndexColumns(object);
  for (const group of groupBy) {
    if (group.granularity !== null || group.ref.alias !== null || exactColumn({ kind: 'field', ref: group.ref }) === null) continue;
    const partition = partitionBy(scope, group.ref, indexed);
    if (partition) return partition;
  }
  return null;
}

/**
 * A plain count under a scope, split the same way by a column the scope itself tests: every row
 * falls in one part, so the total is the sum of the parts' counts. For `status in (...) OR owner =
 * me` the policy's statuses are counted through the status index alone and the caller's other rows
 * through the owner's index, where the whole scope would read every row the policy admits. The
 * owner column is tried last: its part is one caller's rows, the one worth restricting.
 */
export function partitionCount(scope: Condition, object: ResolvedObject): ScopePartition | null {
  // A caller's scope is one condition object while its grants hold (compileQuery.ts): decided once.
  let known = countPartitions.get(object);
  if (!known) countPartitions.set(object, (known = new WeakMap()));
  if (known.has(scope)) return known.get(scope)!;
  const partition = findCountPartition(scope, object);
  known.set(scope, partition);
  return partition;
}

const countPartitions = new WeakMap<ResolvedObject, WeakMap<Condition, ScopePartition | null>>();

function findCountPartition(scope: Condition, object: ResolvedObject): ScopePartition | null {
  const indexed = leadingIndexColumns(object);
  const refs = new Map<string, FieldRef>();
  const visit = (node: Condition) => {
    if (node.kind === 'and' || node.kind === 'or') node.items.forEach(visit);
    else if ((node.kind === 'compare' || node.kind === 'in') && node.target.kind === 'field' && node.target.ref.alias === null && exactColumn(node.target) !== null) {
      refs.set(node.target.ref.column, node.target.ref);
    }
  };
  visit(scope);
  const candidates = [...refs.values()].sort((a, b) => Number(a.column === 'owner_id') - Number(b.column === 'owner_id'));
  for (const ref of candidates) {
    const partition = partitionBy(scope, ref, indexed);
    if (partition) return partition;
  }
  return null;
}

function partitionBy(scope: Condition, key: FieldRef, indexed: ReadonlySet<string>): ScopePartition | null {
  const tested = testedValues(scope, key.column);
  if (tested.length === 0 || tested.length > MAX_TESTED_VALUES) return null;
  const testedSet = new Set(tested);
  const branches: ScopeBranch[] = [];
  const add = (value: unknown | null, narrowed: Condition | null) => {
    if (narrowed && narrowed.kind === 'or' && narrowed.items.length === 0) return; // no row of the part is visible
    const same = branches.find((b) => sameCondition(b.scope, narrowed));
    if (value === null) {
      if (same) same.rest = true;
      else branches.push({ values: [], rest: true, scope: narrowed });
    } else if (same) same.values.push(value);
    else branches.push({ values: [value], rest: false, scope: narrowed });
  };
  for (const value of tested) {
    add(value, settled(decideScope(scope, (column, v) => (column === key.column ? v === value : undefined))));
  }
  // Every other key value, and NULL: no positive test of the key holds.
  add(null, settled(decideScope(scope, (column, v) => (column === key.column && testedSet.has(v) ? false : undefined))));
  // The rest part is written as "none of the values the other parts hold (or NULL)".
  for (const branch of branches) {
    if (branch.rest) branch.values = tested.filter((v) => branches.some((b) => b !== branch && b.values.includes(v)));
  }
  if (branches.length < 2 || branches.length > MAX_BRANCHES) return null;
  if (!branches.some((b) => b.scope === null)) return null;
  if (!branches.every((b) => b.scope === null || findable(b.scope, indexed))) return null;
  return { key, branches };
}

/** Exact values the scope compares the column with in positive tests (outside any `not`). */
function testedValues(scope: Condition, column: string): unknown[] {
  const values: unknown[] = [];
  const visit = (node: Condition) => {
    if (node.kind === 'and' || node.kind === 'or') node.items.forEach(visit);
    else if (node.kind === 'compare' && node.op === 'eq' && node.operand.kind === 'value' && exactColumn(node.target) === column && isExactValue(node.operand.value)) values.push(node.operand.value);
    else if (node.kind === 'in' && !node.negate && exactColumn(node.target) === column && node.values.every(isExactValue)) values.push(...node.values);
  };
  visit(scope);
  return [...new Set(values)];
}

/**
 * Rows of the scope can be found through indexes: every alternative (item of a top-level OR)
 * holds, or is, an equality or list test on the leading column of an index.
 */
function findable(scope: Condition, indexed: ReadonlySet<string>): boolean {
  const seeks = (node: Condition): boolean => {
    if (node.kind === 'and') return node.items.some(seeks);
    if (node.kind === 'compare') return node.op === 'eq' && node.target.kind === 'field' && node.target.ref.alias === null && indexed.has(node.target.ref.column);
    if (node.kind === 'in') return !node.negate && node.target.kind === 'field' && node.target.ref.alias === null && indexed.has(node.target.ref.column);
    return false;
  };
  const alternatives = scope.kind === 'or' ? scope.items : [scope];
  return alternatives.length > 0 && alternatives.every(seeks);
}

/** Columns that lead an index of the object's table: the primary key and the engine's indexes. */
function leadingIndexColumns(object: ResolvedObject): Set<string> {
  return new Set(['id', ...objectIndexes(object).map((index) => index.columns[0]!)]);
}

function sameCondition(a: Condition | null, b: Condition | null): boolean {
  if (a === null || b === null) return a === b;
  const text = (c: Condition) => JSON.stringify(c, (_key, value: unknown) => (typeof value === 'bigint' ? `${value}n` : value));
  return text(a) === text(b);
}
