import type { Knex } from 'knex';
import type { ResolvedObject } from '../../../metadata/types.ts';
import { indexName, objectIndexes } from '../sql/desiredSchema.ts';
import { dialectOf, quoteIdent } from '../sql/dialect.ts';
import { forgetAutoIndex, noteAutoIndexUse, readAutoIndexes, type AutoIndexRow } from './autoIndexRecord.ts';
import type { AutoIndexUse } from './autoIndexUse.ts';

export const DAY_MS = 86_400_000;

export interface AutoIndexSweepOptions {
  knex: Knex;
  environmentId: string;
  use: AutoIndexUse;
  /** `plugins.data.autoIndexUnusedDays`: an automatic index unused this long is dropped. */
  unusedDays: number;
  objectOf(name: string): ResolvedObject | undefined;
  log: { info(data: object, message: string): void; warn(data: object, message: string): void };
  now?: number;
}

export interface AutoIndexSweepReport {
  dropped: string[];
  kept: string[];
}

/**
 * Drops the automatic indexes of one environment that no read used for `unusedDays`: first the
 * uses noted in memory since the last sweep are written to `osr_auto_index`, and on PostgreSQL an
 * index whose idx_scan grew counts as used too (reads outside the engine's list path included);
 * then every recorded index unused since the cutoff (or never used since it was built before the
 * cutoff) is dropped and forgotten. Only indexes the record names are candidates, and never one an
 * object declares, whatever the record says.
 */
export async function sweepAutoIndexes(options: AutoIndexSweepOptions): Promise<AutoIndexSweepReport> {
  const { knex, environmentId, use, log } = options;
  const now = options.now ?? Date.now();
  for (const [name, at] of use.take(environmentId)) await noteAutoIndexUse(knex, name, at);
  let rows = await readAutoIndexes(knex);
  if (dialectOf(knex) === 'postgres' && rows.length > 0) {
    const stats = await knex.raw(
      `select indexrelname as name, idx_scan as scans from pg_stat_user_indexes where schemaname = current_schema() and indexrelname = any(?)`,
      [rows.map((r) => r.name)],
    ) as { rows: Array<{ name: string; scans: string | number }> };
    for (const { name, scans } of stats.rows) {
      const row = rows.find((r) => r.name === name)!;
      if (Number(scans) > row.scans) await noteAutoIndexUse(knex, name, now, Number(scans));
    }
    rows = await readAutoIndexes(knex);
  }
  const cutoff = now - options.unusedDays * DAY_MS;
  const report: AutoIndexSweepReport = { dropped: [], kept: [] };
  for (const row of rows) {
    if (!row.name.startsWith('osr_auto_') || declaredIndexNames(options.objectOf(row.object), row.object).has(row.name)) {
      // A record naming a declared index is wrong, used or not, and never a reason to drop it: the record goes.
      log.warn({ environment: environmentId, object: row.object, index: row.name }, `autoIndex: ${row.name} is not an automatic index; left in place, record removed`);
      await forgetAutoIndex(knex, row.name);
      use.unwatch(environmentId, row.name);
      continue;
    }
    const since = row.lastUsedAt ?? row.builtAt;
    if (since >= cutoff) {
      report.kept.push(row.name);
      continue;
    }
    await dropIndex(knex, row);
    await forgetAutoIndex(knex, row.name);
    use.unwatch(environmentId, row.name);
    report.dropped.push(row.name);
    const days = Math.floor((now - since) / DAY_MS);
    log.info({ environment: environmentId, object: row.object, index: row.name, columns: row.columns, unusedDays: days },
      `autoIndex: dropped ${row.name} on ${row.object} (${row.columns.join(', ')}), ${row.lastUsedAt === null ? 'never used' : 'unused'} for ${days} days`);
  }
  return report;
}

/** The names of the indexes the engine keeps for an object (declared, indexed and unique fields, owner). */
function declaredIndexNames(object: ResolvedObject | undefined, table: string): Set<string> {
  if (!object) return new Set();
  return new Set(objectIndexes(object).map((index) => indexName(table, index.columns, index.unique)));
}

async function dropIndex(knex: Knex, row: AutoIndexRow): Promise<void> {
  // PostgreSQL: concurrently, outside any transaction, so reads and writes of the table go on.
  await knex.raw(dialectOf(knex) === 'postgres' ? `drop index concurrently if exists ${quoteIdent(row.name)}` : `drop index if exists ${quoteIdent(row.name)}`);
}
