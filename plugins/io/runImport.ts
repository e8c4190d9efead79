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
/** Rows between yields to the event loop (SQLite answers without I/O, so a long import would otherwise hold it). */
const YIELD_EVERY = 50;

/** A row's failure as reported: coded request errors only; anything else is a fault that fails the whole request. */
function reported(error: unknown, row: ImportRow): { code: string; errors: RowError[] } {
  if (!isCodedError(error) || error.status >= 500) throw error;
  const list = error.details.errors;
  if (error.code !== 'VALIDATION_ERROR' || !Array.isArray(list)) return { code: error.code, errors: [{ path: '', message: error.message }] };
  return {
    code: error.code,
    errors: (list as Array<{ path?: unknown; message?: unknown }>).map((e) => {
      const path = typeof e.path === 'string' ? e.path : '';
      const column = row.columns[path];
      return { path, message: String(e.message ?? 'is not valid'), ...(column !== undefined ? { column } : {}) };
    }),
  };
}

/**
 * Imports rows through engine.create, one savepoint per row inside one transaction, so every
 * row gets the engine's full checks and hooks, unique and lookup checks see the rows before it,
 * and a failed row undoes only itself. Every row is tried, whatever fails before it. The
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

  async function importRow(tx: DataEngine, row: ImportRow): Promise<void> {
    if (row.unreadable) {
      errors.push({ row: row.row, code: 'VALIDATION_ERROR', errors: row.errors });
      return;
    }
    if (row.errors.length > 0) {
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
      return;
    }
    try {
      const record = await tx.create(object, row.input, ctx);
      created.push({ row: row.row, id: String(record.id) });
    } catch (error) {
      errors.push({ row: row.row, ...reported(error, row) });
    }
  }

  let committed = false;
  try {
    await engine.transaction(ctx, async (tx) => {
      for (const [i, row] of rows.entries()) {
        await importRow(tx, row);
        if ((i + 1) % YIELD_EVERY === 0) await nextTurn();
        if ((i + 1) % PROGRESS_EVERY === 0 && i + 1 < rows.length) {
          log.info({ object, requestId: ctx.requestId, done: i + 1, total: rows.length, failed: errors.length }, `import into ${object}: ${i + 1} of ${rows.length} rows`);
        }
      }
      if (options.dryRun || (options.atomic && errors.length > 0)) throw new Undo();
    });
    committed = true;
  } catch (error) {
    if (!(error instanceof Undo)) throw error;
  }
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
