import type { Knex } from 'knex';
import { quoteIdent } from './dialect.ts';
import { reopenSqliteReader } from './sqliteReader.ts';

/**
 * SQLite plans queries from the statistics ANALYZE keeps, and a database that was never analyzed
 * is planned on guesses. The guess that hurts: a row scope `owner = ? OR status IN (...)` on a
 * page ordered by id or amount is read through both indexes and every matching row sorted (half
 * a table for a typical policy, 40 ms at 100,000 rows), where walking the order's index and
 * stopping after a page costs a few rows (0.05 ms). So the engine keeps statistics: the tables
 * `PRAGMA optimize` names (never analyzed, or grown or shrunk much since) are analyzed.
 *
 * Every row is read. A bounded analysis (`analysis_limit`) reads the first entries of each index
 * and counts its distinct values there: on an index of a column with a few values (a status) it
 * sees one, and tells the planner that each value matches about as many rows as it read, which
 * brings back the slow plan above. A full analysis costs about 0.3 s per million rows (with a few
 * indexes), holding the writer: at start every table named is analyzed; while running, tables
 * above `FULL_ANALYSIS_ROWS` keep their statistics until the next start.
 */
export const FULL_ANALYSIS_ROWS = 1_000_000;
/** How often a database's statistics are brought up to date while the runtime runs. */
export const OPTIMIZE_INTERVAL_MS = 10 * 60_000;

export interface RefreshOptions {
  /** Tables with more rows than this are left for a later refresh (default: no bound). */
  maxRows?: number;
}

export interface RefreshReport {
  /** Tables analyzed, with the rows each had. */
  analyzed: Array<{ table: string; rows: number }>;
  /** Tables that needed it but were over `maxRows`. */
  deferred: Array<{ table: string; rows: number }>;
}

/**
 * Analyzes the tables whose statistics are missing or out of date, reading every row, and lets
 * the read connection (sqliteReader.ts) plan with the new statistics.
 */
export async function refreshStatistics(knex: Knex, options: RefreshOptions = {}): Promise<RefreshReport> {
  const report: RefreshReport = { analyzed: [], deferred: [] };
  // 0x10003: list (0x01, nothing is run) the ANALYZE statements that would help (0x02), checking every table (0x10000).
  const wanted = (await knex.raw('pragma optimize = 0x10003')) as Array<Record<string, unknown>>;
  for (const row of wanted) {
    const table = analyzedTable(String(Object.values(row)[0] ?? ''));
    if (table === null) continue;
    const rows = await rowEstimate(knex, table);
    if (options.maxRows !== undefined && rows > options.maxRows) {
      report.deferred.push({ table, rows });
      continue;
    }
    await knex.raw(`analyze main.${quoteIdent(table)}`);
    report.analyzed.push({ table, rows });
  }
  // The read connection loaded the statistics with its schema; it plans with the old ones until reopened.
  if (report.analyzed.length > 0) reopenSqliteReader(knex);
  return report;
}

/** The table of `ANALYZE "main"."name"`, as PRAGMA optimize lists it. */
export function analyzedTable(statement: string): string | null {
  const match = /^ANALYZE "main"\."((?:[^"]|"")+)"$/.exec(statement.trim());
  return match ? match[1]!.replace(/""/g, '"') : null;
}

/** Rows of a table, cheaply: the largest rowid (an upper bound after deletes), or a count where there is no rowid. */
async function rowEstimate(knex: Knex, table: string): Promise<number> {
  const name = quoteIdent(table);
  try {
    const rows = (await knex.raw(`select max(rowid) as n from ${name}`)) as Array<{ n: number | null }>;
    return Number(rows[0]?.n ?? 0);
  } catch {
    const rows = (await knex.raw(`select count(*) as n from ${name}`)) as Array<{ n: number }>;
    return Number(rows[0]?.n ?? 0);
  }
}

/** Refreshes the statistics every `intervalMs` (tables up to FULL_ANALYSIS_ROWS) until the returned function is called. */
export function keepStatistics(knex: Knex, intervalMs = OPTIMIZE_INTERVAL_MS): () => void {
  const timer = setInterval(() => {
    // A busy database is refreshed next time; the statistics only steer plans, never results.
    refreshStatistics(knex, { maxRows: FULL_ANALYSIS_ROWS }).catch(() => undefined);
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
