import type { ImportUsersInput } from '../../../capabilities/authIdentity.ts';
import { codedError } from '../../../kernel/errors.ts';
import { parseCsv } from './parseCsv.ts';

export const MAX_IMPORT_ROWS = 500;

export type ImportField = 'email' | 'name' | 'phone';
export type RawRow = Record<ImportField, string> & { invalid: ImportField[] };

/** Column names accepted, compared without case, spaces, dashes or underscores. */
const ALIASES: Record<string, ImportField> = {
  email: 'email', mail: 'email', emailaddress: 'email',
  name: 'name', fullname: 'name', displayname: 'name',
  phone: 'phone', phonenumber: 'phone', mobile: 'phone',
};

const fieldOf = (column: string): ImportField | undefined => ALIASES[column.toLowerCase().replace(/[\s_-]+/g, '')];

const invalid = (summary: string) => codedError('VALIDATION_ERROR', { summary });

function checkSize(count: number): void {
  if (count > MAX_IMPORT_ROWS) throw codedError('IMPORT_TOO_LARGE', { count, max: MAX_IMPORT_ROWS });
}

/** Map a header to fields; unknown columns are refused by name, so a typo is not silently dropped. */
function columnsOf(header: string[]): Array<ImportField | null> {
  const columns = header.map((h) => (h.trim() === '' ? null : fieldOf(h) ?? undefined));
  const unknown = header.filter((_, i) => columns[i] === undefined);
  if (unknown.length > 0) {
    throw invalid(`unknown column(s) ${unknown.map((c) => `'${c.slice(0, 40)}'`).join(', ')}; accepted: email, name, phone`);
  }
  const fields = columns.filter((c): c is ImportField => c !== null && c !== undefined);
  if (new Set(fields).size !== fields.length) throw invalid('a column appears twice (after aliases: email, name, phone)');
  if (!fields.includes('email') && !fields.includes('phone')) throw invalid('the header needs an email or a phone column');
  return columns.map((c) => c ?? null);
}

function fromTable(table: string[][]): RawRow[] {
  if (table.length === 0) throw invalid('the file is empty: the first row must name the columns');
  const columns = columnsOf(table[0]!);
  checkSize(table.length - 1);
  return table.slice(1).map((cells) => {
    const row: RawRow = { email: '', name: '', phone: '', invalid: [] };
    columns.forEach((field, i) => {
      if (field) row[field] = (cells[i] ?? '').trim();
    });
    return row;
  });
}

function fromObjects(rows: Array<Record<string, unknown>>): RawRow[] {
  checkSize(rows.length);
  const keys = new Set(rows.flatMap((r) => (r && typeof r === 'object' ? Object.keys(r) : [])));
  columnsOf([...keys]);
  return rows.map((source) => {
    const row: RawRow = { email: '', name: '', phone: '', invalid: [] };
    for (const [key, value] of Object.entries(source ?? {})) {
      const field = fieldOf(key)!;
      if (typeof value === 'string') row[field] = value.trim();
      else if (typeof value === 'number' && Number.isFinite(value)) row[field] = String(value);
      else if (value !== null && value !== undefined) row.invalid.push(field);
    }
    return row;
  });
}

async function fromXlsx(base64: string): Promise<RawRow[]> {
  // The spreadsheet library is loaded by the first xlsx import, not at start.
  const { default: ExcelJS } = await import('exceljs');
  const workbook = new ExcelJS.Workbook();
  try {
    await workbook.xlsx.load(Buffer.from(base64, 'base64') as unknown as ArrayBuffer);
  } catch (error) {
    throw invalid(`xlsx is not a readable .xlsx workbook (${(error as Error).message.slice(0, 120)})`);
  }
  const sheet = workbook.worksheets[0];
  if (!sheet) throw invalid('the workbook has no sheet');
  const table: string[][] = [];
  sheet.eachRow({ includeEmpty: false }, (row) => {
    const cells: string[] = [];
    for (let c = 1; c <= row.cellCount; c++) cells.push(row.getCell(c).text ?? '');
    if (cells.some((v) => v.trim() !== '')) table.push(cells);
  });
  return fromTable(table);
}

/** The rows of an import request, from exactly one of rows, csv or xlsx, at most 500. */
export async function readImportRows(input: ImportUsersInput): Promise<RawRow[]> {
  const given = (['rows', 'csv', 'xlsx'] as const).filter((k) => input[k] !== undefined);
  if (given.length !== 1) throw invalid(`send exactly one of rows, csv or xlsx (got ${given.length === 0 ? 'none' : given.join(', ')})`);
  if (input.rows) return fromObjects(input.rows);
  if (input.csv !== undefined) return fromTable(parseCsv(input.csv));
  return fromXlsx(input.xlsx!);
}
