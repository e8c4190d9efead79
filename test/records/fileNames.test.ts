/** The pure cores of file uploads: multipart parsing, names and served types. */
import t from 'tap';
import { contentDisposition, declaredType, safeFileName, servedType, typeAllowed } from '../../plugins/files/fileNames.ts';
import { boundaryOf, MAX_PART_HEADERS, parseMultipart } from '../../plugins/files/parseMultipart.ts';

t.test('a client file name is reduced to a harmless label', async (t) => {
  t.equal(safeFileName('../../etc/passwd'), 'passwd');
  t.equal(safeFileName('..\\..\\windows\\win.ini'), 'win.ini');
  t.equal(safeFileName('..'), 'file');
  t.equal(safeFileName('.htaccess'), 'htaccess');
  t.equal(safeFileName('a\u0000b\r\n"c".txt'), 'abc.txt');
  t.equal(safeFileName(undefined), 'file');
  t.equal(safeFileName('x'.repeat(300)).length, 255);
});

t.test('types: declared, served, allowed', async (t) => {
  t.equal(declaredType('Text/Plain; charset=utf-8'), 'text/plain');
  t.equal(declaredType('not a type'), 'application/octet-stream');
  t.equal(servedType('text/html'), 'application/octet-stream');
  t.equal(servedType('image/svg+xml'), 'application/octet-stream');
  t.equal(servedType('image/png'), 'image/png');
  t.ok(typeAllowed('image/png', ['image/*']));
  t.notOk(typeAllowed('text/plain', ['image/*']));
  t.ok(typeAllowed('anything/else', undefined));
  t.equal(contentDisposition('résumé "v2".pdf'), `attachment; filename="r_sum_ _v2_.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%22v2%22.pdf`);
});

/** The body in chunks of `size` bytes, as a socket might deliver it. */
async function* chunks(body: Buffer, size: number): AsyncGenerator<Buffer> {
  for (let i = 0; i < body.length; i += size) yield body.subarray(i, i + size);
}

/** Every part with its bytes read whole. */
async function parts(body: Buffer, boundary: string, size = 7) {
  const out: Array<{ name: string; filename?: string; contentType?: string; data: string }> = [];
  for await (const part of parseMultipart(chunks(body, size), boundary)) {
    const bytes: Buffer[] = [];
    for await (const b of part.data) bytes.push(b);
    out.push({ ...part, data: Buffer.concat(bytes).toString() });
  }
  return out;
}

t.test('multipart bodies', async (t) => {
  t.equal(boundaryOf('multipart/form-data; boundary="abc"'), 'abc');
  t.equal(boundaryOf('multipart/form-data; boundary=xyz'), 'xyz');
  t.equal(boundaryOf('application/json'), undefined);
  const body = Buffer.from('preamble\r\n--b\r\nContent-Disposition: form-data; name="file"; filename="a.txt"; filename*=UTF-8\'\'%C3%A9.txt\r\nContent-Type: text/plain\r\n\r\nline1\r\n--a\r\n-\r\n-\r\n--b\r\nContent-Disposition: form-data; name="note"\r\n\r\nN\r\n--b--\r\n');
  const expected = [{ name: 'file', filename: 'é.txt', contentType: 'text/plain', data: 'line1\r\n--a\r\n-\r\n-' }, { name: 'note', data: 'N' }];
  // Whatever the chunking, a delimiter split across chunks included, the parts are the same.
  for (const size of [1, 2, 3, 5, 7, 64, body.length]) t.same(await parts(body, 'b', size), expected, `chunks of ${size}`);
  // A part left unread is skipped.
  const names: string[] = [];
  for await (const part of parseMultipart(chunks(body, 3), 'b')) names.push(part.name);
  t.same(names, ['file', 'note']);
  await t.rejects(parts(Buffer.from('--b\r\nContent-Disposition: form-data; name="f"\r\n\r\nunterminated'), 'b'), { code: 'VALIDATION_ERROR', message: /not closed by the boundary/ });
  await t.rejects(parts(Buffer.from('nothing here'), 'b'), { code: 'VALIDATION_ERROR', message: /boundary does not occur/ });
  const many = Buffer.from(`${'--b\r\nContent-Disposition: form-data; name="f"\r\n\r\nx\r\n'.repeat(17)}--b--`);
  await t.rejects(parts(many, 'b'), { code: 'VALIDATION_ERROR', message: /more than 16 parts/ });
  const longHeaders = Buffer.from(`--b\r\nContent-Disposition: form-data; name="f"\r\nX-Pad: ${'p'.repeat(MAX_PART_HEADERS)}\r\n\r\nx\r\n--b--`);
  await t.rejects(parts(longHeaders, 'b', 1024), { code: 'VALIDATION_ERROR', message: /headers of a part are longer/ });
});

t.test('a cut-off part fails while its bytes are read, after what arrived', async (t) => {
  const seen: string[] = [];
  const cut = Buffer.from('--b\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\n0123456789abcdef');
  await t.rejects((async () => {
    for await (const part of parseMultipart(chunks(cut, 4), 'b')) for await (const b of part.data) seen.push(b.toString());
  })(), { code: 'VALIDATION_ERROR', message: /not closed by the boundary/ });
  t.ok(seen.join('').length > 0 && '0123456789abcdef'.startsWith(seen.join('')), 'bytes flow before the end is known');
});
