/** POST /data/:object/import sent as text/csv and as multipart/form-data, over real HTTP on each driver: options, limits, errors. */
import { request as httpRequest } from 'node:http';
import t from 'tap';
import { onEachDriver } from './ioFixtures.ts';

interface Answer {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  headers: Record<string, string | string[] | undefined>;
}

/** One request over a real socket; the body is written in chunks of `chunk` bytes (chunked transfer when `length` is false). */
function send(base: string, path: string, contentType: string, body: Buffer | string, options: { chunk?: number; length?: boolean } = {}): Promise<Answer> {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, {
      method: 'POST',
      headers: { 'content-type': contentType, ...(options.length === false ? {} : { 'content-length': String(bytes.length) }) },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null, headers: res.headers });
      });
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      // The server may close the socket after answering a body it stopped reading.
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error);
    });
    const size = options.chunk ?? bytes.length;
    let at = 0;
    const write = () => {
      while (at < bytes.length) {
        const part = bytes.subarray(at, at + size);
        at += size;
        if (!req.write(part)) return void req.once('drain', write);
      }
      req.end();
    };
    write();
  });
}

/** A multipart/form-data body of text fields and one file part `csv`. */
function form(boundary: string, fields: Record<string, string>, csv?: string, filename = 'items.csv'): string {
  let text = 'preamble is ignored\r\n';
  for (const [name, value] of Object.entries(fields)) text += `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  if (csv !== undefined) text += `--${boundary}\r\nContent-Disposition: form-data; name="csv"; filename="${filename}"\r\nContent-Type: text/csv\r\n\r\n${csv}\r\n`;
  return `${text}--${boundary}--\r\n`;
}

const BOUNDARY = '----osr-test-7f3a';
const MULTIPART = `multipart/form-data; boundary=${BOUNDARY}`;

function rowsCsv(n: number, prefix: string): string {
  let csv = 'Name,CODE,Qty\r\n';
  for (let i = 1; i <= n; i++) csv += `Row ${i},${prefix}-${i},${i % 7}\r\n`;
  return csv;
}

await onEachDriver(t, 'io-import-streamed', async (t, io) => {
  const base = io.rt.runtime.http().url()!;
  const path = '/api/v1/data/item/import';
  const codes = async (prefix: string) => (await io.all('item')).map((r) => String(r.code)).filter((c) => c.startsWith(prefix)).sort();

  await t.test('text/csv: headers match fields without regard to case; options in the query string', async (t) => {
    const csv = 'NAME,Code,qty,Due,Tags\r\n"Hammer, big",TC-1,3,2026-02-01,red;blue\r\nNail,TC-2,5,,\r\n';
    const dry = await send(base, `${path}?dryRun=true`, 'text/csv', csv);
    t.same([dry.status, dry.body], [200, { dryRun: true, atomic: true, total: 2, valid: 2, failed: 0, created: 0, errors: [] }], 'dryRun=true: checked, nothing written');
    t.same(await codes('TC-'), [], 'the dry run wrote nothing');
    const real = await send(base, path, 'text/csv; charset=utf-8', csv);
    t.equal(real.status, 200, '200');
    t.hasStrict(real.body, { dryRun: false, atomic: true, total: 2, created: 2, failed: 0 }, 'both rows created');
    const hammer = (await io.all('item')).find((r) => r.code === 'TC-1');
    t.hasStrict(hammer, { name: 'Hammer, big', qty: 3, due: '2026-02-01', tags: ['red', 'blue'] }, 'values landed in the fields the headers name');

    const mapped = await send(base, `${path}?atomic=false&mapping=${encodeURIComponent(JSON.stringify({ Product: 'name', Skip: null }))}`, 'text/csv', 'Product,code,Skip,qty\nMapped,TC-3,x,1\nBad,TC-4,y,lots\n');
    t.equal(mapped.status, 200, 'atomic=false with a mapping: 200');
    t.hasStrict(mapped.body, { atomic: false, created: 1, failed: 1, errors: [{ row: 2, code: 'VALIDATION_ERROR', errors: [{ path: 'qty', message: "must be a whole number, not 'lots'" }] }] }, 'the valid row written, the other reported');
    t.same(await codes('TC-'), ['TC-1', 'TC-2', 'TC-3'], 'mapped row stored');

    const errors = await send(base, `${path}?atomic=false`, 'text/csv', 'Quantity,name\nx,Y\n');
    t.same(errors.body.error.details.errors, [{ path: 'csv.header.Quantity', message: "'Quantity' is not a field of item; map the column to a field in mapping, or to null to skip it" }], 'a header naming no field is still refused');
    const twice = await send(base, path, 'text/csv', 'name,NAME\nx,y\n');
    t.match(twice.body.error, { code: 'VALIDATION_ERROR', details: { errors: [{ path: 'csv.header.NAME', message: "columns 'name' and 'NAME' both go to 'name'; map one of them to null" }] } }, 'two headers for one field are refused');
  });

  await t.test('multipart/form-data: the file in part csv, options as form fields, split into small chunks', async (t) => {
    const csv = 'Item Name,code,QTY\r\n"Multi ""part""",MP-1,2\r\nÉclair 日本,MP-2,4\r\n';
    const body = form(BOUNDARY, { mapping: JSON.stringify({ 'Item Name': 'name' }), dryRun: 'false', atomic: 'true' }, csv);
    const res = await send(base, path, MULTIPART, body, { chunk: 7 });
    t.equal(res.status, 200, '200');
    t.hasStrict(res.body, { dryRun: false, atomic: true, total: 2, created: 2 }, 'both rows');
    const byCode = new Map((await io.all('item')).map((r) => [r.code, r]));
    t.hasStrict(byCode.get('MP-1'), { name: 'Multi "part"', qty: 2 }, 'quoted text across chunk boundaries');
    t.hasStrict(byCode.get('MP-2'), { name: 'Éclair 日本', qty: 4 }, 'multi-byte characters split across chunks are intact');
    const dry = await send(base, path, `multipart/form-data; boundary="${BOUNDARY}"`, form(BOUNDARY, { dryRun: 'true' }, 'name,code\nDry,MP-3\n'), { length: false, chunk: 5 });
    t.same([dry.status, dry.body.created, dry.body.valid], [200, 0, 1], 'chunked transfer, dryRun as a form field');
    t.same(await codes('MP-'), ['MP-1', 'MP-2'], 'the dry run wrote nothing');
  });

  await t.test('the row limit and the body limit are the JSON body\'s', async (t) => {
    const before = (await io.all('item')).length;
    const tooMany = await send(base, path, 'text/csv', rowsCsv(5001, 'LIM'));
    t.same([tooMany.status, tooMany.body.error.code, tooMany.body.error.details], [400, 'IMPORT_TOO_LARGE', { count: 5001, max: 5000 }], 'text/csv: 5,001 rows refused with the count');
    const tooManyForm = await send(base, path, MULTIPART, form(BOUNDARY, {}, rowsCsv(5001, 'LIM')), { chunk: 64 * 1024 });
    t.same([tooManyForm.status, tooManyForm.body.error.code], [400, 'IMPORT_TOO_LARGE'], 'multipart: refused too');
    // Short lines: one cell that long is refused earlier, as over the largest field's bound (cellLimits.test.ts).
    const huge = Buffer.alloc(16 * 1024 * 1024 + 10, 'a\n');
    const declared = await send(base, path, 'text/csv', huge);
    t.same([declared.status, declared.body.error.code, declared.body.error.details], [413, 'PAYLOAD_TOO_LARGE', { limit: 16 * 1024 * 1024 }], 'a Content-Length over 16 MiB: 413');
    const streamed = await send(base, path, 'text/csv', Buffer.concat([Buffer.from('name\n'), huge]), { length: false, chunk: 256 * 1024 });
    t.same([streamed.status, streamed.body.error.code], [413, 'PAYLOAD_TOO_LARGE'], 'a chunked body growing past 16 MiB: 413 while it streams');
    t.equal((await io.all('item')).length, before, 'nothing written');
  });

  await t.test('bad requests are a 400 naming what to fix, and nothing is written', async (t) => {
    const before = (await io.all('item')).length;
    const cases: Array<[string, string, string, string, number, string, RegExp]> = [
      ['no csv part', path, MULTIPART, form(BOUNDARY, { dryRun: 'true' }), 400, 'VALIDATION_ERROR', /csv is missing: send the file as the form field csv/],
      ['two csv parts', path, MULTIPART, form(BOUNDARY, {}, 'name\nx\n').replace(`--${BOUNDARY}--`, `--${BOUNDARY}\r\nContent-Disposition: form-data; name="csv"\r\n\r\nname\ny\r\n--${BOUNDARY}--`), 400, 'VALIDATION_ERROR', /csv is given twice/],
      ['an unknown form field', path, MULTIPART, form(BOUNDARY, { upsert: 'true' }, 'name\nx\n'), 400, 'VALIDATION_ERROR', /upsert is not a field of a CSV import; the form takes csv \(the file\), mapping, dryRun and atomic/],
      ['a bad flag', path, MULTIPART, form(BOUNDARY, { dryRun: 'yes' }, 'name\nx\n'), 400, 'VALIDATION_ERROR', /dryRun must be true or false/],
      ['a mapping that is not JSON', `${path}?mapping=Product:name`, 'text/csv', 'Product\nx\n', 400, 'VALIDATION_ERROR', /mapping must be JSON text/],
      ['a mapping to a number', `${path}?mapping=${encodeURIComponent('{"Product":1}')}`, 'text/csv', 'Product\nx\n', 400, 'VALIDATION_ERROR', /mapping must be an object whose values are field names or null/],
      ['multipart options in the query string', `${path}?dryRun=true`, MULTIPART, form(BOUNDARY, {}, 'name\nx\n'), 400, 'VALIDATION_ERROR', /dryRun of a multipart import is a form field/],
      ['an unknown query parameter', `${path}?upsert=true`, 'text/csv', 'name\nx\n', 400, 'VALIDATION_ERROR', /upsert/],
      ['a body cut before its closing boundary', path, MULTIPART, form(BOUNDARY, {}, 'name\nx\n').replace(`--${BOUNDARY}--\r\n`, ''), 400, 'VALIDATION_ERROR', /ends before its closing boundary/],
      ['no boundary', path, 'multipart/form-data', 'x', 400, 'VALIDATION_ERROR', /needs a boundary parameter/],
      ['a part without a name', path, MULTIPART, `--${BOUNDARY}\r\nContent-Disposition: form-data\r\n\r\nx\r\n--${BOUNDARY}--\r\n`, 400, 'VALIDATION_ERROR', /every part needs a name/],
      ['another charset', path, 'text/csv; charset=latin1', 'name\nx\n', 400, 'VALIDATION_ERROR', /send it as UTF-8/],
      ['a damaged file', path, 'text/csv', 'name\n"open\n', 400, 'VALIDATION_ERROR', /csv line 2: a quoted field is not closed/],
      ['an empty file', path, 'text/csv', '', 400, 'VALIDATION_ERROR', /csv is empty/],
      ['a JSON import with query options', `${path}?dryRun=true`, 'application/json', JSON.stringify({ format: 'json', rows: [] }), 400, 'VALIDATION_ERROR', /dryRun of a JSON import goes in the body/],
      ['a JSON body still checked', path, 'application/json', JSON.stringify({ format: 'json', rows: [], upsert: true }), 400, 'VALIDATION_ERROR', /upsert/],
      ['another object\'s route keeps refusing CSV', '/api/v1/data/item', 'text/csv', 'name\nx\n', 415, 'UNSUPPORTED_MEDIA_TYPE', /text\/csv is not supported/],
      ['an object without import', '/api/v1/data/listed_item/import', 'text/csv', 'name\nx\n', 405, 'METHOD_NOT_ALLOWED', /import/],
    ];
    for (const [name, url, type, body, status, code, message] of cases) {
      const res = await send(base, url, type, body);
      t.same([res.status, res.body?.error?.code], [status, code], `${name}: ${status} ${code}`);
      t.match(res.body?.error?.message, message, `${name}: the message says what to fix`);
    }
    const latin1 = await send(base, path, 'text/csv', Buffer.from([0x6e, 0x61, 0x6d, 0x65, 0x0a, 0xe9, 0x0a]));
    t.match(latin1.body.error, { code: 'VALIDATION_ERROR', message: /csv is not UTF-8 text/ }, 'bytes that are not UTF-8: 400');
    t.equal((await io.all('item')).length, before, 'nothing written');
  });
}, { config: { server: { listen: true, port: 0, host: '127.0.0.1' } } });
