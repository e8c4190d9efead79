import type { Knex } from 'knex';
import { quoteIdent } from './dialect.ts';
import { writeChannel } from './writeSignal.ts';

/**
 * PostgreSQL: statement-level triggers on the object tables that NOTIFY the schema's write channel
 * (writeSignal.ts) with the table's name, so a row changed by anything but the runtime (psql, a
 * migration, another program) makes every process forget what it remembered of that table. They
 * fire once per statement (a psql UPDATE of a million rows is one notification, sent at its commit).
 *
 * The runtime's own connections carry `osr.signal = off` (openDatabase.ts): its writes are told
 * after their commit by its notifier (writeNotifier.ts), which does not hold the commit, where a
 * NOTIFY inside the transaction would (PostgreSQL serializes the commits of notifying transactions).
 */
export const SIGNAL_SETTING = 'osr.signal';
export const CHANGE_FUNCTION = 'osr_signal_change';
export const CHANGE_TRIGGER = 'osr_changed';

const FUNCTION_SQL = `create or replace function ${CHANGE_FUNCTION}() returns trigger language plpgsql as $osr$
begin
  if coalesce(current_setting('${SIGNAL_SETTING}', true), '') <> 'off' then
    perform pg_notify(tg_argv[0], tg_table_name);
  end if;
  return null;
end
$osr$`;

/** Serializes the creation across processes starting at once (`osr start --workers N`). */
const LOCK_KEY = 0x05a1_c4a9;

/**
 * Creates the function (in the schema) and the trigger of each table that lacks it, in one
 * transaction under an advisory lock. Throws when it cannot (no privilege): the caller then keeps
 * nothing remembered for that database. With `create: false` (plugins.data.schemaSync 'off': the
 * runtime changes nothing in the schema) it only looks, and returns the tables that lack one.
 */
export async function ensureChangeTriggers(knex: Knex, schema: string | null, tables: readonly string[], create = true): Promise<string[]> {
  if (tables.length === 0) return [];
  const channel = writeChannel(schema);
  return knex.transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(?)', [LOCK_KEY]);
    const present = (await trx.raw(
      `select c.relname as name from pg_trigger t join pg_class c on c.oid = t.tgrelid
        join pg_namespace n on n.oid = c.relnamespace where t.tgname = ? and n.nspname = current_schema()`,
      [CHANGE_TRIGGER],
    )) as { rows: Array<{ name: string }> };
    const existing = (await trx.raw(
      `select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where c.relkind in ('r', 'p') and n.nspname = current_schema() and c.relname = any(?)`,
      [[...tables]],
    )) as { rows: Array<{ name: string }> };
    const has = new Set(present.rows.map((r) => r.name));
    // A table the schema sync did not create (plugins.data.schemaSync: 'off') gets its trigger once it exists.
    const missing = existing.rows.map((r) => r.name).filter((t) => !has.has(t));
    if (missing.length === 0 || !create) return missing;
    await trx.raw(FUNCTION_SQL);
    for (const table of missing) {
      await trx.raw(`create trigger ${CHANGE_TRIGGER} after insert or update or delete or truncate on ${quoteIdent(table)}
        for each statement execute function ${CHANGE_FUNCTION}('${channel}')`);
    }
    return [];
  });
}
