/** One row of the filter builder. */
export interface FilterRow {
  field: string;
  op: string;
  value: unknown;
}

/** A filter row as a condition of the structured query. */
export function conditionOf(row: FilterRow): Record<string, unknown> {
  if (row.op === '$null') return { [row.field]: { $null: true } };
  if (row.op === '$notnull') return { [row.field]: { $null: false } };
  return { [row.field]: { [row.op]: row.value } };
}

/** The view's `where` and the user's filters, all of them holding. */
export function whereOf(base: Record<string, unknown> | undefined, rows: FilterRow[]): Record<string, unknown> | undefined {
  const parts = [...(base ? [base] : []), ...rows.map(conditionOf)];
  if (parts.length === 0) return undefined;
  return parts.length === 1 ? parts[0] : { $and: parts };
}

/** `[{field: 'a', order: 'desc'}, {field: 'b', order: 'asc'}]` -> `-a,b`, the list's query-string form. */
export function orderByParam(nodes: Array<{ field: string; order: 'asc' | 'desc' }>): string | undefined {
  return nodes.length === 0 ? undefined : nodes.map((n) => `${n.order === 'desc' ? '-' : ''}${n.field}`).join(',');
}
