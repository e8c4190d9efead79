/** Characters that make a spreadsheet program read a cell as a formula. */
const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/** The text of one value in an exported file: multiselect as `a;b` (as import reads it), json as JSON. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.join(';');
  return JSON.stringify(value);
}

/**
 * One CSV field (RFC 4180): quoted when it holds a quote, comma or line break. A text value that
 * a spreadsheet would run as a formula gets a leading `'` (CSV injection); numbers are numbers
 * in the record, so a negative number is left alone.
 */
export function csvField(value: unknown): string {
  let text = cellText(value);
  if (typeof value === 'string' && FORMULA_START.test(text)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One CSV record with its CRLF line break. */
export function csvLine(values: readonly unknown[]): string {
  return `${values.map(csvField).join(',')}\r\n`;
}
