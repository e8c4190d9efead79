import { PassThrough, type Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { DataContext, DataEngine, DataRecord } from '../../capabilities/dataEngine.ts';
import type { Logger } from '../../kernel/logger.ts';
import type { ResolvedObject } from '../../metadata/types.ts';
import { FORMATS, type Column, type ExportFormatName } from './exportFormats.ts';

export interface ExportRequest {
  format: ExportFormatName;
  where?: unknown;
  orderBy?: unknown;
  fields?: unknown;
}

export interface ExportStream {
  stream: Readable;
  contentType: string;
  filename: string;
}

const SYSTEM_LABELS: Record<string, string> = {
  id: 'ID', version: 'Version', created_at: 'Created at', updated_at: 'Updated at',
  created_by: 'Created by', updated_by: 'Updated by', owner_id: 'Owner',
};

/** `a,b` or `['a','b']`; anything else goes to the engine as sent, which reports it. */
function fieldList(fields: unknown): string[] | null {
  if (typeof fields === 'string') return fields.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (Array.isArray(fields) && fields.every((f) => typeof f === 'string')) return [...new Set(fields as string[])];
  return null;
}

/** The file's columns: the fields asked for, else those of the records the engine returns. */
function columnsOf(object: ResolvedObject, fields: string[] | null, first: DataRecord | undefined): Column[] {
  // With no rows and no requested fields, only `id` is safe to name: the full field list could
  // include fields the caller may not read (requested fields were checked by the first page's query).
  const keys = fields && fields.length > 0 ? fields : first ? Object.keys(first) : ['id'];
  return keys.map((key) => ({ key, label: object.fields[key]?.label ?? SYSTEM_LABELS[key] ?? key }));
}

/** Waits until what was written has been handed to the response (or a bound of time has passed). */
async function handedOver(out: PassThrough): Promise<void> {
  for (let waited = 0; out.readableLength > 0 && !out.destroyed && waited < 5000; waited += 10) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Resolves when `out` can take more, or is gone. */
function drained(out: PassThrough): Promise<void> {
  if (!out.writableNeedDrain || out.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      out.off('drain', done);
      out.off('close', done);
      resolve();
    };
    out.on('drain', done);
    out.on('close', done);
  });
}

/**
 * Exports every record the caller may read, a page (the object's maxPageSize) at a time through
 * engine.query with cursor pagination, into a stream whose consumer paces the reads: the next
 * page is fetched only once the previous one has drained, so memory stays flat whatever the size.
 * The first page is read before anything is returned: a bad where, orderBy or fields is a 400
 * with the usual envelope. A failure after that can only end the stream early: the client gets
 * a truncated file and the log says why.
 */
export async function startExport(
  engine: DataEngine, object: ResolvedObject, request: ExportRequest, ctx: DataContext, log: Logger,
  /** Told once the export has ended: the rows sent, and whether the file is whole. */
  onEnd?: (rows: number, complete: boolean) => Promise<void>,
): Promise<ExportStream> {
  const fields = fieldList(request.fields);
  const query: Record<string, unknown> = { limit: object.maxPageSize };
  if (request.where !== undefined) query.where = request.where;
  if (request.orderBy !== undefined) query.orderBy = request.orderBy;
  if (request.fields !== undefined) query.fields = fields ?? request.fields;
  let page = await engine.query(object.name, query, ctx, { total: false });

  const format = FORMATS[request.format];
  const columns = columnsOf(object, fields, page.items[0]);
  const out = new PassThrough();
  // A failure is logged below; the stream's error only tells the response to stop.
  out.on('error', () => undefined);
  const started = Date.now();
  const title = `${object.pluralLabel} (${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC)`;
  const writer = await format.open(out, columns, { label: object.pluralLabel, title }, page.items);
  const where = { object: object.name, format: request.format, requestId: ctx.requestId };

  const ended = async (rows: number, complete: boolean) => {
    try {
      await onEnd?.(rows, complete);
    } catch (error) {
      log.error({ ...where, rows, err: error }, `export of ${object.name}: its audit event could not be recorded`);
    }
  };
  const produce = async () => {
    let rows = 0;
    try {
      for (;;) {
        await writer.rows(page.items);
        rows += page.items.length;
        await drained(out);
        // SQLite answers without I/O: without this, a whole export could run in one turn of the
        // event loop and keep every other request waiting.
        await nextTurn();
        if (out.destroyed) {
          log.info({ ...where, rows }, `export of ${object.name} stopped after ${rows} rows: the client went away`);
          await ended(rows, false);
          return;
        }
        if (!page.nextCursor) break;
        page = await engine.query(object.name, { ...query, cursor: page.nextCursor }, ctx, { total: false });
      }
      await writer.end();
      out.end();
      log.info({ ...where, rows, ms: Date.now() - started }, `export of ${object.name}: ${rows} rows as ${request.format}`);
      await ended(rows, true);
    } catch (error) {
      log.error({ ...where, rows, err: error }, `export of ${object.name} failed after ${rows} rows had been sent; the client received a truncated file`);
      // The rows already produced reach the client; then the connection is cut, so the client
      // sees an incomplete response rather than a file that looks whole.
      await handedOver(out);
      out.destroy(error instanceof Error ? error : new Error(String(error)));
      await ended(rows, false);
    }
  };
  void produce();
  const day = new Date().toISOString().slice(0, 10);
  return { stream: out, contentType: format.contentType, filename: `${object.name}-${day}.${format.extension}` };
}
