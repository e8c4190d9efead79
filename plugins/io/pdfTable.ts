import PDFDocument from 'pdfkit';

/** WinAnsi bytes 0x80-0x9F that are not Latin-1 (the standard PDF fonts use this encoding). */
const WIN_ANSI: Record<number, number> = {
  0x20ac: 0x80, 0x201a: 0x82, 0x0192: 0x83, 0x201e: 0x84, 0x2026: 0x85, 0x2020: 0x86, 0x2021: 0x87,
  0x02c6: 0x88, 0x2030: 0x89, 0x0160: 0x8a, 0x2039: 0x8b, 0x0152: 0x8c, 0x017d: 0x8e, 0x2018: 0x91,
  0x2019: 0x92, 0x201c: 0x93, 0x201d: 0x94, 0x2022: 0x95, 0x2013: 0x96, 0x2014: 0x97, 0x02dc: 0x98,
  0x2122: 0x99, 0x0161: 0x9a, 0x203a: 0x9b, 0x0153: 0x9c, 0x017e: 0x9e, 0x0178: 0x9f,
};
const ELLIPSIS = 0x85;
const QUESTION = 0x3f;
/** One-character strings by byte: pdfkit writes content strings as latin1, so each becomes that byte. */
const CHARS = Array.from({ length: 256 }, (_, b) => String.fromCharCode(b));
/** Bytes a PDF literal string escapes: ( ) \ */
const escaped = (b: number) => b === 0x28 || b === 0x29 || b === 0x5c;
/** Short cell texts repeat (flags, dates, options): their fitted form is kept per column, up to a bound. */
const CACHED_LENGTH = 12;
const CACHE_SIZE = 4096;

function winAnsi(code: number): number {
  if (code < 0x20) return 0x20; // line breaks and tabs print as spaces
  if (code < 0x7f || (code >= 0xa0 && code <= 0xff)) return code;
  return WIN_ANSI[code] ?? QUESTION;
}

/** pdfkit's font object: its resource name and reference, needed to draw text without the layout engine. */
interface FontHandle {
  id: string;
  ref(): unknown;
}

/** A standard font with its glyph widths by WinAnsi byte, at a given size. */
interface Face {
  handle: FontHandle;
  size: number;
  widths: Float64Array;
}

export interface PdfTableOptions {
  title: string;
  /** Column labels, and the share of the width each column gets. */
  columns: Array<{ label: string; weight: number }>;
  /** Deflate content streams (tests turn it off to read the text). */
  compress: boolean;
}

/** A4 landscape, in points. */
const PAGE_WIDTH = 841.89;
const MARGIN = 30;
const SIZE = 7;
const ROW = 10;
const PAD = 3;

/**
 * A plain table in a landscape A4 PDF: the title, a header row repeated on every page, one line
 * per record with each cell cut to its column with an ellipsis, and page numbers. Body rows are
 * written as raw text operators with a precomputed width table: pdfkit's text layout costs a
 * fraction of a millisecond per cell, which adds up to minutes for a 100k-row export.
 * Characters outside WinAnsi (the encoding of the standard fonts) print as '?'.
 */
export class PdfTable {
  readonly doc: PDFKit.PDFDocument;
  private readonly regular: Face;
  private readonly bold: Face;
  private readonly x: number[];
  private readonly widths: number[];
  private readonly labels: string[];
  private readonly cache: Array<Map<string, string>>;
  private y = 0;
  private pageNumber = 0;

  constructor(options: PdfTableOptions) {
    this.doc = new PDFDocument({ size: 'A4', layout: 'landscape', margin: MARGIN, compress: options.compress, info: { Title: options.title }, autoFirstPage: false });
    this.regular = this.face('Helvetica', SIZE);
    this.bold = this.face('Helvetica-Bold', SIZE);
    this.labels = options.columns.map((c) => c.label);
    this.cache = options.columns.map(() => new Map());
    const usable = PAGE_WIDTH - 2 * MARGIN;
    const total = options.columns.reduce((sum, c) => sum + c.weight, 0) || 1;
    this.widths = options.columns.map((c) => (usable * c.weight) / total);
    this.x = [];
    let at = MARGIN;
    for (const w of this.widths) {
      this.x.push(at);
      at += w;
    }
    this.newPage(options.title);
  }

  /** Draws records (cells as text), starting new pages as they fill; one content write per page touched. */
  addRows(rows: readonly string[][]): void {
    let ops = '';
    for (const cells of rows) {
      if (this.y + ROW > this.doc.page.height - MARGIN - ROW) {
        this.flush(ops);
        ops = '';
        this.newPage(null);
      }
      ops += this.line(cells, this.regular.widths, this.cache);
      this.y += ROW;
    }
    this.flush(ops);
  }

