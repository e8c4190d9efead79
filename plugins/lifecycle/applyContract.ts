import type { Knex } from 'knex';
import type { ContractOutcome } from '../../capabilities/lifecycleRetention.ts';
import type { SideTableAccess } from '../../capabilities/dataDatabase.ts';
import { cutoffOf, type RetentionWindow } from './retentionWindows.ts';

export interface ApplyOptions {
  dryRun: boolean;
  now: Date;
  batchSize: number;
  maxBatches: number;
}

/** Rows of the contract past `cutoff`: older than it, and matching its filter. */
function pastWindow(knex: Knex, window: RetentionWindow, cutoff: string): Knex.QueryBuilder {
  const query = knex(window.object).where(window.ageField, '<', cutoff);
  for (const [column, value] of Object.entries(window.filter ?? {})) {
    if (value === null) query.whereNull(column);
    else query.where(column, value);
  }
  return query;
}

/**
 * One contract in one environment: rows past the window removed in batches of `batchSize`, each
 * its own statement (no long lock; a stop between batches leaves whole rows only), at most
 * `maxBatches` of them; a dry run counts them instead.
 */
export async function applyContract(db: SideTableAccess, window: RetentionWindow, options: ApplyOptions): Promise<ContractOutcome> {
  const base = { name: window.name, plugin: window.plugin, object: window.object, keepDays: window.keepDays, overridden: window.overridden };
  const cutoffDate = cutoffOf(window.keepDays, options.now);
  if (cutoffDate === null) return { ...base, cutoff: null, status: 'kept', rows: 0, more: false, reason: 'keepDays 0 keeps rows forever' };
  const cutoff = cutoffDate.toISOString();
  if (window.action !== 'delete') {
    return { ...base, cutoff, status: 'skipped', rows: 0, more: false, reason: `action '${window.action}' is not applied by lifecycle; only delete is` };
  }
  const { knex } = db;
  if (!(await knex.schema.hasTable(window.object))) return { ...base, cutoff, status: 'missing', rows: 0, more: false, reason: `no table '${window.object}' in this environment` };
  if (options.dryRun) {
    const row = (await pastWindow(knex, window, cutoff).count({ n: '*' }).first()) as { n: number | string } | undefined;
    return { ...base, cutoff, status: 'applied', rows: Number(row?.n ?? 0), more: false };
  }
  // The physical row id: no assumption on the table's own key.
  const rowId = db.dialect === 'sqlite' ? 'rowid' : 'ctid';
  let rows = 0;
  for (let batch = 0; batch < options.maxBatches; batch++) {
    const ids = pastWindow(knex, window, cutoff).select(knex.raw(rowId)).limit(options.batchSize);
    const removed = await knex(window.object).whereIn(knex.raw(rowId) as unknown as string, ids).del();
    rows += removed;
    if (removed < options.batchSize) return { ...base, cutoff, status: 'applied', rows, more: false };
  }
  return { ...base, cutoff, status: 'applied', rows, more: true, reason: `stopped after ${options.maxBatches} batches of ${options.batchSize}; the next run goes on` };
}
