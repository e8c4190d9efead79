import type { WidgetType } from './dashboardSchema.ts';

const listLength = (value: unknown): number => (Array.isArray(value) ? value.length : typeof value === 'string' ? value.split(',').filter((s) => s.trim() !== '').length : 0);

/**
 * What a widget type needs of its query: a metric one number (aggregations, no groupBy), a chart
 * series (groupBy and aggregations); a table takes any query. Null when the query fits.
 */
export function widgetShapeProblem(type: WidgetType, query: Record<string, unknown>): { path: string; reason: string } | null {
  const groups = listLength(query.groupBy);
  const aggregations = listLength(query.aggregations);
  if (type === 'metric') {
    if (aggregations === 0) return { path: 'aggregations', reason: 'a metric widget shows one number: its query needs aggregations' };
    if (groups > 0) return { path: 'groupBy', reason: 'a metric widget shows one number: its query must not group' };
  }
  if (type === 'chart') {
    if (groups === 0) return { path: 'groupBy', reason: 'a chart widget plots groups: its query needs groupBy' };
    if (aggregations === 0) return { path: 'aggregations', reason: 'a chart widget plots values: its query needs aggregations' };
  }
  return null;
}
