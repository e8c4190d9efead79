/** What the baseline server does per scenario: the same queries as the runtime, written by hand. */
export interface BaselineStore {
  get(id: string): Promise<Row | undefined>;
  /** First page by id, plus the total. */
  page(limit: number): Promise<Page>;
  /** Status filter, amount descending (nulls last), id tie-break, plus the filtered total. */
  filtered(status: string, limit: number): Promise<Page>;
  /** Keyset walk over (amount, id), plus the total. */
  walk(after: [number, string] | null, limit: number): Promise<Page>;
  countByStatus(): Promise<Array<{ status: string; n: number }>>;
  create(values: Row): Promise<Row>;
  /** Versioned update; undefined when the version did not match. */
  update(id: string, version: number, values: Row): Promise<Row | undefined>;
  /** Inserts every row in one transaction; the count inserted. */
  importRows(rows: Row[]): Promise<number>;
  /** Every row, in id order, as CSV lines (header first). */
  exportCsv(): AsyncIterable<string>;
  close(): Promise<void>;
}

export type Row = Record<string, unknown>;

export interface Page {
  items: Row[];
  total: number;
  nextCursor: string | null;
}

export const UPDATABLE = ['counter', 'name', 'notes', 'status'];
export const INSERTABLE = ['name', 'status', 'amount', 'score', 'quantity', 'counter', 'active', 'due_date', 'email', 'tags', 'notes'];

export function encodeWalkCursor(row: Row): string {
  return Buffer.from(JSON.stringify([Number(row.amount), row.id])).toString('base64url');
}

export function decodeWalkCursor(cursor: string | undefined): [number, string] | null {
  if (!cursor) return null;
  const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
  if (!Array.isArray(value) || typeof value[0] !== 'number' || typeof value[1] !== 'string') throw new Error('bad cursor');
  return [value[0], value[1]];
}

/** The page and whether a row follows it (one more row than the limit was read). */
export function toPage(rows: Row[], limit: number, total: number, cursorOf?: (row: Row) => string): Page {
  const more = rows.length > limit;
  const items = more ? rows.slice(0, limit) : rows;
  return { items, total, nextCursor: more && cursorOf ? cursorOf(items[items.length - 1]!) : null };
}

export const EXPORT_COLUMNS = ['id', 'version', 'created_at', 'updated_at', ...INSERTABLE];

/** One CSV line: values quoted when they hold a comma, a quote or a line break. */
export function csvLine(row: Row): string {
  return EXPORT_COLUMNS.map((c) => {
    const v = row[c];
    const text = v === null || v === undefined ? '' : v instanceof Date ? v.toISOString() : typeof v === 'object' ? JSON.stringify(v) : String(v);
    return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  }).join(',') + '\n';
}
