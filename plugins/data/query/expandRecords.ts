import type { Knex } from 'knex';
import type { ExpressionContext } from '../../../metadata/types.ts';
import { rowToRecord } from '../sql/codec.ts';
import type { Dialect } from '../sql/dialect.ts';
import { objectColumns } from '../sql/objectColumns.ts';
import { computeFormulas } from './computeFormulas.ts';
import { scopeSql } from './compileQuery.ts';
import type { ExpandNode, ScopeFilter } from './types.ts';

export interface ExpandOptions {
  dialect: Dialect;
  scopeFilter?: ScopeFilter;
  cel?: ExpressionContext;
}

const CHUNK = 500;

/**
 * Replaces lookup ids with the referenced records, one query per relation and level
 * (`WHERE id IN (...)`), never one per row. A reference that does not resolve (deleted, or
 * hidden by the scope filter) becomes null.
 */
export async function expandRecords(records: Array<Record<string, unknown>>, nodes: readonly ExpandNode[], knex: Knex, options: ExpandOptions): Promise<void> {
  for (const node of nodes) {
    const ids = [...new Set(records.map((r) => r[node.field]).filter((v): v is string => typeof v === 'string'))];
    const found = new Map<string, Record<string, unknown>>();
    const scope = scopeSql(options.scopeFilter, node.object, node.object.name, options.dialect);
    for (let i = 0; i < ids.length; i += CHUNK) {
      const chunk = ids.slice(i, i + CHUNK);
      const qb = knex(node.object.name).select('*').whereIn('id', chunk);
      if (scope) qb.andWhereRaw(`(${scope.sql})`, scope.bindings as Knex.RawBinding[]);
      const rows = (await qb) as Array<Record<string, unknown>>;
      for (const row of rows) {
        const record = rowToRecord(node.object, row, options.dialect);
        computeFormulas(record, [...objectColumns(node.object).formulas.values()], options.cel);
        found.set(record.id as string, record);
      }
    }
    if (node.children.length > 0) await expandRecords([...found.values()], node.children, knex, options);
    for (const record of records) {
      const id = record[node.field];
      if (typeof id === 'string') record[node.field] = found.get(id) ?? null;
    }
  }
}
