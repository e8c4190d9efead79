import type { Knex } from 'knex';
import type { Dialect } from './dialect.ts';
import { quoteIdent } from './dialect.ts';
import { normalizeColumnType } from './columnTypes.ts';

export interface ExistingIndex {
  name: string;
  unique: boolean;
  columns: string[];
}

export interface ExistingTable {
  name: string;
  /** column name -> normalized declared type. */
  columns: Map<string, string>;
  /** Secondary indexes (primary-key and constraint indexes are left out). */
  indexes: Map<string, ExistingIndex>;
}

/** Reads the current shape of the named tables; tables that do not exist are absent from the map. */
export async function introspectSchema(knex: Knex, dialect: Dialect, tables: string[]): Promise<Map<string, ExistingTable>> {
  return dialect === 'sqlite' ? introspectSqlite(knex, tables) : introspectPostgres(knex, tables);
}

async function introspectSqlite(knex: Knex, tables: string[]): Promise<Map<string, ExistingTable>> {
  const result = new Map<string, ExistingTable>();
  if (tables.length === 0) return result;
  const present = (await knex('sqlite_master').select('name').where('type', 'table').whereIn('name', tables)) as Array<{ name: string }>;
  for (const { name } of present) {
    const table: ExistingTable = { name, columns: new Map(), indexes: new Map() };
    const columns = (await knex.raw(`pragma table_info(${quoteIdent(name)})`)) as Array<{ name: string; type: string }>;
    for (const column of columns) table.columns.set(column.name, normalizeColumnType(column.type, 'sqlite'));
    const indexes = (await knex.raw(`pragma index_list(${quoteIdent(name)})`)) as Array<{ name: string; unique: number; origin: string }>;
    for (const index of indexes) {
      if (index.origin !== 'c') continue;
      const info = (await knex.raw(`pragma index_info(${quoteIdent(index.name)})`)) as Array<{ seqno: number; name: string }>;
      const ordered = [...info].sort((a, b) => a.seqno - b.seqno).map((c) => c.name);
      table.indexes.set(index.name, { name: index.name, unique: index.unique === 1, columns: ordered });
    }
    result.set(name, table);
  }
  return result;
}

async function introspectPostgres(knex: Knex, tables: string[]): Promise<Map<string, ExistingTable>> {
  const result = new Map<string, ExistingTable>();
  if (tables.length === 0) return result;
  const columns = (await knex.raw(
    `select table_name, column_name, data_type, numeric_precision, numeric_scale
       from information_schema.columns
      where table_schema = current_schema() and table_name = any(?::text[])
      order by table_name, ordinal_position`,
    [tables],
  )) as { rows: Array<{ table_name: string; column_name: string; data_type: string; numeric_precision: number | null; numeric_scale: number | null }> };
  for (const row of columns.rows) {
    let table = result.get(row.table_name);
    if (!table) {
      table = { name: row.table_name, columns: new Map(), indexes: new Map() };
      result.set(row.table_name, table);
    }
    const declared =
      row.data_type === 'numeric' && row.numeric_precision !== null
        ? `numeric(${row.numeric_precision},${row.numeric_scale ?? 0})`
        : row.data_type;
    table.columns.set(row.column_name, normalizeColumnType(declared, 'postgres'));
  }
  const indexes = (await knex.raw(
    `select t.relname as table_name, i.relname as index_name, ix.indisunique as is_unique,
            array(select a.attname::text
                    from unnest(ix.indkey) with ordinality as k(attnum, n)
                    join pg_attribute a on a.attrelid = t.oid and a.attnum = k.attnum
                   order by k.n)::text[] as columns
       from pg_index ix
       join pg_class t on t.oid = ix.indrelid
       join pg_class i on i.oid = ix.indexrelid
       join pg_namespace ns on ns.oid = t.relnamespace
      where ns.nspname = current_schema() and t.relname = any(?::text[])
        and not ix.indisprimary
        and not exists (select 1 from pg_constraint c where c.conindid = ix.indexrelid)`,
    [tables],
  )) as { rows: Array<{ table_name: string; index_name: string; is_unique: boolean; columns: string[] }> };
  for (const row of indexes.rows) {
    result.get(row.table_name)?.indexes.set(row.index_name, { name: row.index_name, unique: row.is_unique, columns: row.columns });
  }
  return result;
}
