import type { Knex } from 'knex';

/** Engine-owned table of what each object's index was built from. */
export const STATE_TABLE = 'osr_search_state';

export async function ensureStateTable(knex: Knex): Promise<void> {
  if (await knex.schema.hasTable(STATE_TABLE)) return;
  await knex.schema.createTable(STATE_TABLE, (table) => {
    table.string('object', 200).primary();
    table.string('fingerprint', 64).notNullable();
  });
}

/** Object -> fingerprint of its index as last built. */
export async function readFingerprints(knex: Knex): Promise<Map<string, string>> {
  const rows = (await knex(STATE_TABLE).select('object', 'fingerprint')) as Array<{ object: string; fingerprint: string }>;
  return new Map(rows.map((r) => [r.object, r.fingerprint]));
}

export async function writeFingerprint(knex: Knex, object: string, fingerprint: string | null): Promise<void> {
  await knex(STATE_TABLE).where({ object }).delete();
  if (fingerprint !== null) await knex(STATE_TABLE).insert({ object, fingerprint });
}
