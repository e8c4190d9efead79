import type { DesiredColumn, DesiredIndex, DesiredTable } from './desiredSchema.ts';
import { isEngineIndex } from './desiredSchema.ts';
import type { ExistingTable } from './introspectSchema.ts';

export type SchemaAction =
  | { kind: 'createTable'; table: string; columns: DesiredColumn[] }
  | { kind: 'addColumn'; table: string; column: DesiredColumn }
  | { kind: 'dropColumn'; table: string; column: string; destructive: true }
  | { kind: 'changeColumnType'; table: string; column: DesiredColumn; from: string; destructive: true }
  | { kind: 'createIndex'; table: string; index: DesiredIndex }
  | { kind: 'dropIndex'; table: string; index: string };

/**
 * What it takes to move the existing tables to the desired ones, in a safe order: drop stale
 * indexes, create tables, drop or retype columns, add columns, create indexes.
 * Tables the metadata does not mention are never touched.
 */
export function planSchema(desired: readonly DesiredTable[], existing: ReadonlyMap<string, ExistingTable>): SchemaAction[] {
  const dropIndexes: SchemaAction[] = [];
  const tables: SchemaAction[] = [];
  const columnChanges: SchemaAction[] = [];
  const additions: SchemaAction[] = [];
  const createIndexes: SchemaAction[] = [];
  for (const table of desired) {
    const current = existing.get(table.name);
    if (!current) {
      tables.push({ kind: 'createTable', table: table.name, columns: table.columns });
      for (const index of table.indexes) createIndexes.push({ kind: 'createIndex', table: table.name, index });
      continue;
    }
    const touched = new Set<string>();
    const wanted = new Map(table.columns.map((c) => [c.name, c]));
    for (const [name, type] of current.columns) {
      const column = wanted.get(name);
      if (!column) {
        columnChanges.push({ kind: 'dropColumn', table: table.name, column: name, destructive: true });
        touched.add(name);
      } else if (column.type !== type) {
        columnChanges.push({ kind: 'changeColumnType', table: table.name, column, from: type, destructive: true });
        touched.add(name);
      }
    }
    for (const column of table.columns) {
      if (!current.columns.has(column.name)) additions.push({ kind: 'addColumn', table: table.name, column });
    }
    const kept = new Set<string>();
    const wantedIndexes = new Map(table.indexes.map((i) => [i.name, i]));
    for (const index of current.indexes.values()) {
      const want = wantedIndexes.get(index.name);
      const stale = !want || want.unique !== index.unique || want.columns.join(',') !== index.columns.join(',');
      const onChangedColumn = index.columns.some((c) => touched.has(c));
      if ((stale && isEngineIndex(index.name)) || onChangedColumn) {
        dropIndexes.push({ kind: 'dropIndex', table: table.name, index: index.name });
      } else {
        kept.add(index.name);
      }
    }
    for (const index of table.indexes) {
      if (!kept.has(index.name)) createIndexes.push({ kind: 'createIndex', table: table.name, index });
    }
  }
  return [...dropIndexes, ...tables, ...columnChanges, ...additions, ...createIndexes];
}

/** One line per action, for progress output. */
export function describeAction(action: SchemaAction): string {
  switch (action.kind) {
    case 'createTable':
      return `create table ${action.table} (${action.columns.length} columns)`;
    case 'addColumn':
      return `add column ${action.table}.${action.column.name} ${action.column.type}`;
    case 'dropColumn':
      return `drop column ${action.table}.${action.column} (its data is lost)`;
    case 'changeColumnType':
      return `change ${action.table}.${action.column.name} from ${action.from} to ${action.column.type} (its data is lost)`;
    case 'createIndex':
      return `create ${action.index.unique ? 'unique ' : ''}index ${action.index.name} on ${action.table} (${action.index.columns.join(', ')})`;
    case 'dropIndex':
      return `drop index ${action.index} on ${action.table}`;
  }
}
