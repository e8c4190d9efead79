import type { DataRecord } from '../../../capabilities/dataEngine.ts';
import { hideInvisible } from '../../../metadata/fieldConditions.ts';
import type { ExpressionContext } from '../../../metadata/types.ts';
import type { ExpandNode, QueryAst } from '../query/types.ts';

const isRecord = (v: unknown): v is DataRecord => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Removes the fields a caller's read returns for records where their visibleWhen does not hold:
 * the records of the query's object, of its joins and of expanded references. Aggregated rows are
 * not records and are left alone.
 */
export function hideInvisibleIn(items: DataRecord[], ast: QueryAst, context: ExpressionContext): void {
  if (ast.aggregate) return;
  hideInvisible(ast.object, items, context);
  for (const join of ast.joins) hideInvisible(join.object, items.map((r) => r[join.alias]).filter(isRecord), context);
  hideExpanded(items, ast.expand, context);
}

function hideExpanded(items: DataRecord[], nodes: readonly ExpandNode[], context: ExpressionContext): void {
  for (const node of nodes) {
    const targets = items.map((r) => r[node.field]).filter(isRecord);
    hideInvisible(node.object, targets, context);
    hideExpanded(targets, node.children, context);
  }
}
