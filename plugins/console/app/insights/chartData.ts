/** A column of a report or widget answer (`columns` of `POST /reports/:id/run`, of a dashboard's widgets). */
export interface Column { key: string; label: string }

/** What a chart draws from an answer: one label per row (its dimension values), one series per measure. */
export interface ChartData {
  dimensions: Column[];
  measures: Column[];
  labels: string[];
  series: Array<{ key: string; label: string; values: number[] }>;
}

/** A value a measure may hold: a number, or a number the database sent as text (PostgreSQL's bigint sums). */
export function numberOf(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return null;
}

/** A dimension's value as a label: empty values say so rather than vanish. */
export function labelOf(value: unknown): string {
  if (value === null || value === undefined || value === '') return '(none)';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/**
 * How an answer splits into dimensions and measures: the grouped-by keys (`groupBy`, a dataset
 * use's `dimensions`) are dimensions when given; otherwise a column is a measure when every row
 * holds a number in it, and the other columns are dimensions. Null when nothing can be drawn (no
 * row, no measure, or rows but no dimension to tell them apart).
 */
export function chartData(columns: Column[], items: Array<Record<string, unknown>>, grouped?: string[]): ChartData | null {
  if (items.length === 0 || columns.length === 0) return null;
  const isDimension = (c: Column) => grouped && grouped.length > 0
    ? grouped.includes(c.key)
    : !items.every((row) => numberOf(row[c.key]) !== null);
  const dimensions = columns.filter(isDimension);
  const measures = columns.filter((c) => !isDimension(c) && items.every((row) => row[c.key] === null || row[c.key] === undefined || numberOf(row[c.key]) !== null));
  if (measures.length === 0 || (dimensions.length === 0 && items.length > 1)) return null;
  return {
    dimensions,
    measures,
    labels: items.map((row) => (dimensions.length === 0 ? 'Total' : dimensions.map((d) => labelOf(row[d.key])).join(' · '))),
    series: measures.map((m) => ({ key: m.key, label: m.label, values: items.map((row) => numberOf(row[m.key]) ?? 0) })),
  };
}

/** The grouped-by keys of a stored report's query: an inline query's `groupBy`, a dataset use's `dimensions`. */
export function groupedKeys(query: Record<string, unknown> | undefined): string[] | undefined {
  const keys = Array.isArray(query?.groupBy) ? query!.groupBy : Array.isArray(query?.dimensions) ? query!.dimensions : undefined;
  return keys?.map((k) => (typeof k === 'string' ? k : String((k as { field?: unknown }).field ?? ''))).filter(Boolean);
}

/** The chart's text alternative: what it shows, each label with its numbers. */
export function describe(kind: string, title: string, data: ChartData): string {
  const by = data.dimensions.map((d) => d.label).join(' and ');
  const rows = data.labels.map((label, i) => `${label}: ${data.series.map((s) => (data.series.length > 1 ? `${s.label} ${s.values[i]}` : String(s.values[i]))).join(', ')}`);
  return `${kind[0]!.toUpperCase()}${kind.slice(1)} chart of ${title}${by ? ` by ${by}` : ''}. ${rows.join('; ')}.`;
}
