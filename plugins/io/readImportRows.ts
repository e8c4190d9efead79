import type { DataRecord } from '../../capabilities/dataEngine.ts';
import { codedError } from '../../kernel/errors.ts';
import type { ResolvedObject } from '../../metadata/types.ts';
import { coerceCell, coerceJsonValue, type CellValue } from './coerceCell.ts';
import { CsvReader, type CsvRecord, type CsvValueLimit } from './CsvReader.ts';
import { cellLimitOf, DEFAULT_MAX_LENGTH } from '../../metadata/fieldLimits.ts';
import { checkJsonMapping, planCsvColumns, type Mapping } from './planColumns.ts';

/** Rows accepted by one import request (the interface's limit). */
export const MAX_IMPORT_ROWS = 5000;

export interface RowError {
  /** The field (or '' for the whole row). */
  path: string;
  message: string;
  /** The CSV column or JSON key the value came from, when it differs from the field. */
  column?: string;
  /** The size bound the value went over (`maxLength`, `maxBytes`) and its value. */
  limit?: string;
  max?: number;
}

/** One data row, ready for the engine. */
export interface ImportRow {
  /** 1-based number of the row among the data rows (the CSV header is row 0). */
  row: number;
  input: DataRecord;
  /** Values that could not be read as their field's type. */
  errors: RowError[];
  /** Field -> the column or key it was read from, where the names differ (for error reports). */
  columns: Record<string, string>;
  /** The row's shape is wrong (a CSV record with too few or too many values): the engine is not asked. */
  unreadable: boolean;
}

/**
 * The longest cell an import into `object` reads, in characters: the largest size bound of its
 * fields (metadata/fieldLimits.ts), at least the text default. A cell over it fails the whole
 * request while the CSV is read; a cell over its own field's bound fails its row (coerceCell).
 */
export function importCellLimit(object: ResolvedObject): number {
  let max: number = DEFAULT_MAX_LENGTH.text;
  for (const field of Object.values(object.fields)) max = Math.max(max, cellLimitOf(field) ?? 0);
  return max;
}

function refuseIfTooLarge(count: number): void {
  if (count > MAX_IMPORT_ROWS) throw codedError('IMPORT_TOO_LARGE', { count, max: MAX_IMPORT_ROWS });
}

function put(row: ImportRow, field: string, column: string, cell: CellValue, sources: Map<string, string>): void {
  const from = column === field ? {} : { column };
  const earlier = sources.get(field);
  if (earlier !== undefined) {
    row.errors.push({ path: field, message: `is given twice (by '${earlier}' and '${column}')`, ...from });
    return;
  }
  sources.set(field, column);
  if (column !== field) row.columns[field] = column;
  if (cell.kind === 'value') row.input[field] = cell.value;
  else if (cell.kind === 'error') row.errors.push({ path: field, message: cell.message, ...from, ...(cell.limit ? { limit: cell.limit, max: cell.max! } : {}) });
}

/**
 * The records of a CSV file as they are read: the header, then the data records (blank lines
 * skipped but counted, so row numbers match the file's records). Past the row limit records are
 * only counted, so a file far over it is refused with its count without being held.
 */
export class CsvTable {
  header: string[] | null = null;
  readonly data: Array<{ row: number; cells: string[] }> = [];
  count = 0;
  private index = 0;
  private readonly limit: CsvValueLimit;

  /** `object`: the import's target, whose largest field bounds every cell as it is read. */
  constructor(object: ResolvedObject) {
    const max = importCellLimit(object);
    this.limit = {
      max,
      refuse: (line, index) => {
        const column = this.header?.[index] ?? `column ${index + 1}`;
        const message = `'${column.slice(0, 64)}' holds a value longer than ${max} characters, the most a field of ${object.name} takes; shorten it or raise the field's maxLength (maxBytes for json)`;
        return codedError('VALIDATION_ERROR', { summary: `csv line ${line}: ${message}`, errors: [{ path: 'csv', line, column: column.slice(0, 64), message, limit: 'cellLength', max }] });
      },
    };
  }

  /** A reader that adds the records of CSV text to this table, refusing a value over the cell limit as it reads it. */
  reader(): CsvReader {
    return new CsvReader(this.add, this.limit);
  }

  add = (record: CsvRecord): void => {
    if (this.header === null) {
      this.header = record.cells.map((c) => c.trim());
      return;
    }
    this.index++;
    if (record.cells.length === 1 && record.cells[0] === '') return;
    this.count++;
    if (this.count <= MAX_IMPORT_ROWS) this.data.push({ row: this.index, cells: record.cells });
  };
}

/** CSV text to rows (see tableRows). */
export function csvRows(object: ResolvedObject, csv: string, mapping: Mapping): ImportRow[] {
  const table = new CsvTable(object);
  const reader = table.reader();
  reader.push(csv);
  reader.end();
  return tableRows(object, table, mapping);
}

/** A read CSV table to rows: the header is mapped to fields by planCsvColumns, then each record read by type. */
export function tableRows(object: ResolvedObject, table: CsvTable, mapping: Mapping): ImportRow[] {
  const header = table.header;
  if (!header) throw codedError('VALIDATION_ERROR', { summary: 'csv is empty: the first line must be a header naming the columns', errors: [{ path: 'csv', message: 'is empty' }] });
  refuseIfTooLarge(table.count);
  const targets = planCsvColumns(object, header, mapping);
  return table.data.map(({ row, cells }) => {
    const result: ImportRow = { row, input: {}, errors: [], columns: {}, unreadable: false };
    if (cells.length !== header.length) {
      result.errors.push({ path: '', message: `has ${cells.length} value(s) but the header has ${header.length} column(s)` });
      result.unreadable = true;
      return result;
    }
    const sources = new Map<string, string>();
    targets.forEach((field, i) => {
      if (field !== null) put(result, field, header[i]!, coerceCell(object.fields[field]!, cells[i]!), sources);
    });
    return result;
  });
}

/**
 * JSON rows: keys are renamed by the mapping (null drops a key); string values are read by the
 * field's type like CSV cells. A key that is not a field goes to the engine, which reports it.
 */
export function jsonRows(object: ResolvedObject, rows: readonly Record<string, unknown>[], mapping: Mapping): ImportRow[] {
  refuseIfTooLarge(rows.length);
  checkJsonMapping(object, mapping);
  return rows.map((source, i) => {
    const result: ImportRow = { row: i + 1, input: {}, errors: [], columns: {}, unreadable: false };
    const sources = new Map<string, string>();
    for (const [key, raw] of Object.entries(source)) {
      const target = Object.hasOwn(mapping, key) ? (mapping[key] ?? null) : key;
      if (target === null) continue;
      const field = object.fields[target];
      put(result, target, key, field ? coerceJsonValue(field, raw) : { kind: 'value', value: raw }, sources);
    }
    return result;
  });
}
