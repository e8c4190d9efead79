import { codedError } from '../../kernel/errors.ts';

/** One CSV record and the physical line it starts on (1-based), for error messages. */
export interface CsvRecord {
  line: number;
  cells: string[];
}

const QUOTE = 34; // "
const COMMA = 44; // ,
const CR = 13;
const LF = 10;

function csvError(line: number, message: string) {
  return codedError('VALIDATION_ERROR', { summary: `csv line ${line}: ${message}`, errors: [{ path: 'csv', line, message }] });
}

/**
 * RFC 4180 CSV: comma-separated, `"`-quoted fields with `""` for a quote, line breaks (CRLF, LF
 * or CR) inside quotes kept as written. A leading byte-order mark is dropped and a final line
 * break ends the last record rather than starting an empty one. Lenient where data in the wild
 * is: a quote inside an unquoted field is kept as a character. Strict where a file is damaged:
 * text after a closing quote, or a quote left open at the end, is a 400 naming the line.
 */
export function parseCsv(input: string): CsvRecord[] {
  const text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  const records: CsvRecord[] = [];
  const n = text.length;
  let line = 1;
  let i = 0;
  if (n === 0) return records;
  for (;;) {
    const start = line;
    const cells: string[] = [];
    // One record: fields until a line break or the end.
    for (;;) {
      if (text.charCodeAt(i) === QUOTE) {
        const opened = line;
        let value = '';
        let from = i + 1;
        for (;;) {
          const q = text.indexOf('"', from);
          if (q === -1) throw csvError(opened, 'a quoted field is not closed; a quote inside a quoted field is written twice ("")');
          value += text.slice(from, q);
          if (text.charCodeAt(q + 1) === QUOTE) {
            value += '"';
            from = q + 2;
            continue;
          }
          i = q + 1;
          break;
        }
        line += countBreaks(value);
        cells.push(value);
        const next = text.charCodeAt(i);
        if (i < n && next !== COMMA && next !== CR && next !== LF) {
          throw csvError(line, `unexpected text after a closing quote in field ${cells.length}; quote the whole field and write a quote inside it as ""`);
        }
      } else {
        let j = i;
        while (j < n) {
          const c = text.charCodeAt(j);
          if (c === COMMA || c === CR || c === LF) break;
          j++;
        }
        cells.push(text.slice(i, j));
        i = j;
      }
      if (i >= n) {
        records.push({ line: start, cells });
        return records;
      }
      const c = text.charCodeAt(i);
      if (c === COMMA) {
        i++;
        continue;
      }
      // A line break: CRLF, LF or a lone CR.
      i += c === CR && text.charCodeAt(i + 1) === LF ? 2 : 1;
      line++;
      records.push({ line: start, cells });
      if (i >= n) return records;
      break;
    }
  }
}

function countBreaks(value: string): number {
  let count = 0;
  for (let k = 0; k < value.length; k++) {
    const c = value.charCodeAt(k);
    if (c === LF) count++;
    else if (c === CR && value.charCodeAt(k + 1) !== LF) count++;
  }
  return count;
}
