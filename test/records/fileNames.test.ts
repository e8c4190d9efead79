/** The pure cores of file uploads: multipart parsing, names and served types. */
import t from 'tap';
import { contentDisposition, declaredType, safeFileName, servedType, typeAllowed } from '../../plugins/files/fileNames.ts';
import { boundaryOf, parseMultipart } from '../../plugins/files/parseMultipart.ts';

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

t.test('multipart bodies', async (t) => {
  t.equal(boundaryOf('multipart/form-data; boundary="abc"'), 'abc');
  t.equal(boundaryOf('multipart/form-data; boundary=xyz'), 'xyz');
  t.equal(boundaryOf('application/json'), undefined);
  const body = Buffer.from('--b\r\nContent-Disposition: form-data; name="file"; filename="a.txt"; filename*=UTF-8\'\'%C3%A9.txt\r\nContent-Type: text/plain\r\n\r\nline1\r\nline2\r\n--b--\r\n');
  const [part] = parseMultipart(body, 'b');
  t.same({ ...part, data: part!.data.toString() }, { name: 'file', filename: 'é.txt', contentType: 'text/plain', data: 'line1\r\nline2' });
  t.throws(() => parseMultipart(Buffer.from('--b\r\nContent-Disposition: form-data; name="f"\r\n\r\nunterminated'), 'b'), { code: 'VALIDATION_ERROR' });
  t.throws(() => parseMultipart(Buffer.from('nothing here'), 'b'), { code: 'VALIDATION_ERROR' });
  const many = Buffer.from(`${'--b\r\nContent-Disposition: form-data; name="f"\r\n\r\nx\r\n'.repeat(17)}--b--`);
  t.throws(() => parseMultipart(many, 'b'), { code: 'VALIDATION_ERROR' });
});
