/** POST /data/:object/export on each driver: every format read back, where/orderBy/fields, errors before the first byte. */
import ExcelJS from 'exceljs';
import t from 'tap';
import type { DataRecord } from '../../capabilities/dataEngine.ts';
import { cellText } from '../../plugins/io/csvLine.ts';
import { parseCsv } from '../../plugins/io/parseCsv.ts';
import { onEachDriver, type Io } from './ioFixtures.ts';
import { pdfText } from './pdfText.ts';

const url = '/api/v1/data/item/export';
const SPECIAL = ['Comma, quote " and\nnewline', '=SUM(A1)', 'Éva 日本 😀', '  spaced  '];

function seedRows(category: string): DataRecord[] {
  return Array.from({ length: 120 }, (_, i) => ({
    name: SPECIAL[i] ?? `Item ${i}`,
    code: `C${String(i).padStart(3, '0')}`,
    qty: i % 7,
    price: i % 10 === 0 ? null : i * 1.5,
    active: i % 2 === 0,
    due: `2026-01-${String((i % 28) + 1).padStart(2, '0')}`,
    seen_at: i % 4 === 0 ? '2026-02-03T04:05:06Z' : null,
    tags: i % 3 === 0 ? ['red', 'blue'] : [],
    meta: i % 5 === 0 ? { i, nested: [1, 'two'] } : null,
    status: i % 6 === 0 ? 'done' : 'new',
    category: i % 3 === 0 ? category : null,
    note: i % 5 === 0 ? 'note' : null,
  }));
}

