/** The streaming multipart/form-data reader: parts, chunk splits anywhere, bounds and damaged bodies. */
import t, { type Test } from 'tap';
import { isCodedError } from '../../kernel/errors.ts';
import { multipartBoundary, MultipartReader } from '../../plugins/io/MultipartReader.ts';

/** The parts of a body fed in chunks of `size` bytes: name, filename, content. */
function read(body: string, boundary: string, size = body.length): Array<[string, string | null, string]> {
  const parts: Array<[string, string | null, string]> = [];
  const reader = new MultipartReader(boundary, (info) => {
    const chunks: Buffer[] = [];
    return { data: (c) => void chunks.push(Buffer.from(c)), end: () => void parts.push([info.name, info.filename, Buffer.concat(chunks).toString('utf8')]) };
  });
  const bytes = Buffer.from(body);
  for (let at = 0; at < bytes.length; at += size) reader.push(bytes.subarray(at, at + size));
  reader.end();
  return parts;
}

function refused(t: Test, run: () => unknown, message: RegExp): void {
  try {
    run();
    t.fail('accepted');
  } catch (error) {
    t.ok(isCodedError(error) && error.code === 'VALIDATION_ERROR', 'VALIDATION_ERROR');
    t.match((error as Error).message, message, 'says what is wrong');
  }
}

const B = 'xYz';
const body = `--${B}\r\nContent-Disposition: form-data; name="dryRun"\r\n\r\ntrue\r\n--${B}\r\nContent-Disposition: form-data; name="csv"; filename="a \\"b\\".csv"\r\nContent-Type: text/csv\r\n\r\nname\r\nx--${B} is not a boundary\r\nÉ\r\n--${B}--\r\nepilogue`;

t.test('parts, names, filenames, content that looks like a boundary', async (t) => {
  const expected = [['dryRun', null, 'true'], ['csv', 'a "b".csv', `name\r\nx--${B} is not a boundary\r\nÉ`]];
  t.same(read(body, B), expected, 'read whole');
  for (const size of [1, 2, 3, 5, 7, 13]) t.same(read(body, B, size), expected, `split every ${size} bytes`);
  t.same(read(`preamble\r\n${body}`, B), expected, 'a preamble is skipped');
});

t.test('the boundary parameter', async (t) => {
  t.equal(multipartBoundary('multipart/form-data; boundary=abc'), 'abc', 'plain');
  t.equal(multipartBoundary('multipart/form-data; boundary="a b;c"; charset=utf-8'), 'a b;c', 'quoted, with another parameter after it');
  refused(t, () => multipartBoundary('multipart/form-data'), /needs a boundary parameter/);
  refused(t, () => multipartBoundary(`multipart/form-data; boundary=${'x'.repeat(71)}`), /1 to 70 characters/);
});

t.test('damaged or oversized bodies are refused', async (t) => {
  refused(t, () => read(body.replace(`--${B}--`, ''), B), /ends before its closing boundary/);
  refused(t, () => read(`--${B}\r\nContent-Type: text/plain\r\n\r\nx\r\n--${B}--`, B), /Content-Disposition: form-data/);
  refused(t, () => read(`--${B}\r\nContent-Disposition: form-data; filename="x"\r\n\r\nx\r\n--${B}--`, B), /every part needs a name/);
  refused(t, () => read(`--${B}\r\nContent-Disposition: form-data; name="a"\r\nX-Pad: ${'p'.repeat(9000)}\r\n\r\nx\r\n--${B}--`, B, 512), /headers of a part are longer than 8192 bytes/);
  const many = Array.from({ length: 21 }, (_, i) => `--${B}\r\nContent-Disposition: form-data; name="f${i}"\r\n\r\nv\r\n`).join('') + `--${B}--`;
  refused(t, () => read(many, B), /more than 20 parts/);
});
