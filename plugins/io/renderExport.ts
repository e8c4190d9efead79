import { PassThrough } from 'node:stream';
import type { DataRecord } from '../../capabilities/dataEngine.ts';
import type { ExportColumn, RenderedFile } from '../../capabilities/ioExport.ts';
import { EXPORT_FORMATS, FORMATS, type ExportFormatName } from './exportFormats.ts';
import { badRequest } from './ioRequest.ts';

/** One file from rows in memory, through the writers of the streamed export (io.export's render). */
export async function renderExport(format: string, columns: readonly ExportColumn[], rows: readonly DataRecord[], names: { label: string; title: string }): Promise<RenderedFile> {
  if (!(EXPORT_FORMATS as readonly string[]).includes(format)) badRequest('format', `must be one of ${EXPORT_FORMATS.join(', ')}`);
  const writerOf = FORMATS[format as ExportFormatName];
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (chunk: Buffer | string) => chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
  const ended = new Promise<void>((resolve, reject) => {
    out.on('end', resolve);
    out.on('error', reject);
  });
  const writer = await writerOf.open(out, columns, names, rows);
  await writer.rows(rows);
  await writer.end();
  out.end();
  await ended;
  return { body: Buffer.concat(chunks), contentType: writerOf.contentType, extension: writerOf.extension };
}