/** What the anonymous caller reads through the engine, page by page (what an export must match). */
async function readAll(io: Io, query: Record<string, unknown> = {}): Promise<DataRecord[]> {
  const ctx = { environmentId: io.environment, principal: null };
  const rows: DataRecord[] = [];
  let cursor: string | null | undefined = null;
  do {
    const page = await io.engine().query('item', { ...query, limit: 50, ...(cursor ? { cursor } : {}) }, ctx, { total: false });
    rows.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return rows;
}

const today = new Date().toISOString().slice(0, 10);

await onEachDriver(t, 'io-export', async (t, io) => {
  const category = (await io.send('POST', '/api/v1/data/category', { name: 'Tools' })).body.id as string;
  const seeded = await io.send('POST', '/api/v1/data/item/import', { format: 'json', rows: seedRows(category) });
  t.equal(seeded.body.created, 120, 'seeded 120 items (three pages of 50)');
  const records = await readAll(io);
  const keys = Object.keys(records[0]!);

  await t.test('csv: a header, one line per record, values as the engine reads them', async (t) => {
    const res = await io.send('POST', url, { format: 'csv' });
    t.equal(res.status, 200, '200');
    t.equal(res.headers['content-type'], 'text/csv; charset=utf-8', 'content type');
    t.equal(res.headers['content-disposition'], `attachment; filename="item-${today}.csv"`, 'an attachment named after the object and the day');
    const [header, ...lines] = parseCsv(res.raw.toString('utf8')).map((r) => r.cells);
    t.same(header, keys, 'the header names every field the engine returns, formulas included');
    t.ok(keys.includes('total') && keys.includes('category'), 'formula and lookup columns');
    t.equal(lines.length, 120, 'every record');
    const expected = records.map((r) => keys.map((k) => {
      const text = cellText(r[k]);
      return typeof r[k] === 'string' && /^[=+\-@]/.test(text) ? `'${text}` : text;
    }));
    t.same(lines, expected, 'each cell is the record value: multiselect a;b, json as JSON, null empty');
    const byName = new Map(lines.map((cells) => [cells[keys.indexOf('code')], cells]));
    t.equal(byName.get('C000')?.[keys.indexOf('name')], SPECIAL[0], 'a comma, a quote and a line break survive the quoting');
    t.equal(byName.get('C001')?.[keys.indexOf('name')], "'=SUM(A1)", 'formula-looking text is neutralized');
    t.equal(byName.get('C000')?.[keys.indexOf('category')], category, 'lookups as ids');
    t.equal(byName.get('C003')?.[keys.indexOf('tags')], 'red;blue', 'multiselect as a;b');
    t.equal(byName.get('C005')?.[keys.indexOf('total')], String(5 * 7.5), 'formulas computed');
  });

  await t.test('json: a streamed array equal to what the engine returns', async (t) => {
    const res = await io.send('POST', url, { format: 'json' });
    t.equal(res.headers['content-type'], 'application/json; charset=utf-8', 'content type');
    t.equal(res.headers['content-disposition'], `attachment; filename="item-${today}.json"`, 'attachment');
    t.same(JSON.parse(res.raw.toString('utf8')), records, 'the same records, fields and values');
  });

  await t.test('xlsx: read back with exceljs', async (t) => {
    const res = await io.send('POST', url, { format: 'xlsx' });
    t.equal(res.headers['content-type'], 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'content type');
    t.equal(res.headers['content-disposition'], `attachment; filename="item-${today}.xlsx"`, 'attachment');
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(res.raw as unknown as ArrayBuffer);
    const sheet = workbook.worksheets[0]!;
    t.equal(sheet.name, 'Items', 'one sheet named after the object');
    const values = (n: number) => (sheet.getRow(n).values as unknown[]).slice(1);
    t.same(values(1), keys, 'the header row');
    t.equal(sheet.rowCount, 121, 'a row per record');
    const cells = records.map((_, i) => {
      const row = values(i + 2);
      return keys.map((_k, j) => row[j] ?? null);
    });
    const expected = records.map((r) => keys.map((k) => {
      const v = r[k];
      return v === null || typeof v === 'number' || typeof v === 'boolean' ? v : cellText(v) || null;
    }));
    t.same(cells, expected, 'numbers and booleans typed, text as text, multiselect a;b, json as JSON, null and empty as empty cells');
    const formulaRow = records.findIndex((r) => r.code === 'C001') + 2;
    t.equal(sheet.getRow(formulaRow).getCell(keys.indexOf('name') + 1).type, ExcelJS.ValueType.String, 'formula-looking text is a string, not a formula');
  });

  await t.test('pdf: a table with the labels and the values', async (t) => {
    const res = await io.send('POST', url, { format: 'pdf', fields: ['code', 'name', 'qty', 'total'] });
    t.equal(res.headers['content-type'], 'application/pdf', 'content type');
    t.equal(res.headers['content-disposition'], `attachment; filename="item-${today}.pdf"`, 'attachment');
    t.equal(res.raw.subarray(0, 5).toString('latin1'), '%PDF-', 'a PDF');
    const text = pdfText(res.raw);
    t.match(text[0], /^Items \(\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC\)$/, 'the title');
    t.same(text.slice(2, 6), ['Item code', 'Item name', 'Quantity', 'Total'], 'the header shows field labels');
    const codes = text.filter((s) => /^C\d{3}$/.test(s));
    t.same(codes, records.map((r) => r.code), 'every record once, in order, across pages');
    t.ok(text.includes('Item 50'), 'values');
    t.ok(text.filter((s) => s === 'Item code').length >= 2, 'the header repeats on each page');
  });

  await t.test('where, orderBy and fields are those of the query', async (t) => {
    const query = { where: { qty: { $gte: 3 } }, orderBy: '-qty,code', fields: ['name', 'qty', 'total'] };
    const expected = await readAll(io, query);
    t.ok(expected.length > 50 && expected.length < 120, `a filtered set over two pages (${expected.length})`);
    const json = JSON.parse((await io.send('POST', url, { format: 'json', ...query })).raw.toString('utf8')) as DataRecord[];
    t.same(json, expected.map((r) => ({ name: r.name, qty: r.qty, total: r.total })), 'json: the filtered rows in order, only the fields asked for');
    const csv = parseCsv((await io.send('POST', url, { format: 'csv', ...query })).raw.toString('utf8')).map((r) => r.cells);
    t.same(csv[0], ['name', 'qty', 'total'], 'csv: the header is the fields');
    t.same(csv.slice(1).map((c) => c[1]), expected.map((r) => String(r.qty)), 'csv: in order');
    const commaList = JSON.parse((await io.send('POST', url, { format: 'json', fields: 'code, qty', where: { code: 'C010' } })).raw.toString('utf8'));
    t.same(commaList, [{ code: 'C010', qty: 3 }], 'fields as a comma list');
  });

  await t.test('no matching record: a valid, empty file', async (t) => {
    const none = { where: { qty: { $gt: 1000 } } };
    t.same(JSON.parse((await io.send('POST', url, { format: 'json', ...none })).raw.toString('utf8')), [], 'json: []');
    const csv = parseCsv((await io.send('POST', url, { format: 'csv', ...none })).raw.toString('utf8'));
    t.equal(csv.length, 1, 'csv: the header only');
    t.same(csv[0]!.cells, ['id'], 'csv: with no row to show, the header names only id (field security may hide others)');
    const asked = parseCsv((await io.send('POST', url, { format: 'csv', fields: ['id', 'name'], ...none })).raw.toString('utf8'));
    t.same(asked[0]!.cells, ['id', 'name'], 'csv: requested fields name the header');
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load((await io.send('POST', url, { format: 'xlsx', ...none })).raw as unknown as ArrayBuffer);
    t.equal(workbook.worksheets[0]!.rowCount, 1, 'xlsx: the header row only');
    t.equal((await io.send('POST', url, { format: 'pdf', ...none })).raw.subarray(0, 5).toString('latin1'), '%PDF-', 'pdf: a document');
  });

  await t.test('bad requests are answered with the JSON error envelope, before any file byte', async (t) => {
    const cases: Array<[string, string, unknown, number, string, string?]> = [
      ['an unknown field in where', url, { format: 'csv', where: { nope: 1 } }, 400, 'VALIDATION_ERROR', 'where.nope'],
      ['an unknown field in fields', url, { format: 'xlsx', fields: ['name', 'nope'] }, 400, 'VALIDATION_ERROR', 'fields[1]'],
      ['an unknown orderBy field', url, { format: 'pdf', orderBy: '-nope' }, 400, 'VALIDATION_ERROR', 'orderBy'],
      ['an unknown format', url, { format: 'xml' }, 400, 'VALIDATION_ERROR'],
      ['an unknown body key', url, { format: 'csv', limit: 5 }, 400, 'VALIDATION_ERROR'],
      ['apiEnabled false', '/api/v1/data/secret_item/export', { format: 'csv' }, 404, 'NOT_FOUND'],
      ['export not in apiMethods', '/api/v1/data/listed_item/export', { format: 'csv' }, 405, 'METHOD_NOT_ALLOWED'],
    ];
    for (const [name, path, body, status, code, errorPath] of cases) {
      const res = await io.send('POST', path, body);
      t.same([res.status, res.body?.error?.code], [status, code], `${name}: ${status} ${code}`);
      t.match(res.headers['content-type'], /^application\/json/, `${name}: JSON, not a file`);
      t.equal(res.headers['content-disposition'], undefined, `${name}: no attachment`);
      if (errorPath) t.match(res.body.error.details.errors, [{ path: errorPath }], `${name}: names ${errorPath}`);
    }
  });
});
