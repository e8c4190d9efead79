import type { Knex } from 'knex';
import type { ResolvedObject } from '../../../metadata/types.ts';
import { codedError } from '../../../kernel/errors.ts';
import { dialectOf, quoteIdent, type Dialect } from './dialect.ts';
import type { DesiredColumn } from './desiredSchema.ts';
import { desiredSchema } from './desiredSchema.ts';
import type { DeclaredIndexes } from './declaredQueryIndexes.ts';
import { introspectSchema } from './introspectSchema.ts';
import type { SchemaAction } from './planSchema.ts';
import { describeAction, planSchema } from './planSchema.ts';

export interface SyncSchemaOptions {
  /** Allow dropping columns and changing column types (the column's data is lost). */
  destructive?: boolean;
  /** Plan only: report what would be done, change nothing. */
  dryRun?: boolean;
  /** The composite indexes the apps' declared views and datasets need (declaredIndexesOf.ts). */
  declared?: ReadonlyMap<string, DeclaredIndexes>;
}

export interface SyncSchemaReport {
  applied: boolean;
  actions: SchemaAction[];
  /** One line per action, for progress output. */
  lines: string[];
}

/**
 * Creates and alters tables so they hold the objects' fields. Additive by default: a change that
 * loses data (dropping a column, changing a type) is refused, all such changes listed at once,
 * and nothing is applied. The whole sync runs in one transaction (both drivers have transactional DDL).
 */
export async function syncSchema(knex: Knex, objects: readonly ResolvedObject[], options: SyncSchemaOptions = {}): Promise<SyncSchemaReport> {
  const dialect = dialectOf(knex);
  const desired = desiredSchema(objects, dialect, options.declared);
  const existing = await introspectSchema(knex, dialect, desired.map((t) => t.name));
  const actions = planSchema(desired, existing);
  const lines = actions.map(describeAction);
  const destructive = actions.filter((a) => a.kind === 'dropColumn' || a.kind === 'changeColumnType');
  if (destructive.length > 0 && !options.destructive) {
    throw codedError('SCHEMA_CHANGE_REFUSED', {
      count: destructive.length,
      lines: destructive.map((a) => `      ${describeAction(a)}`).join('\n'),
      changes: destructive.map(describeAction),
      fix: "restore the fields in the metadata, or set plugins.data.schemaSync: 'destructive' for one start to accept the loss",
    });
  }
  if (options.dryRun || actions.length === 0) return { applied: false, actions, lines };
  await knex.transaction(async (trx) => {
    // Building an index on a large table may take longer than a query's time budget.
    if (dialect === 'postgres') await trx.raw('set local statement_timeout = 0');
    for (const action of actions) {
      for (const sql of actionSql(action, dialect)) await trx.raw(sql);
    }
  });
  return { applied: true, actions, lines };
}

/** DDL for one action. Every identifier here comes from validated metadata and is quoted. */
function actionSql(action: SchemaAction, dialect: Dialect): string[] {
  const table = quoteIdent(action.table);
  switch (action.kind) {
    case 'createTable':
      return [`create table ${table} (${action.columns.map(columnSql).join(', ')})`];
    case 'addColumn':
      return [`alter table ${table} add column ${columnSql(action.column)}`];
    case 'dropColumn':
      return [`alter table ${table} drop column ${quoteIdent(action.column)}`];
    case 'changeColumnType':
      // The old values may not convert (text to boolean, say): the column is recreated empty.
      return [
        `alter table ${table} drop column ${quoteIdent(action.column.name)}`,
        `alter table ${table} add column ${columnSql(action.column)}`,
      ];
    case 'createIndex': {
      // The engine sorts nulls as the smallest value (asc nulls first, desc nulls last). SQLite's
      // indexes are in that order already; PostgreSQL's default is the opposite, which would make
      // it sort instead of reading the index.
      // A descending column (a declared sort's) keeps that order: largest first, nulls last. The
      // id, which orders ties, is never null and sorted plainly (PostgreSQL matches the nulls too).
      const order = (column: string, i: number) => {
        if (action.index.descending?.[i]) return dialect === 'postgres' ? ' desc nulls last' : ' desc';
        return dialect === 'postgres' && column !== 'id' ? ' nulls first' : '';
      };
      const columns = action.index.columns.map((c, i) => `${quoteIdent(c)}${order(c, i)}`).join(', ');
      const unique = action.index.unique ? 'unique ' : '';
      return [`create ${unique}index ${quoteIdent(action.index.name)} on ${table} (${columns})`];
    }
    case 'dropIndex':
      return [`drop index if exists ${quoteIdent(action.index)}`];
  }
}

function columnSql(column: DesiredColumn): string {
  let sql = `${quoteIdent(column.name)} ${column.type}`;
  if (column.primary) sql += ' primary key';
  if (column.notNull) sql += ' not null';
  if (column.defaultSql !== null) sql += ` default ${column.defaultSql}`;
  return sql;
}
