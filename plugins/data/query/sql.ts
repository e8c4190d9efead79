/** A fragment of SQL with `?` placeholders and its bound values, in order. */
export interface Sql {
  sql: string;
  bindings: unknown[];
}

export const TRUE: Sql = { sql: '1 = 1', bindings: [] };
export const FALSE: Sql = { sql: '1 = 0', bindings: [] };

export function sql(text: string, ...bindings: unknown[]): Sql {
  return { sql: text, bindings };
}

/** Joins fragments with AND / OR, parenthesized; an empty list is the neutral element. */
export function joinSql(parts: Sql[], operator: 'and' | 'or'): Sql {
  if (parts.length === 0) return operator === 'and' ? TRUE : FALSE;
  if (parts.length === 1) return parts[0]!;
  return { sql: parts.map((p) => `(${p.sql})`).join(` ${operator} `), bindings: parts.flatMap((p) => p.bindings) };
}
