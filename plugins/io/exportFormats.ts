import { once } from 'node:events';
import { PassThrough, type Writable } from 'node:stream';
import type ExcelJS from 'exceljs';
import type { DataRecord } from '../../capabilities/dataEngine.ts';
import { cellText, csvLine } from './csvLine.ts';

export interface Column {
  /** Key in the record, and the header of csv and xlsx files. */
  key: string;
  /** Header of the pdf table. */
  label: string;
}

export interface FileNames {
  /** The object's plural label: the sheet name. */
  label: string;
  /** The label and the time of the export: the pdf title. */
  title: string;
}

/** Writes one file into `out`, a page of records at a time; the caller waits for `out` to drain between pages. */
export interface ExportWriter {
  /** Resolves when the format's own buffers can take the next page. */
  rows(records: readonly DataRecord[]): void | Promise<void>;
  /** Writes the end of the file; resolves once all of it has been handed to `out`. */
  end(): Promise<void>;
}

export interface ExportFormat {
  contentType: string;
  extension: string;
  /**
   * `sample` is the first page, to size pdf columns. The spreadsheet and PDF libraries are loaded
   * by the first export that needs them, not at start.
   */
  open(out: Writable, columns: readonly Column[], names: FileNames, sample: readonly DataRecord[]): Promise<ExportWriter>;
}

export const EXPORT_FORMATS = ['csv', 'xlsx', 'pdf', 'json'] as const;
export type ExportFormatName = (typeof EXPORT_FORMATS)[number];

/** Excel refuses cells longer than this. */
const XLSX_CELL_LIMIT = 32_767;

function xlsxValue(value: unknown): string | number | boolean | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  const text = cellText(value);
  if (text === '') return null;
  return text.length > XLSX_CELL_LIMIT ? text.slice(0, XLSX_CELL_LIMIT) : text;
}

/** Sheet names: at most 31 characters, none of []:*?/\ . */
function sheetName(label: string): string {
  return label.replace(/[[\]:*?/\\]/g, ' ').slice(0, 31) || 'Export';
}

interface PipeTarget {
  _writableState?: { needDrain?: boolean };
  once(event: string, listener: () => void): unknown;
}

/**
 * exceljs writes committed rows into its zip entry without waiting for the compressor, so a fast
 * reader would pile the uncompressed sheet up in memory: wait until the compressor has caught up.
 * The entry's targets are internal to exceljs; if their shape changes, this waits for nothing.
 */
async function compressorCaughtUp(sheet: ExcelJS.Worksheet): Promise<void> {
  const pipes = (sheet as unknown as { stream?: { pipes?: PipeTarget[] } }).stream?.pipes ?? [];
  for (const target of pipes) {
    while (target._writableState?.needDrain) {
      await Promise.race([once(target as unknown as NodeJS.EventEmitter, 'drain'), once(target as unknown as NodeJS.EventEmitter, 'error')]);
    }
  }
}

/**
 * Gathers the many small chunks a document library emits (pdfkit writes each PDF object in
 * pieces) into writes of about 64 KiB, so the response is not a stream of tiny HTTP chunks.
 */
class Coalescer {
  private chunks: Buffer[] = [];
  private size = 0;

  constructor(private readonly out: Writable) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    if (this.size >= 65_536) this.flush();
  }

  flush(): void {
    if (this.size === 0) return;
    this.out.write(this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks, this.size));
    this.chunks = [];
    this.size = 0;
  }
}

const csv: ExportFormat = {
  contentType: 'text/csv; charset=utf-8',
  extension: 'csv',
  async open(out, columns) {
    out.write(csvLine(columns.map((c) => c.key)));
    return {
      rows: (records) => void out.write(records.map((r) => csvLine(columns.map((c) => r[c.key]))).join('')),
      end: async () => undefined,
    };
  },
};

const json: ExportFormat = {
  contentType: 'application/json; charset=utf-8',
  extension: 'json',
  async open(out, columns) {
    let first = true;
    out.write('[');
    return {
      rows(records) {
        let text = '';
        for (const record of records) {
          const picked: DataRecord = {};
          for (const c of columns) picked[c.key] = record[c.key] ?? null;
          text += `${first ? '\n' : ',\n'}${JSON.stringify(picked)}`;
          first = false;
        }
        if (text !== '') out.write(text);
      },
      end: async () => void out.write(first ? ']\n' : '\n]\n'),
    };
  },
};

const xlsx: ExportFormat = {
  contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  extension: 'xlsx',
  async open(out, columns, names) {
    const { default: ExcelJS } = await import('exceljs');
    // exceljs zips into its own stream; its bytes are forwarded so `out` alone carries backpressure.
    const zip = new PassThrough();
    const bytes = new Coalescer(out);
    zip.on('data', (chunk: Buffer) => bytes.push(chunk));
    const zipped = new Promise<void>((resolve, reject) => {
      zip.on('end', resolve);
      zip.on('error', reject);
    });
    // Styles would double the cost of every row: the header is told apart by being frozen, not bold.
    const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: zip, useStyles: false, useSharedStrings: false });
    const sheet = workbook.addWorksheet(sheetName(names.label), { views: [{ state: 'frozen', ySplit: 1 }] });
    sheet.columns = columns.map((c) => ({ key: c.key, width: Math.min(40, Math.max(10, c.key.length + 2)) }));
    sheet.addRow(columns.map((c) => c.key)).commit();
    return {
      async rows(records) {
        for (const record of records) sheet.addRow(columns.map((c) => xlsxValue(record[c.key]))).commit();
        await compressorCaughtUp(sheet);
        bytes.flush();
      },
      async end() {
        sheet.commit();
        await workbook.commit();
        await zipped;
        bytes.flush();
      },
    };
  },
};

const pdf: ExportFormat = {
  contentType: 'application/pdf',
  extension: 'pdf',
  async open(out, columns, names, sample) {
    const { PdfTable } = await import('./pdfTable.ts');
    // Column widths follow the first page's typical text length, within bounds.
    const weight = (key: string, label: string) => {
      const lengths = sample.map((r) => Math.min(cellText(r[key]).length, 40));
      const typical = lengths.length > 0 ? lengths.reduce((a, b) => a + b, 0) / lengths.length : 0;
      return Math.max(6, Math.min(40, Math.max(typical, label.length)));
    };
    const table = new PdfTable({ title: names.title, columns: columns.map((c) => ({ label: c.label, weight: weight(c.key, c.label) })), compress: true });
    const bytes = new Coalescer(out);
    table.doc.on('data', (chunk: Buffer) => bytes.push(chunk));
    const ended = new Promise<void>((resolve, reject) => {
      table.doc.on('end', resolve);
      table.doc.on('error', reject);
    });
    return {
      rows(records) {
        table.addRows(records.map((r) => columns.map((c) => cellText(r[c.key]))));
        bytes.flush();
      },
      async end() {
        table.end();
        await ended;
        bytes.flush();
      },
    };
  },
};

export const FORMATS: Record<ExportFormatName, ExportFormat> = { csv, xlsx, pdf, json };
