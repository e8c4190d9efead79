import { withoutTrash } from '../engine/trash.ts';
import type { Rollup } from '../sql/rollups.ts';
import type { Condition, Operand, QueryAst, Target } from './types.ts';

/** A rollup that answers a query, and the caller's scope as it applies to it (trash left out: a rollup counts live rows only). */
export interface RollupUse {
  rollup: Rollup;
  scope: Condition | null;
}

/**
 * The materialized dataset (sql/rollups.ts) whose counts answer a query exactly, if any: a count
 * of rows (a list's total) or a group count (`count` of rows only, grouped by plain fields), of the
 * object alone (no joins, no distinct), whose scope and where test only the rollup's columns.
 */
export function rollupFor(ast: QueryAst, scope: Condition | null, rollups: readonly Rollup[]): RollupUse | null {
  if (rollups.length === 0 || ast.joins.length > 0 || ast.distinct) return null;
  if (ast.aggregate) {
    if (!ast.aggregations.every((a) => a.fn === 'count' && a.ref === null)) return null;
    if (!ast.groupBy.every((g) => g.granularity === null && g.ref.alias === null)) return null;
  }
  const live = withoutTrash(ast.object, scope);
  if (live === undefined) return null;
  for (const rollup of rollups) {
    const columns = new Set(rollup.columns);
    const holds = (condition: Condition | null) => condition === null || testsOnly(condition, columns);
    if (ast.aggregate && !ast.groupBy.every((g) => columns.has(g.ref.column))) continue;
    if (holds(live) && holds(ast.where)) return { rollup, scope: live };
  }
  return null;
}

/** Whether every field a condition tests is one of `columns` of the query's own object. */
function testsOnly(node: Condition, columns: ReadonlySet<string>): boolean {
  const target = (t: Target) => t.kind === 'field' && t.ref.alias === null && columns.has(t.ref.column);
  const operand = (o: Operand) => o.kind !== 'field' || (o.ref.alias === null && columns.has(o.ref.column));
  switch (node.kind) {
    case 'and':
    case 'or':
      return node.items.every((item) => testsOnly(item, columns));
    case 'not':
      return testsOnly(node.item, columns);
    case 'compare':
      return target(node.target) && operand(node.operand);
    case 'between':
      return target(node.target) && operand(node.low) && operand(node.high);
    case 'in':
    case 'text':
    case 'has':
    case 'null':
      return target(node.target);
  }
}
