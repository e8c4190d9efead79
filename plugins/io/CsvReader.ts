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

/** The longest value a record may hold, and how an over-long one is reported (the column's name). */
export interface CsvValueLimit {
  max: number;
  /** The error for a value over `max` in the cell at `index` (0-based) of the record starting on `line`. */
  refuse(line: number, index: number): Error;
}

/** Where the reader is: between records, at the start of a field, inside one, or just after a quote inside a quoted one. */
type State = 'record' | 'field' | 'plain' | 'quoted' | 'quote';

/**
 * RFC 4180 CSV read chunk by chunk (text split anywhere gives the same records as read whole):
 * comma-separated, `"`-quoted fields with `""` for a quote, line breaks (CRLF, LF or CR) inside
 * quotes kept as written. A leading byte-order mark is dropped and a final line break ends the
 * last record rather than starting an empty one. Lenient where data in the wild is: a quote
 * inside an unquoted field is kept as a character. Strict where a file is damaged: text after a
 * closing quote, or a quote left open at the end, is a 400 naming the line.
 */
export class CsvReader {
  private state: State = 'record';
  private line = 1;
  private start = 1;
  private opened = 1;
  private cells: string[] = [];
  private value = '';
  /** The last character of a quoted value was a CR (a following LF is the same line break). */
  private valueCr = false;
  /** A record just ended on a CR: an LF right after it belongs to that line break. */
  private skipLf = false;
  private first = true;

  constructor(private readonly onRecord: (record: CsvRecord) => void, private readonly limit?: CsvValueLimit) {}

  /** The value grows by `adding` characters: past the limit the read stops before they are copied. */
  private grow(adding: number): void {
    if (this.limit && this.value.length + adding > this.limit.max) throw this.limit.refuse(this.start, this.cells.length);
  }

  push(text: string): void {
    let i = 0;
    if (this.first && text.length > 0) {
      this.first = false;
      if (text.charCodeAt(0) === 0xfeff) i = 1;
    }
    const n = text.length;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (this.skipLf) {
        this.skipLf = false;
        if (c === LF) {
          i++;
          continue;
        }
      }
      switch (this.state) {
        case 'record':
          this.start = this.line;
          this.state = 'field';
          continue;
        case 'field':
          if (c === QUOTE) {
            this.state = 'quoted';
            this.opened = this.line;
            this.valueCr = false;
            i++;
          } else this.state = 'plain';
          continue;
        case 'plain': {
          let j = i;
          while (j < n) {
            const d = text.charCodeAt(j);
            if (d === COMMA || d === CR || d === LF) break;
            j++;
          }
          this.grow(j - i);
          this.value += text.slice(i, j);
          i = j;
          if (i < n) i = this.separator(text.charCodeAt(i), i);
          continue;
        }
        case 'quoted': {
          const q = text.indexOf('"', i);
          const end = q === -1 ? n : q;
          this.grow(end - i);
          this.countBreaks(text, i, end);
          this.value += text.slice(i, end);
          i = end;
          if (q !== -1) {
            this.state = 'quote';
            i++;
          }
          continue;
        }
        case 'quote':
          if (c === QUOTE) {
            this.grow(1);
            this.value += '"';
            this.valueCr = false;
            this.state = 'quoted';
            i++;
          } else if (c === COMMA || c === CR || c === LF) {
            i = this.separator(c, i);
          } else {
            throw csvError(this.line, `unexpected text after a closing quote in field ${this.cells.length + 1}; quote the whole field and write a quote inside it as ""`);
          }
          continue;
      }
    }
  }

  /** The end of the input: the last record, if one was started. */
  end(): void {
    if (this.state === 'quoted') throw csvError(this.opened, 'a quoted field is not closed; a quote inside a quoted field is written twice ("")');
    if (this.state === 'record') return;
    this.cells.push(this.value);
    this.emit();
  }

  /** A comma or a line break at index i ends a field; returns the index after it. */
  private separator(c: number, i: number): number {
    this.cells.push(this.value);
    this.value = '';
    if (c === COMMA) {
      this.state = 'field';
      return i + 1;
    }
    this.emit();
    this.line++;
    this.state = 'record';
    this.skipLf = c === CR;
    return i + 1;
  }

  private emit(): void {
    this.onRecord({ line: this.start, cells: this.cells });
    this.cells = [];
    this.value = '';
  }

  /** Line breaks inside a quoted value move the line count (CRLF once), even when a chunk splits them. */
  private countBreaks(text: string, from: number, to: number): void {
    for (let k = from; k < to; k++) {
      const c = text.charCodeAt(k);
      if (c === LF) {
        if (!this.valueCr) this.line++;
        this.valueCr = false;
      } else if (c === CR) {
        this.line++;
        this.valueCr = true;
      } else this.valueCr = false;
    }
  }
}