  end(): void {
    this.doc.end();
  }

  private face(name: string, size: number): Face {
    this.doc.font(name).fontSize(size);
    const widths = new Float64Array(256);
    for (let b = 0x20; b < 256; b++) {
      const unicode = Object.entries(WIN_ANSI).find(([, byte]) => byte === b)?.[0];
      const char = unicode !== undefined ? String.fromCharCode(Number(unicode)) : String.fromCharCode(b);
      widths[b] = this.doc.widthOfString(char);
    }
    return { handle: (this.doc as unknown as { _font: FontHandle })._font, size, widths };
  }

  private newPage(title: string | null): void {
    const doc = this.doc;
    doc.addPage();
    this.pageNumber++;
    this.y = MARGIN;
    const fonts = doc.page.fonts as Record<string, unknown>;
    for (const face of [this.regular, this.bold]) fonts[face.handle.id] ??= face.handle.ref();
    if (title !== null) {
      doc.font('Helvetica-Bold').fontSize(11).text(title, MARGIN, this.y, { lineBreak: false });
      this.y += 18;
    }
    doc.font('Helvetica').fontSize(SIZE).text(`Page ${this.pageNumber}`, MARGIN, doc.page.height - MARGIN - 2, { lineBreak: false });
    doc.save().rect(MARGIN, this.y - 2, PAGE_WIDTH - 2 * MARGIN, ROW + 1).fill('#e6e6e6').restore();
    this.flush(this.line(this.labels, this.bold.widths), this.bold);
    this.y += ROW + 2;
  }

  /** Writes text operators for rows of the current page, in PDF coordinates (origin bottom left). */
  private flush(ops: string, face: Face = this.regular): void {
    if (ops === '') return;
    this.doc.addContent(`q 1 0 0 -1 0 ${this.doc.page.height} cm BT /${face.handle.id} ${face.size} Tf${ops} ET Q`);
  }

  /** One row: the text position is set at its first column, then moves right column by column. */
  private line(cells: readonly string[], widths: Float64Array, cache?: Array<Map<string, string>>): string {
    const baseline = (this.doc.page.height - this.y - SIZE * 0.85).toFixed(2);
    let ops = ` 1 0 0 1 ${(this.x[0]! + PAD).toFixed(2)} ${baseline} Tm`;
    let at = 0;
    for (let i = 0; i < this.widths.length; i++) {
      const cell = cells[i] ?? '';
      const column = cache && cell.length <= CACHED_LENGTH ? cache[i]! : null;
      let text = column?.get(cell);
      if (text === undefined) {
        text = fit(cell, this.widths[i]! - 2 * PAD, widths);
        if (column) {
          if (column.size >= CACHE_SIZE) column.clear();
          column.set(cell, text);
        }
      }
      if (text === '') continue;
      if (i !== at) ops += ` ${(this.x[i]! - this.x[at]!).toFixed(2)} 0 Td`;
      ops += ` (${text}) Tj`;
      at = i;
    }
    return ops;
  }
}

let scratch = new Uint8Array(256);

/** The text as the body of a PDF literal string in WinAnsi, cut with an ellipsis to `room` points. */
function fit(text: string, room: number, widths: Float64Array): string {
  const n = text.length;
  if (n === 0) return '';
  if (scratch.length < n) scratch = new Uint8Array(n * 2);
  const bytes = scratch;
  // Map characters until the text is known to fit, or known not to (then only a prefix is kept).
  let width = 0;
  let mapped = 0;
  while (mapped < n && width <= room) {
    const b = winAnsi(text.charCodeAt(mapped));
    bytes[mapped++] = b;
    width += widths[b]!;
  }
  let end = mapped;
  if (width > room) {
    const limit = room - widths[ELLIPSIS]!;
    let kept = 0;
    end = 0;
    while (end < mapped && kept + widths[bytes[end]!]! <= limit) kept += widths[bytes[end++]!]!;
  }
  let escapes = false;
  for (let i = 0; i < end; i++) if (escaped(bytes[i]!)) escapes = true;
  let out = '';
  if (!escapes && end <= 8192) out = String.fromCharCode(...bytes.subarray(0, end));
  else for (let i = 0; i < end; i++) out += escaped(bytes[i]!) ? `\\${CHARS[bytes[i]!]!}` : CHARS[bytes[i]!]!;
  return end < n ? out + CHARS[ELLIPSIS]! : out;
}
