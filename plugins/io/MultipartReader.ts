import { codedError } from '../../kernel/errors.ts';

/** What a part's headers say about it. */
export interface PartInfo {
  name: string;
  filename: string | null;
}

/** Receives one part's content as it arrives. */
export interface PartSink {
  data(chunk: Buffer): void;
  end(): void;
}

/** Bytes of one part's header block, and parts per body: a form of a few fields needs far less. */
const MAX_HEADER_BYTES = 8 * 1024;
const MAX_PARTS = 20;

const CRLF = Buffer.from('\r\n');
const HEADERS_END = Buffer.from('\r\n\r\n');

const invalid = (message: string) => codedError('VALIDATION_ERROR', { summary: `multipart body: ${message}`, errors: [{ path: 'body', message }] });

/** The boundary of a `multipart/form-data` Content-Type (RFC 2046: 1 to 70 characters). */
export function multipartBoundary(contentType: string): string {
  const match = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;"]{1,70}))(?:\s*;|\s*$)/i.exec(contentType);
  const boundary = match?.[1] ?? match?.[2];
  if (!boundary) throw invalid('Content-Type multipart/form-data needs a boundary parameter of 1 to 70 characters');
  return boundary;
}

function parseHeaders(block: string): PartInfo {
  let disposition: string | null = null;
  for (const line of block.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0 && line.slice(0, colon).trim().toLowerCase() === 'content-disposition') disposition = line.slice(colon + 1).trim();
  }
  if (disposition === null || !/^form-data\s*(;|$)/i.test(disposition)) throw invalid('every part needs a Content-Disposition: form-data header');
  const param = (key: string) => {
    const m = new RegExp(`;\\s*${key}=(?:"((?:[^"\\\\]|\\\\.)*)"|([^;\\s]*))`, 'i').exec(disposition!);
    return m ? (m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2]!) : null;
  };
  const name = param('name');
  if (!name) throw invalid('every part needs a name (Content-Disposition: form-data; name="...")');
  return { name, filename: param('filename') };
}

type State = 'preamble' | 'after' | 'headers' | 'body' | 'done';

/**
 * A streaming multipart/form-data reader (RFC 7578): bytes go in chunk by chunk, each part's
 * content goes to the sink `onPart` returns for it as it arrives, so a file part is never held
 * whole. Bounded: at most 20 parts, each header block at most 8 KiB; a body that ends before
 * its closing boundary is refused.
 */
export class MultipartReader {
  private readonly delimiter: Buffer;
  // The first boundary is not preceded by a line break of the body: one is assumed before it.
  private pending: Buffer = CRLF;
  private state: State = 'preamble';
  private sink: PartSink | null = null;
  private parts = 0;

  constructor(boundary: string, private readonly onPart: (part: PartInfo) => PartSink) {
    this.delimiter = Buffer.from(`\r\n--${boundary}`, 'latin1');
  }

  push(chunk: Buffer): void {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    while (this.step());
  }

  end(): void {
    if (this.state !== 'done') throw invalid('the body ends before its closing boundary');
  }

  /** One move of the reader over the pending bytes; false when it needs more. */
  private step(): boolean {
    const buf = this.pending;
    switch (this.state) {
      case 'preamble':
      case 'body': {
        const at = buf.indexOf(this.delimiter);
        if (at === -1) {
          // Keep what could be the start of a delimiter split across chunks.
          const safe = Math.max(0, buf.length - (this.delimiter.length - 1));
          if (safe > 0 && this.state === 'body') this.sink!.data(buf.subarray(0, safe));
          this.pending = buf.subarray(safe);
          return false;
        }
        if (this.state === 'body') {
          if (at > 0) this.sink!.data(buf.subarray(0, at));
          this.sink!.end();
          this.sink = null;
        }
        this.pending = buf.subarray(at + this.delimiter.length);
        this.state = 'after';
        return true;
      }
      case 'after': {
        if (buf.length < 2) return false;
        if (buf[0] === 45 && buf[1] === 45) {
          this.state = 'done';
          this.pending = Buffer.alloc(0);
          return false;
        }
        const eol = buf.indexOf(CRLF);
        if (eol === -1) {
          if (buf.length > 256) throw invalid('a boundary line is not followed by a line break');
          return false;
        }
        if (buf.subarray(0, eol).toString('latin1').trim() !== '') throw invalid('a boundary line is followed by other text');
        this.pending = buf.subarray(eol + 2);
        this.state = 'headers';
        return true;
      }
      case 'headers': {
        if (buf.length >= 2 && buf[0] === 13 && buf[1] === 10) throw invalid('every part needs a Content-Disposition: form-data header');
        const end = buf.indexOf(HEADERS_END);
        if (end === -1 || end > MAX_HEADER_BYTES) {
          if (end > MAX_HEADER_BYTES || buf.length > MAX_HEADER_BYTES) throw invalid(`the headers of a part are longer than ${MAX_HEADER_BYTES} bytes`);
          return false;
        }
        if (++this.parts > MAX_PARTS) throw invalid(`more than ${MAX_PARTS} parts`);
        const info = parseHeaders(buf.subarray(0, end).toString('utf8'));
        this.sink = this.onPart(info);
        this.pending = buf.subarray(end + HEADERS_END.length);
        this.state = 'body';
        return true;
      }
      case 'done':
        this.pending = Buffer.alloc(0);
        return false;
    }
  }
}
