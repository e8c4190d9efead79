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
  if (window.action === 'anonymize') {
    return { ...base, cutoff, status: 'skipped', rows: 0, more: false, reason: "action 'anonymize' is not applied by lifecycle; delete and archive are" };
  }
  const { knex } = db;
  if (!(await knex.schema.hasTable(window.object))) return { ...base, cutoff, status: 'missing', rows: 0, more: false, reason: `no table '${window.object}' in this environment` };
  if (options.dryRun) {
    const row = (await pastWindow(knex, window, cutoff).count({ n: '*' }).first()) as { n: number | string } | undefined;
    return { ...base, cutoff, status: 'applied', rows: Number(row?.n ?? 0), more: false };
  }
  // The physical row id: no assumption on the table's own key.
  const rowId = db.dialect === 'sqlite' ? 'rowid' : 'ctid';
  if (window.action === 'archive') await ensureArchiveTable(knex);
  let rows = 0;
  for (let batch = 0; batch < options.maxBatches; batch++) {
    const removed = window.action === 'archive'
      ? await archiveBatch(db, window, cutoff, rowId, options.batchSize)
      : await knex(window.object).whereIn(knex.raw(rowId) as unknown as string, pastWindow(knex, window, cutoff).select(knex.raw(rowId)).limit(options.batchSize)).del();
    rows += removed;
    if (removed < options.batchSize) return { ...base, cutoff, status: 'applied', rows, more: false };
  }
  return { ...base, cutoff, status: 'applied', rows, more: true, reason: `stopped after ${options.maxBatches} batches of ${options.batchSize}; the next run goes on` };
}

/** Where archived rows go: one table for every archive contract, each row kept whole as JSON. */
export const ARCHIVE_TABLE = 'osr_archive';

async function ensureArchiveTable(knex: Knex): Promise<void> {
  if (await knex.schema.hasTable(ARCHIVE_TABLE)) return;
  await knex.schema.createTable(ARCHIVE_TABLE, (table) => {
    table.increments('seq').primary();
    table.string('contract', 200).notNullable();
    table.string('object', 63).notNullable();
    table.string('row_id', 200);
    table.string('archived_at', 40).notNullable();
    table.text('row').notNullable();
    table.index(['object', 'row_id']);
  }).catch(async (error: unknown) => {
    // Another process created it first.
    if (!(await knex.schema.hasTable(ARCHIVE_TABLE))) throw error;
  });
}

/** One batch moved: the rows copied into the archive and removed from their table in one transaction. */
async function archiveBatch(db: SideTableAccess, window: RetentionWindow, cutoff: string, rowId: string, size: number): Promise<number> {
  return db.writeTransaction(async (trx) => {
    const rows = (await pastWindow(trx, window, cutoff).select('*', trx.raw(`${rowId} as osr_row_key`)).limit(size)) as Array<Record<string, unknown>>;
    if (rows.length === 0) return 0;
    const archivedAt = new Date().toISOString();
    await trx(ARCHIVE_TABLE).insert(rows.map(({ osr_row_key: _key, ...row }) => ({
      contract: window.name, object: window.object, row_id: row.id === undefined || row.id === null ? null : String(row.id), archived_at: archivedAt, row: JSON.stringify(row),
    })));
    const removed: number = await trx(window.object).whereIn(trx.raw(rowId) as unknown as string, rows.map((r) => r.osr_row_key as string)).del();
    return removed;
  });
}
