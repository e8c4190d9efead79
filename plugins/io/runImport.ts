import { requireScope } from '../../capabilities/credentialScopes.ts';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { DataContext, DataEngine } from '../../capabilities/dataEngine.ts';
import { isCodedError } from '../../kernel/errors.ts';
import type { Logger } from '../../kernel/logger.ts';
import type { ImportRow, RowError } from './readImportRows.ts';

export interface ImportOptions {
  /** Check every row for real, then roll everything back. */
  dryRun: boolean;
  /** All rows or none: one failed row rolls the whole import back. */
  atomic: boolean;
}

export interface RowReport {
  row: number;
  /** The error code the row failed with (VALIDATION_ERROR for bad values). */
  code: string;
  errors: RowError[];
}

export interface ImportResult {
  dryRun: boolean;
  atomic: boolean;
  /** Data rows in the request. */
  total: number;
  /** Rows that passed every check (on a dry run: the rows a real import could create). */
  valid: number;
  failed: number;
  /** Records written: 0 on a dry run and when an atomic import is rolled back. */
  created: number;
  errors: RowReport[];
  /** Written records by row; only when the import committed. */
  rows?: Array<{ row: number; id: string }>;
}

/** Thrown inside the transaction to undo it; never leaves this file. */
class Undo extends Error {}

const PROGRESS_EVERY = 1000;
/** Rows created together by one engine call. */
const BATCH_ROWS = 250;
/** Rows between turns of the event loop, and after each batch (SQLite answers without I/O, so a long import would otherwise hold it). */
const YIELD_EVERY = 50;

/** A row's failure as reported: coded request errors only; anything else is a fault that fails the whole request. */
function reported(error: unknown, row: ImportRow): { code: string; errors: RowError[] } {
  if (!isCodedError(error) || error.status >= 500) throw error;
  const list = error.details.errors;
  if (error.code !== 'VALIDATION_ERROR' || !Array.isArray(list)) return { code: error.code, errors: [{ path: '', message: error.message }] };
  return {
    code: error.code,
    errors: (list as Array<{ path?: unknown; message?: unknown; limit?: unknown; max?: unknown }>).map((e) => {
      const path = typeof e.path === 'string' ? e.path : '';
      const column = row.columns[path];
      const bound = typeof e.limit === 'string' && typeof e.max === 'number' ? { limit: e.limit, max: e.max } : {};
      return { path, message: String(e.message ?? 'is not valid'), ...(column !== undefined ? { column } : {}), ...bound };
    }),
  };
}

/**
 * Imports rows through engine.createMany in batches inside one transaction, so every row gets the
 * engine's full checks and hooks as a single create, unique and lookup checks see the rows before
 * it, and a failed row undoes only itself. Every row is tried, whatever fails before it. The
 * transaction is then committed, or rolled back for a dry run and for an atomic import with
 * a failed row.
 */
export async function runImport(
  engine: DataEngine, object: string, rows: readonly ImportRow[], ctx: DataContext, options: ImportOptions, log: Logger,
): Promise<ImportResult> {
  // Refused as a whole, not row by row: every row would be.
  requireScope(ctx.principal, 'data:write', `import into object ${object.slice(0, 64)}`);
  const errors: RowReport[] = [];
  const created: Array<{ row: number; id: string }> = [];
  const started = Date.now();

  /** A row whose values could not all be read: it fails, and the engine still checks the rest of it. */
  async function probeRow(tx: DataEngine, row: ImportRow): Promise<void> {
    if (row.unreadable) {
      errors.push({ row: row.row, code: 'VALIDATION_ERROR', errors: row.errors });
      return;
    }
    // Values that could not be read are left out; the engine still checks the rest of the
    // row, in a savepoint that is always undone, so the report names every problem at once.
    const unread = new Set(row.errors.map((e) => e.path));
    let rest: RowError[] = [];
    try {
      await tx.transaction(ctx, async (probe) => {
        await probe.create(object, row.input, ctx);
        throw new Undo();
      });
    } catch (error) {
      if (!(error instanceof Undo)) rest = reported(error, row).errors.filter((e) => !unread.has(e.path));
    }
    errors.push({ row: row.row, code: 'VALIDATION_ERROR', errors: [...row.errors, ...rest] });
  }

  /** Rows read in full, created together: each still fails or succeeds on its own. */
  async function createRows(tx: DataEngine, batch: ImportRow[]): Promise<void> {
    if (batch.length === 0) return;
    const outcomes = await tx.createMany(object, batch.map((row) => row.input), ctx, { idsOnly: true });
    for (const [i, outcome] of outcomes.entries()) {
      const row = batch[i]!;
      if (outcome.record) created.push({ row: row.row, id: String(outcome.record.id) });
      else errors.push({ row: row.row, ...reported(outcome.error, row) });
    }
  }

  // What needs no database (coercion, size bounds) is done before the transaction opens: on
  // SQLite the transaction holds the one writer, which other requests wait for meanwhile.
  const clean = rows.filter((row) => !row.unreadable && row.errors.length === 0);
  for (let i = 0; i < clean.length; i += BATCH_ROWS) {
    engine.prepareMany(object, clean.slice(i, i + BATCH_ROWS).map((row) => row.input), ctx);
    await nextTurn();
  }

  let committed = false;
  try {
    await engine.transaction(ctx, async (tx) => {
      let batch: ImportRow[] = [];
      for (const [i, row] of rows.entries()) {
        if (row.unreadable || row.errors.length > 0) {
          // The rows before it are written first: its unique and lookup checks see them.
          await createRows(tx, batch);
          batch = [];
          await probeRow(tx, row);
        } else {
          batch.push(row);
        }
        const done = i + 1;
        if (batch.length >= BATCH_ROWS || done === rows.length) {
          await createRows(tx, batch);
          batch = [];
        }
        if (batch.length === 0 || done % YIELD_EVERY === 0) await nextTurn();
        if (done % PROGRESS_EVERY === 0 && done < rows.length) {
          log.info({ object, requestId: ctx.requestId, done, total: rows.length, failed: errors.length }, `import into ${object}: ${done} of ${rows.length} rows`);
        }
      }
      if (options.dryRun || (options.atomic && errors.length > 0)) throw new Undo();
    });
    committed = true;
  } catch (error) {
    if (!(error instanceof Undo)) throw error;
  }
  const byRow = (a: { row: number }, b: { row: number }) => a.row - b.row;
  errors.sort(byRow);
  created.sort(byRow);
  const result: ImportResult = {
    dryRun: options.dryRun,
    atomic: options.atomic,
    total: rows.length,
    valid: created.length,
    failed: errors.length,
    created: committed ? created.length : 0,
    errors,
    ...(committed ? { rows: created } : {}),
  };
  log.info({ object, requestId: ctx.requestId, total: result.total, created: result.created, failed: result.failed, dryRun: options.dryRun, ms: Date.now() - started },
    `import into ${object}: ${result.created} created, ${result.failed} failed${options.dryRun ? ' (dry run)' : committed ? '' : ' (rolled back)'}`);
  return result;
}
