import type { Knex } from 'knex';

/**
 * SQLite plans queries from the statistics ANALYZE keeps, and a database that was never analyzed
 * is planned on guesses. The guess that hurts: a row scope `owner = ? OR status IN (...)` on a
 * page ordered by id is read through both indexes and every matching row sorted (half a table for
 * a typical policy), where walking the id index and stopping after a page costs a few rows. With
 * statistics SQLite sees that, so the engine keeps them: `PRAGMA optimize` analyzes what was never
 * analyzed or has grown much since, reading at most `ANALYSIS_LIMIT` rows of each index.
 */
export const ANALYSIS_LIMIT = 1000;
/** How often a database's statistics are brought up to date while the runtime runs. */
export const OPTIMIZE_INTERVAL_MS = 10 * 60_000;

/** Analyzes the tables whose statistics are missing or out of date (0x10000: every table, not only those used). */
export async function refreshStatistics(knex: Knex): Promise<void> {
  await knex.raw('pragma optimize = 0x10002');
}

/** Refreshes the statistics every `intervalMs` until the returned function is called. */
export function keepStatistics(knex: Knex, intervalMs = OPTIMIZE_INTERVAL_MS): () => void {
  const timer = setInterval(() => {
    // A busy database is refreshed next time; the statistics only steer plans, never results.
    refreshStatistics(knex).catch(() => undefined);
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
