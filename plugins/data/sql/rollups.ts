import type { Knex } from 'knex';
import type { ResolvedObject } from '../../../metadata/types.ts';
import { hasTrash, DELETED_AT } from '../engine/trash.ts';
import { columnType } from './columnTypes.ts';
import { dialectOf, quoteIdent, type Dialect } from './dialect.ts';
import { heldTransaction } from './heldTransaction.ts';
import { objectColumns } from './objectColumns.ts';

/**
 * Materialized datasets (docs/datasets.md, Materialized): a table per dataset holding counts by its
 * dimensions' columns, kept by triggers on the object's table in the writing transaction, whoever
 * writes (the engine, psql, another program). Rows are deltas: each write adds +1 and -1 rows
 * for what it moved (nothing locked but the new rows, so writers never wait on one another), a
 * combination's count is the sum of its rows, and `compactRollups` folds them back to one row per
 * combination. Trashed rows are not counted.
 */
export interface Rollup {
  /** The dataset's name. */
  name: string;
  object: string;
  table: string;
  /** The dimensions' columns, named as in the object's table. */
  columns: readonly string[];
}

/** The rollup table's count column. */
export const ROLLUP_COUNT = '__n';
const REGISTRY = 'osr_rollups';

export const rollupTable = (dataset: string) => `osr_rollup_${dataset}`;

/** What the rollups of a database are, by the knex of that database: the ones in place. */
const inPlace = new WeakMap<Knex, Map<string, Rollup[]>>();

/** The rollups in place for an object's table, read through this knex (none inside a transaction). */
export function rollupsOf(knex: Knex, object: string): readonly Rollup[] {
  return inPlace.get(knex)?.get(object) ?? [];
}

export interface DeclaredRollup {
  name: string;
  object: ResolvedObject;
  /** Field names of the dimensions. */
  dimensions: readonly string[];
}

/** What decides a rollup's table and triggers: rebuilt when it changes. */
function signature(rollup: DeclaredRollup, dialect: Dialect): string {
  const byName = objectColumns(rollup.object).byName;
  return JSON.stringify([1, rollup.object.name, hasTrash(rollup.object), rollup.dimensions.map((d) => {
    const column = byName.get(d)!;
    return [column.column, columnType(column.type, dialect)];
  })]);
}

function columnsOf(rollup: DeclaredRollup): string[] {
  const byName = objectColumns(rollup.object).byName;
  return rollup.dimensions.map((d) => byName.get(d)!.column);
}

/** PostgreSQL: one boot at a time makes or drops rollups (several processes may boot together). */
const LOCK_KEY = 0x05a1_c4aa;

/**
 * Creates the declared rollups that are missing, changed or lacking a trigger (table, triggers,
 * the counts of the rows already there, under a lock that holds the object's writers back
 * meanwhile), drops those no longer declared, and records which are in place for `rollupsOf`.
 * With `create` false (schemaSync off) nothing is made or dropped: only rollups already in place
 * as declared are used.
 */
export async function syncRollups(knex: Knex, declared: readonly DeclaredRollup[], create = true): Promise<{ created: string[]; dropped: string[] }> {
  const dialect = dialectOf(knex);
  const created: string[] = [];
  const dropped: string[] = [];
  const placed = new Map<string, Rollup[]>();
  const hasRegistry = await knex.schema.hasTable(REGISTRY);
  // Nothing was ever materialized here and nothing is to be: no table of its own for the registry.
  if (!hasRegistry && (!create || declared.length === 0)) {
    inPlace.set(knex, placed);
    return { created, dropped };
  }
  if (!hasRegistry) await knex.raw(`create table if not exists ${quoteIdent(REGISTRY)} (name text primary key, object text not null, signature text not null)`);
  const inTransaction = <T>(work: (trx: Knex.Transaction) => Promise<T>): Promise<T> =>
    dialect === 'sqlite' ? heldTransaction(knex, work) : knex.transaction(async (trx) => {
      await trx.raw('set local statement_timeout = 0');
      await trx.raw('select pg_advisory_xact_lock(?)', [LOCK_KEY]);
      return work(trx);
    });
  const registered = async (trx: Knex) => new Map(((await trx(REGISTRY).select('name', 'object', 'signature')) as RegistryRow[]).map((r) => [r.name, r]));
  const current = async (trx: Knex, rollup: DeclaredRollup, row: RegistryRow | undefined) =>
    row?.signature === signature(rollup, dialect) && (await triggersPresent(trx, rollup.name, rollup.object.name, dialect));
  let existing = await registered(knex);
  for (const rollup of declared) {
    if (!(await current(knex, rollup, existing.get(rollup.name)))) {
      if (!create) continue;
      const made = await inTransaction(async (trx) => {
        // Read again under the lock: another process may have made it meanwhile.
        const row = (await registered(trx)).get(rollup.name);
        if (await current(trx, rollup, row)) return false;
        // Writers wait while the counts of the rows already there are taken; readers go on.
        if (dialect === 'postgres') await trx.raw(`lock table ${quoteIdent(rollup.object.name)} in share row exclusive mode`);
        for (const sql of await dropSql(trx, rollup.name, row?.object ?? rollup.object.name, dialect)) await trx.raw(sql);
        for (const sql of createSql(rollup, dialect)) await trx.raw(sql);
        await trx(REGISTRY).insert({ name: rollup.name, object: rollup.object.name, signature: signature(rollup, dialect) }).onConflict('name').merge();
        return true;
      });
      if (made) created.push(rollup.name);
    }
    const list = placed.get(rollup.object.name) ?? [];
    list.push({ name: rollup.name, object: rollup.object.name, table: rollupTable(rollup.name), columns: columnsOf(rollup) });
    placed.set(rollup.object.name, list);
  }
  if (create) {
    existing = await registered(knex);
    for (const row of existing.values()) {
      if (declared.some((d) => d.name === row.name)) continue;
      await inTransaction(async (trx) => {
        for (const sql of await dropSql(trx, row.name, row.object, dialect)) await trx.raw(sql);
        await trx(REGISTRY).where({ name: row.name }).delete();
      });
      dropped.push(row.name);
    }
  }
  inPlace.set(knex, placed);
  return { created, dropped };
}

