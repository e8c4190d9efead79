import { codedError } from '../../kernel/errors.ts';

export interface MultipartPart {
  /** The form field name. */
  name: string;
  /** The file name the client sent, as sent (see safeFileName). */
  filename?: string;
  contentType?: string;
  data: Buffer;
}

/** At most this many parts: a form with one file and a few fields needs no more. */
export const MAX_PARTS = 16;

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

/**
 * The parts of a multipart/form-data body (RFC 7578), read from the whole body: the caller bounds
 * its size. Anything malformed is a 400 naming what is wrong.
 */
export function parseMultipart(body: Buffer, boundary: string): MultipartPart[] {
  const delimiter = Buffer.from(`--${boundary}`);
  const next = Buffer.from(`\r\n--${boundary}`);
  let pos = body.indexOf(delimiter);
  if (pos < 0) throw bad('the boundary does not occur in the body');
  const parts: MultipartPart[] = [];
  for (;;) {
    pos += delimiter.length;
    const after = body.subarray(pos, pos + 2).toString('latin1');
    if (after === '--') break;
    if (after !== '\r\n') throw bad('a boundary line is not followed by CRLF');
    pos += 2;
    const headerEnd = body.indexOf('\r\n\r\n', pos);
    if (headerEnd < 0) throw bad('a part has no end of headers');
    const headers: Record<string, string> = {};
    for (const line of body.subarray(pos, headerEnd).toString('utf8').split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const end = body.indexOf(next, headerEnd + 4);
    if (end < 0) throw bad('a part is not closed by the boundary');
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
    parts.push({ name: p.name, ...(filename !== undefined ? { filename } : {}), ...(headers['content-type'] ? { contentType: headers['content-type'] } : {}), data: body.subarray(headerEnd + 4, end) });
    if (parts.length > MAX_PARTS) throw bad(`more than ${MAX_PARTS} parts`);
    pos = end + 2;
  }
  return parts;
}
