/** The text shown by a PDF written with the standard fonts: each Tj or TJ string, decoded. */
import { inflateSync } from 'node:zlib';

const WIN_ANSI: Record<number, string> = { 0x85: '…', 0x91: '‘', 0x92: '’', 0x93: '“', 0x94: '”', 0x96: '–', 0x97: '—', 0x80: '€' };

function decodeHex(hex: string): string {
  let out = '';
  for (let i = 0; i + 1 < hex.length; i += 2) {
    const b = parseInt(hex.slice(i, i + 2), 16);
    out += WIN_ANSI[b] ?? String.fromCharCode(b);
  }
  return out;
}

/** Every content stream, inflated when compressed. */
export function pdfStreams(pdf: Buffer): string[] {
  const text = pdf.toString('latin1');
  const streams: string[] = [];
  const re = /stream\r?\n/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text)) !== null) {
    const start = m.index + m[0].length;
    const end = text.indexOf('endstream', start);
    if (end === -1) break;
    const body = pdf.subarray(start, end);
    try {
      streams.push(inflateSync(body).toString('latin1'));
    } catch {
      streams.push(body.toString('latin1'));
    }
    re.lastIndex = end + 'endstream'.length;
  }
  return streams;
}

function decodeLiteral(body: string): string {
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i] === '\\' ? body[++i]! : body[i]!;
    out += WIN_ANSI[c.charCodeAt(0)] ?? c;
  }
  return out;
}

/** The strings drawn by text operators, in order (a TJ array's pieces joined; hex or literal strings). */
export function pdfText(pdf: Buffer): string[] {
  const pieces: string[] = [];
  for (const stream of pdfStreams(pdf)) {
    const re = /\[((?:<[0-9a-fA-F]*>|[-\d.\s])*)\]\s*TJ|<([0-9a-fA-F]*)>\s*Tj|\(((?:\\.|[^\\)])*)\)\s*Tj/g;
    let m: RegExpExecArray | null;
    while ((m = re.exec(stream)) !== null) {
      if (m[1] !== undefined) pieces.push(decodeHex([...m[1].matchAll(/<([0-9a-fA-F]*)>/g)].map((x) => x[1]).join('')));
      else if (m[2] !== undefined) pieces.push(decodeHex(m[2]));
      else pieces.push(decodeLiteral(m[3]!));
    }
  }
  return pieces;
}

/** Number of pages. */
export function pdfPages(pdf: Buffer): number {
  return (pdf.toString('latin1').match(/\/Type \/Page\b/g) ?? []).length;
}