interface RegistryRow { name: string; object: string; signature: string }

/** Whether every trigger of a rollup is on its object's table (a table rebuilt or dropped loses them). */
async function triggersPresent(knex: Knex, dataset: string, object: string, dialect: Dialect): Promise<boolean> {
  const names = triggerOps(dialect).map((op) => triggerName(dataset, op));
  const found = dialect === 'postgres'
    ? ((await knex.raw(
      `select t.tgname as name from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = current_schema() and c.relname = ? and t.tgname = any(?)`, [object, names])) as { rows: Array<{ name: string }> }).rows
    : ((await knex.raw(`select name from sqlite_master where type = 'trigger' and tbl_name = ? and name in (${names.map(() => '?').join(', ')})`, [object, ...names])) as Array<{ name: string }>);
  return found.length === names.length;
}

/** Rows a rollup held after its last folding, by table: it is folded again once it has grown past twice that. */
const foldedSize = new WeakMap<Knex, Map<string, number>>();

/**
 * Folds the delta rows of each rollup that grew since its last folding into one row per
 * combination of its dimensions (dropping those that count nothing). Readers see the same sums
 * before and after; writers go on adding rows meanwhile (only rows there when it began are folded).
 */
export async function compactRollups(knex: Knex): Promise<void> {
  const dialect = dialectOf(knex);
  const sizes = foldedSize.get(knex) ?? new Map<string, number>();
  foldedSize.set(knex, sizes);
  const countRows = async (db: Knex, table: string) => Number(((await db(table).count({ n: '*' })) as Array<{ n: number | string }>)[0]?.n ?? 0);
  for (const list of inPlace.get(knex)?.values() ?? []) {
    for (const rollup of list) {
      if ((await countRows(knex, rollup.table)) <= 2 * (sizes.get(rollup.table) ?? 0) + 64) continue;
      const table = quoteIdent(rollup.table);
      const cols = rollup.columns.map(quoteIdent).join(', ');
      const n = quoteIdent(ROLLUP_COUNT);
      const folded = `select ${cols}, sum(${n}) from`;
      let kept: number;
      if (dialect === 'postgres') {
        const result = await knex.raw(
          `with gone as (delete from ${table} returning ${cols}, ${n}), kept as (insert into ${table} (${cols}, ${n}) ${folded} gone group by ${cols} having sum(${n}) <> 0 returning 1) select count(*) as kept from kept`,
        ) as { rows: Array<{ kept: string }> };
        kept = Number(result.rows[0]?.kept ?? 0);
      } else {
        // The write lock at BEGIN (several processes may share the file).
        kept = await heldTransaction(knex, async (trx) => {
          const last = Number(((await trx.raw(`select max(rowid) as m from ${table}`)) as Array<{ m: number | null }>)[0]?.m ?? 0);
          await trx.raw(`insert into ${table} (${cols}, ${n}) ${folded} ${table} where rowid <= ${last} group by ${cols} having sum(${n}) <> 0`);
          await trx.raw(`delete from ${table} where rowid <= ${last}`);
          return countRows(trx, rollup.table);
        });
      }
      sizes.set(rollup.table, kept);
    }
  }
}

/** Names of a rollup's triggers and (PostgreSQL) functions. */
const triggerName = (dataset: string, op: 'ins' | 'upd' | 'del' | 'trunc') => `osr_rollup_${dataset}_${op}`;

