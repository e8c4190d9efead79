import type { Knex } from 'knex';

/** Engine-owned table of autonumber counters, one row per object field. */
export const SEQUENCE_TABLE = 'osr_sequence';

export async function ensureSequenceTable(knex: Knex): Promise<void> {
  if (await knex.schema.hasTable(SEQUENCE_TABLE)) return;
  await knex.schema.createTable(SEQUENCE_TABLE, (table) => {
    table.string('name', 200).primary();
    table.bigInteger('value').notNullable();
  });
}

/** The next value of a counter, atomically, inside the caller's transaction. */
export async function nextSequence(trx: Knex.Transaction | Knex, name: string): Promise<number> {
  const result = await trx.raw(
    `insert into ${SEQUENCE_TABLE} (name, value) values (?, 1)
     on conflict (name) do update set value = ${SEQUENCE_TABLE}.value + 1
     returning value`,
    [name],
  );
  const rows = (Array.isArray(result) ? result : result.rows) as Array<{ value: number | string }>;
  return Number(rows[0]!.value);
}
