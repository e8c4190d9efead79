import type { DataRecord } from './dataEngine.ts';
import { defineCapability } from './defineCapability.ts';

/** A column of an exported table: `key` in each row (and the csv/xlsx header), `label` the pdf header. */
export interface ExportColumn {
  key: string;
  label: string;
}

export interface RenderedFile {
  body: Buffer;
  contentType: string;
  /** File extension without the dot: `csv`, `xlsx`, `pdf`, `json`. */
  extension: string;
}

export interface IoExport {
  /** The formats `render` writes. */
  readonly formats: readonly string[];
  /**
   * Writes rows already read (through the data engine, as their reader) into one file of a format,
   * with the same writers as POST /data/:object/export. For bounded row counts: the file is built
   * in memory. `label` names the sheet, `title` heads the pdf.
   */
  render(format: string, columns: readonly ExportColumn[], rows: readonly DataRecord[], names: { label: string; title: string }): Promise<RenderedFile>;
}

export const ioExport = defineCapability<IoExport>()({
  id: 'io.export',
  cardinality: 'single',
  description: 'Write rows into a csv, xlsx, pdf or json file with the writers of the data export route.',
});