const triggerOps = (dialect: Dialect) => ['ins', 'upd', 'del', ...(dialect === 'postgres' ? ['trunc' as const] : [])] as const;

async function dropSql(knex: Knex, dataset: string, object: string, dialect: Dialect): Promise<string[]> {
  const statements: string[] = [];
  // A trigger goes with its table: with the table gone there is none to drop.
  const onTable = await knex.schema.hasTable(object);
  for (const op of triggerOps(dialect)) {
    const name = quoteIdent(triggerName(dataset, op));
    if (onTable) statements.push(dialect === 'postgres' ? `drop trigger if exists ${name} on ${quoteIdent(object)}` : `drop trigger if exists ${name}`);
    if (dialect === 'postgres') statements.push(`drop function if exists ${name}()`);
  }
  statements.push(`drop table if exists ${quoteIdent(rollupTable(dataset))}`);
  return statements;
}

function createSql(rollup: DeclaredRollup, dialect: Dialect): string[] {
  const byName = objectColumns(rollup.object).byName;
  const dims = rollup.dimensions.map((d) => byName.get(d)!);
  const table = quoteIdent(rollupTable(rollup.name));
  const source = quoteIdent(rollup.object.name);
  const cols = dims.map((d) => quoteIdent(d.column));
  const list = cols.join(', ');
  const n = quoteIdent(ROLLUP_COUNT);
  const live = (alias: string) => (hasTrash(rollup.object) ? `${alias}.${quoteIdent(DELETED_AT)} is null` : null);
  const statements = [
    `create table ${table} (${[...dims.map((d) => `${quoteIdent(d.column)} ${columnType(d.type, dialect)}`), `${n} bigint not null`].join(', ')})`,
    // The counts of the rows already there.
    `insert into ${table} (${list}, ${n}) select ${list}, count(*) from ${source}${live(source) ? ` where ${live(source)}` : ''} group by ${list}`,
  ];
  if (dialect === 'postgres') {
    const fn = (op: 'ins' | 'upd' | 'del' | 'trunc', body: string) =>
      // Its tables are found where they were made, whatever the writing session's search_path.
      `create function ${quoteIdent(triggerName(rollup.name, op))}() returns trigger language plpgsql set search_path from current as $osr$ begin ${body} return null; end $osr$`;
    const delta = (rows: string, sign: 1 | -1) =>
      `select ${cols.map((c) => `t.${c}`).join(', ')}, ${sign} as d from ${rows} t${live('t') ? ` where ${live('t')}` : ''}`;
    const apply = (parts: string[]) =>
      `insert into ${table} (${list}, ${n}) select ${list}, sum(d) from (${parts.join(' union all ')}) q group by ${list} having sum(d) <> 0;`;
    statements.push(
      fn('ins', apply([delta('osr_new', 1)])),
      fn('upd', apply([delta('osr_new', 1), delta('osr_old', -1)])),
      fn('del', apply([delta('osr_old', -1)])),
      fn('trunc', `delete from ${table};`),
      `create trigger ${quoteIdent(triggerName(rollup.name, 'ins'))} after insert on ${source} referencing new table as osr_new for each statement execute function ${quoteIdent(triggerName(rollup.name, 'ins'))}()`,
      `create trigger ${quoteIdent(triggerName(rollup.name, 'upd'))} after update on ${source} referencing old table as osr_old new table as osr_new for each statement execute function ${quoteIdent(triggerName(rollup.name, 'upd'))}()`,
      `create trigger ${quoteIdent(triggerName(rollup.name, 'del'))} after delete on ${source} referencing old table as osr_old for each statement execute function ${quoteIdent(triggerName(rollup.name, 'del'))}()`,
      `create trigger ${quoteIdent(triggerName(rollup.name, 'trunc'))} after truncate on ${source} for each statement execute function ${quoteIdent(triggerName(rollup.name, 'trunc'))}()`,
    );
  } else {
    const row = (alias: 'new' | 'old', sign: 1 | -1) =>
      `insert into ${table} (${list}, ${n}) select ${cols.map((c) => `${alias}.${c}`).join(', ')}, ${sign}${live(alias) ? ` where ${live(alias)}` : ''};`;
    const moved = [...cols, ...(hasTrash(rollup.object) ? [quoteIdent(DELETED_AT)] : [])].map((c) => `old.${c} is not new.${c}`).join(' or ');
    statements.push(
      `create trigger ${quoteIdent(triggerName(rollup.name, 'ins'))} after insert on ${source} begin ${row('new', 1)} end`,
      `create trigger ${quoteIdent(triggerName(rollup.name, 'upd'))} after update on ${source} when ${moved} begin ${row('old', -1)} ${row('new', 1)} end`,
      `create trigger ${quoteIdent(triggerName(rollup.name, 'del'))} after delete on ${source} begin ${row('old', -1)} end`,
    );
  }
  return statements;
}
