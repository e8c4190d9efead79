import type { Knex } from 'knex';

/** Side table of each environment's database: one row per namespace set. Secrets only sealed. */
export const SETTINGS_TABLE = 'osr_settings';

export interface SettingsRow {
  namespace: string;
  /** JSON of the values without their secrets. */
  values: Record<string, unknown>;
  /** Concrete secret path -> sealed value (AES-256-GCM). */
  sealed: Record<string, string>;
  revision: number;
  updatedAt: string;
  updatedBy: string | null;
}

export async function ensureSettingsTable(knex: Knex): Promise<void> {
  if (await knex.schema.hasTable(SETTINGS_TABLE)) return;
  await knex.schema.createTable(SETTINGS_TABLE, (table) => {
    table.string('namespace', 32).primary();
    table.text('values_json').notNullable();
    table.text('sealed_json').notNullable();
    table.integer('revision').notNullable();
    table.string('updated_at', 32).notNullable();
    table.string('updated_by', 64).nullable();
  }).catch(async (error: unknown) => {
    // Another process created it first.
    if (!(await knex.schema.hasTable(SETTINGS_TABLE))) throw error;
  });
}

export async function readSettingsRow(knex: Knex, namespace: string): Promise<SettingsRow | null> {
  const row = (await knex(SETTINGS_TABLE).where({ namespace }).first()) as Record<string, unknown> | undefined;
  if (!row) return null;
  return {
    namespace,
    values: JSON.parse(String(row.values_json)),
    sealed: JSON.parse(String(row.sealed_json)),
    revision: Number(row.revision),
    updatedAt: String(row.updated_at),
    updatedBy: row.updated_by === null || row.updated_by === undefined ? null : String(row.updated_by),
  };
}

/** Replaces the namespace's row; its revision is one more than the one read (or 1). */
export async function writeSettingsRow(knex: Knex, row: Omit<SettingsRow, 'revision'>, previous: number): Promise<number> {
  const revision = previous + 1;
  const record = {
    namespace: row.namespace,
    values_json: JSON.stringify(row.values),
    sealed_json: JSON.stringify(row.sealed),
    revision,
    updated_at: row.updatedAt,
    updated_by: row.updatedBy,
  };
  await knex(SETTINGS_TABLE).insert(record).onConflict('namespace').merge();
  return revision;
}
