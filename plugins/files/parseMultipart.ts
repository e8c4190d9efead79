import { codedError } from '../../kernel/errors.ts';

export interface MultipartPart {
  /** The form field name. */
  name: string;
  /** The file name the client sent, as sent (see safeFileName). */
  filename?: string;
  contentType?: string;
  /** The part's bytes as they arrive; whatever is left unread is skipped when the next part is asked for. */
  data: AsyncIterable<Buffer>;
}

/** At most this many parts: a form with one file and a few fields needs no more. */
export const MAX_PARTS = 16;
/** The headers of one part fit in this many bytes. */
export const MAX_PART_HEADERS = 16 * 1024;

const bad = (message: string) => codedError('VALIDATION_ERROR', { summary: `the multipart body is not valid: ${message}`, errors: [{ path: 'body', message }] });

/** The boundary of a `multipart/form-data; boundary=...` content type, or undefined. */
export function boundaryOf(contentType: string | undefined): string | undefined {
  if (!contentType || !/^multipart\/form-data\s*;/i.test(contentType)) return undefined;
  const m = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;"]{1,70}))/i.exec(contentType);
  return m ? (m[1] ?? m[2]) : undefined;
}

function params(value: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of value.matchAll(/;\s*([A-Za-z*]+)=("(?:[^"\\]|\\.)*"|[^;]*)/g)) {
    const raw = m[2]!.trim();
    out[m[1]!.toLowerCase()] = raw.startsWith('"') ? raw.slice(1, -1).replace(/\\(.)/g, '$1') : raw;
  }
  return out;
}

/** A body read forward only, holding no more than one chunk plus a delimiter's length. */
class BodyReader {
  private buf: Buffer = Buffer.alloc(0);
  private ended = false;
  constructor(private readonly source: AsyncIterator<Buffer>) {}

  private async more(): Promise<boolean> {
    if (this.ended) return false;
    const next = await this.source.next();
    if (next.done) {
      this.ended = true;
      return false;
    }
    this.buf = this.buf.length === 0 ? next.value : Buffer.concat([this.buf, next.value]);
    return true;
  }

  /** The bytes before `delimiter`, as they arrive; the delimiter is consumed. A body ending first fails with `missing`. */
  async *until(delimiter: Buffer, missing: string): AsyncGenerator<Buffer> {
    for (;;) {
      const at = this.buf.indexOf(delimiter);
      if (at >= 0) {
        const before = this.buf.subarray(0, at);
        this.buf = this.buf.subarray(at + delimiter.length);
        if (before.length > 0) yield before;
        return;
      }
      // Keep only what could be the start of a delimiter split across chunks.
      const safe = this.buf.length - delimiter.length + 1;
      if (safe > 0) {
        const out = this.buf.subarray(0, safe);
        this.buf = this.buf.subarray(safe);
        yield out;
      }
      if (!(await this.more())) throw bad(missing);
    }
  }

  /** The next `n` bytes (fewer at the end of the body), consumed. */
  async take(n: number): Promise<Buffer> {
    while (this.buf.length < n && (await this.more()));
    const out = this.buf.subarray(0, n);
    this.buf = this.buf.subarray(out.length);
    return out;
  }
}

const END_OF_HEADERS = Buffer.from('\r\n\r\n');

async function headersOf(reader: BodyReader): Promise<Record<string, string>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const bytes of reader.until(END_OF_HEADERS, 'a part has no end of headers')) {
    size += bytes.length;
    if (size > MAX_PART_HEADERS) throw bad(`the headers of a part are longer than ${MAX_PART_HEADERS} bytes`);
    chunks.push(bytes);
  }
  const headers: Record<string, string> = {};
  for (const line of Buffer.concat(chunks).toString('utf8').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return headers;
}

/**
 * The parts of a multipart/form-data body (RFC 7578), read as the body arrives: each part's bytes
 * are handed on as they come, never gathered, so a part's size is bounded by whoever reads it.
 * Anything malformed is a 400 naming what is wrong; a part not closed by the boundary fails
 * while its bytes are read, so a consumer never takes a cut-off part for a whole one.
 */
export async function* parseMultipart(body: AsyncIterable<Buffer>, boundary: string): AsyncGenerator<MultipartPart> {
  const reader = new BodyReader(body[Symbol.asyncIterator]());
  for await (const preamble of reader.until(Buffer.from(`--${boundary}`), 'the boundary does not occur in the body')) void preamble;
  const next = Buffer.from(`\r\n--${boundary}`);
  let count = 0;
  for (;;) {
    const after = (await reader.take(2)).toString('latin1');
    if (after === '--') return;
    if (after !== '\r\n') throw bad('a boundary line is not followed by CRLF');
    const headers = await headersOf(reader);
    const disposition = headers['content-disposition'] ?? '';
    if (!/^form-data\s*;/i.test(disposition)) throw bad('a part has no Content-Disposition: form-data header');
    const p = params(disposition);
    if (p.name === undefined) throw bad('a part has no name');
    let filename = p.filename;
    const extended = p['filename*'] && /^UTF-8''(.*)$/i.exec(p['filename*']);
    if (extended) {
      try {
        filename = decodeURIComponent(extended[1]!);
      } catch {
        throw bad('filename* is not valid percent-encoded UTF-8');
      }
    }
    if (++count > MAX_PARTS) throw bad(`more than ${MAX_PARTS} parts`);
    const data = reader.until(next, 'a part is not closed by the boundary');
    yield { name: p.name, ...(filename !== undefined ? { filename } : {}), ...(headers['content-type'] ? { contentType: headers['content-type'] } : {}), data };
    for await (const unread of data) void unread;
  }
}
