import type { Knex } from 'knex';

/**
 * The durable record of the indexes `plugins.data.autoIndex` built, one row per index, in each
 * environment's database: only an index named here is ever dropped as unused (autoIndexSweep.ts).
 * Times are epoch ms; `scans` is PostgreSQL's idx_scan at the last sweep (0 on SQLite).
 */
export const AUTO_INDEX_TABLE = 'osr_auto_index';

export interface AutoIndexRow {
  name: string;
  object: string;
  columns: string[];
  builtAt: number;
  /** Last read known to use it (engine reads of a shape it serves, or PostgreSQL's scans); null when none yet. */
  lastUsedAt: number | null;
  scans: number;
}

export async function ensureAutoIndexTable(knex: Knex): Promise<void> {
  if (await knex.schema.hasTable(AUTO_INDEX_TABLE)) return;
  await knex.schema.createTable(AUTO_INDEX_TABLE, (table) => {
    table.string('name', 63).primary();
    table.string('object', 63).notNullable();
    table.text('columns').notNullable();
    table.bigInteger('built_at').notNullable();
    table.bigInteger('last_used_at').nullable();
    table.bigInteger('scans').notNullable().defaultTo(0);
  });
}

export async function readAutoIndexes(knex: Knex): Promise<AutoIndexRow[]> {
  const rows = (await knex(AUTO_INDEX_TABLE).select('*').orderBy('name')) as Array<Record<string, unknown>>;
  return rows.map((row) => ({
    name: String(row.name),
    object: String(row.object),
    columns: JSON.parse(String(row.columns)) as string[],
    builtAt: Number(row.built_at),
    lastUsedAt: row.last_used_at === null || row.last_used_at === undefined ? null : Number(row.last_used_at),
    scans: Number(row.scans ?? 0),
  }));
}

/** Notes an index the runtime just built (again: its times start over). */
export async function recordAutoIndex(knex: Knex, row: Pick<AutoIndexRow, 'name' | 'object' | 'columns'>, at: number): Promise<void> {
  await knex(AUTO_INDEX_TABLE)
    .insert({ name: row.name, object: row.object, columns: JSON.stringify(row.columns), built_at: at, last_used_at: null, scans: 0 })
    .onConflict('name').merge();
}

/** Moves last_used_at forward (never back) to `at`, and the scan count when given. */
export async function noteAutoIndexUse(knex: Knex, name: string, at: number, scans?: number): Promise<void> {
  await knex(AUTO_INDEX_TABLE).where('name', name)
    .update({
      last_used_at: knex.raw('case when last_used_at is null or last_used_at < ? then ? else last_used_at end', [at, at]),
      ...(scans === undefined ? {} : { scans }),
    });
}

export async function forgetAutoIndex(knex: Knex, name: string): Promise<void> {
  await knex(AUTO_INDEX_TABLE).where('name', name).delete();
}
