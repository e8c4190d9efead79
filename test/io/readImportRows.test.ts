/** From request body to engine input, without a database: cell types, column planning and mapping, row limits. */
import t, { type Test } from 'tap';
import { isCodedError } from '../../kernel/errors.ts';
import { coerceCell, coerceJsonValue } from '../../plugins/io/coerceCell.ts';
import { csvRows, jsonRows, MAX_IMPORT_ROWS } from '../../plugins/io/readImportRows.ts';
import { resolvedObject } from '../harness/fixtures.ts';

const item = resolvedObject('item', {
  name: { type: 'text', required: true },
  qty: { type: 'integer' },
  price: { type: 'number' },
  cost: { type: 'currency' },
  rate: { type: 'percent' },
  active: { type: 'boolean' },
  due: { type: 'date' },
  seen_at: { type: 'datetime' },
  tags: { type: 'multiselect', options: ['red', 'green', 'blue'] },
  meta: { type: 'json' },
  status: { type: 'select', options: ['new', 'done'] },
  category: { type: 'lookup', reference: 'category' },
  email: { type: 'email' },
  seq: { type: 'autonumber', format: 'IT-{0000}' },
  locked: { type: 'text', readonly: true },
  total: { type: 'formula', returns: 'number', expression: 'record.qty' },
});
const f = item.fields;

/** Runs a function that should throw a coded error; returns it. */
function refused(t: Test, run: () => unknown, code: string): { message: string; details: Record<string, unknown> } {
  try {
    run();
  } catch (error) {
    t.ok(isCodedError(error), 'a coded error');
    t.equal((error as { code: string }).code, code, code);
    return error as { message: string; details: Record<string, unknown> };
  }
  t.fail('did not throw');
  return { message: '', details: {} };
}

t.test('cells are read by field type', async (t) => {
  const cases: Array<[string, keyof typeof f, string, unknown]> = [
    ['integer', 'qty', ' 42 ', { kind: 'value', value: 42 }],
    ['negative integer', 'qty', '-7', { kind: 'value', value: -7 }],
    ['integer that is not a number', 'qty', 'abc', { kind: 'error', message: "must be a whole number, not 'abc'" }],
    ['number with decimals and exponent', 'price', '1.5e3', { kind: 'value', value: 1500 }],
    ['number with a leading dot', 'price', '.25', { kind: 'value', value: 0.25 }],
    ['number with a thousands separator', 'price', '1,000', { kind: 'error', message: "must be a number such as 1234.5, not '1,000'" }],
    ['currency', 'cost', '19.99', { kind: 'value', value: 19.99 }],
    ['percent with a % sign', 'rate', '12.5%', { kind: 'value', value: 12.5 }],
    ['boolean yes', 'active', 'Yes', { kind: 'value', value: true }],
    ['boolean 0', 'active', '0', { kind: 'value', value: false }],
    ['boolean FALSE', 'active', 'FALSE', { kind: 'value', value: false }],
    ['boolean nonsense', 'active', 'maybe', { kind: 'error', message: "must be true, false, yes, no, 1 or 0, not 'maybe'" }],
    ['date is passed on trimmed', 'due', ' 2026-02-28 ', { kind: 'value', value: '2026-02-28' }],
    ['datetime with a space for T', 'seen_at', '2026-02-28 09:30:00Z', { kind: 'value', value: '2026-02-28T09:30:00Z' }],
    ['multiselect a;b', 'tags', 'red; blue;;red', { kind: 'value', value: ['red', 'blue'] }],
    ['json', 'meta', '{"a":[1,2]}', { kind: 'value', value: { a: [1, 2] } }],
    ['json that is not JSON', 'meta', '{a:1}', { kind: 'error', message: 'must be valid JSON' }],
    ['select is trimmed', 'status', ' done ', { kind: 'value', value: 'done' }],
    ['lookup id', 'category', 'abc-123', { kind: 'value', value: 'abc-123' }],
    ['text keeps its spaces', 'name', '  padded  ', { kind: 'value', value: '  padded  ' }],
    ['an empty cell is no value', 'qty', '', { kind: 'empty' }],
    ['an empty text cell is no value', 'name', '', { kind: 'empty' }],
    ['spaces in a typed cell are no value', 'price', '   ', { kind: 'empty' }],
  ];
  for (const [name, field, text, expected] of cases) t.same(coerceCell(f[field]!, text), expected, name);
  t.same(coerceJsonValue(f.qty!, '5'), { kind: 'value', value: 5 }, 'a JSON string is read like a cell');
  t.same(coerceJsonValue(f.qty!, 5), { kind: 'value', value: 5 }, 'a JSON number is passed on');
  t.same(coerceJsonValue(f.meta!, '{"a":1}'), { kind: 'value', value: '{"a":1}' }, 'a json field keeps a JSON string as a string');
});

t.test('csv rows: header, mapping, values, row numbers', async (t) => {
  const rows = csvRows(item, 'Name,qty,tags,Ignored\r\nHammer,3,red;blue,x\r\n\r\nNail,abc,,y\r\nShort,1\r\n', { Name: 'name', Ignored: null });
  t.same(rows.map((r) => r.row), [1, 3, 4], 'blank lines are skipped but keep their number');
  t.same(rows[0], { row: 1, input: { name: 'Hammer', qty: 3, tags: ['red', 'blue'] }, errors: [], columns: { name: 'Name' }, unreadable: false }, 'a good row');
  t.same(rows[1]!.errors, [{ path: 'qty', message: "must be a whole number, not 'abc'" }], 'a bad cell is a row error');
  t.same(rows[1]!.input, { name: 'Nail' }, 'the bad cell and the empty cell are left out');
  t.same(rows[2], { row: 4, input: {}, errors: [{ path: '', message: 'has 2 value(s) but the header has 4 column(s)' }], columns: {}, unreadable: true }, 'a short record');
  t.same(csvRows(item, 'name\n', {}), [], 'a header alone has no rows');
});

t.test('csv header problems are a 400 before any row, all at once', async (t) => {
  const e = refused(t, () => csvRows(item, 'name,colour,id,total,seq,locked,qty,qty,\nx,y,1,2,3,4,5,6,7\n', { Nope: 'name', colour: 'not_a_field' }), 'VALIDATION_ERROR');
  const errors = e.details.errors as Array<{ path: string; message: string }>;
  t.same(errors.map((x) => x.path).sort(), [
    'csv.header.9', 'csv.header.id', 'csv.header.locked', 'csv.header.name', 'csv.header.qty', 'csv.header.seq', 'csv.header.total', 'mapping.Nope', 'mapping.colour',
  ].sort(), 'every problem, each with its path');
  t.match(errors.find((x) => x.path === 'mapping.colour')?.message, /'not_a_field' is not a field of item; map the column to a field of item, or to null to skip it/, 'unknown mapping target');
  t.match(errors.find((x) => x.path === 'mapping.Nope')?.message, /'Nope' is not a column of the CSV header/, 'mapping of a column the file does not have');
  t.match(errors.find((x) => x.path === 'csv.header.name')?.message, /both go to 'name'/, 'a named column and a mapping to the same field');
  t.match(errors.find((x) => x.path === 'csv.header.id')?.message, /'id' is set by the server and cannot be imported; map the column to a field in mapping, or to null to skip it/, 'system field');
  t.match(errors.find((x) => x.path === 'csv.header.total')?.message, /'total' is computed/, 'formula');
  t.match(errors.find((x) => x.path === 'csv.header.seq')?.message, /'seq' is computed/, 'autonumber');
  t.match(errors.find((x) => x.path === 'csv.header.locked')?.message, /'locked' is read-only/, 'read-only');
  t.match(errors.find((x) => x.path === 'csv.header.qty')?.message, /appears twice/, 'duplicate column');
  t.match(errors.find((x) => x.path === 'csv.header.9')?.message, /column 9 has no name/, 'unnamed column');
  const unknown = refused(t, () => csvRows(item, 'name,colour\nx,y\n', {}), 'VALIDATION_ERROR');
  t.match(unknown.message, /csv\.header\.colour: 'colour' is not a field of item; map the column to a field in mapping, or to null to skip it/, 'an unmapped unknown column is refused, not dropped');
  const both = refused(t, () => csvRows(item, 'name,Title\nx,y\n', { Title: 'name' }), 'VALIDATION_ERROR');
  t.match(both.message, /column 'name' and a mapped column both go to 'name'/, 'two columns to one field');
  refused(t, () => csvRows(item, '', {}), 'VALIDATION_ERROR');
});

t.test('csv headers name fields without regard to case, spaces, dashes or underscores', async (t) => {
  const rows = csvRows(item, 'NAME,Qty,Seen At\nx,2,2026-01-01T10:00:00Z\n', {});
  t.same(rows[0]!.input, { name: 'x', qty: 2, seen_at: '2026-01-01T10:00:00Z' }, 'NAME, Qty and Seen At land in name, qty and seen_at');
  t.same(rows[0]!.columns, { name: 'NAME', qty: 'Qty', seen_at: 'Seen At' }, 'errors would name the column as written');
  t.match(refused(t, () => csvRows(item, 'ID,name\n1,x\n', {}), 'VALIDATION_ERROR').message, /'id' is set by the server/, 'a system field in another case is refused as such');
  t.match(refused(t, () => csvRows(item, 'Name,name\nx,y\n', {}), 'VALIDATION_ERROR').message, /columns 'Name' and 'name' both go to 'name'/, 'two spellings of one field are refused');
});

t.test('json rows: mapping renames, null drops, values are read', async (t) => {
  const rows = jsonRows(item, [{ Title: 'A', qty: '2', skip: 'x' }, { Title: 'B', name: 'C' }, { name: 'D', bogus: 1 }], { Title: 'name', skip: null });
  t.same(rows[0], { row: 1, input: { name: 'A', qty: 2 }, errors: [], columns: { name: 'Title' }, unreadable: false }, 'renamed, read, dropped');
  t.same(rows[1]!.errors, [{ path: 'name', message: "is given twice (by 'Title' and 'name')" }], 'two keys for one field');
  t.same(rows[2]!.input, { name: 'D', bogus: 1 }, 'an unknown key goes to the engine, which names it');
  const e = refused(t, () => jsonRows(item, [{}], { a: 'nope', b: 'id' }), 'VALIDATION_ERROR');
  t.same((e.details.errors as Array<{ path: string }>).map((x) => x.path), ['mapping.a', 'mapping.b'], 'unknown targets are a 400 before any row');
});

t.test(`more than ${MAX_IMPORT_ROWS} rows are refused before anything is read`, async (t) => {
  const e = refused(t, () => jsonRows(item, Array.from({ length: MAX_IMPORT_ROWS + 1 }, () => ({ name: 'x' })), {}), 'IMPORT_TOO_LARGE');
  t.same(e.details, { count: 5001, max: 5000 }, 'count and limit');
  const csv = `name\n${'x\n'.repeat(MAX_IMPORT_ROWS + 1)}`;
  t.same(refused(t, () => csvRows(item, csv, {}), 'IMPORT_TOO_LARGE').details, { count: 5001, max: 5000 }, 'csv too');
  t.equal(csvRows(item, `name\n${'x\n'.repeat(MAX_IMPORT_ROWS)}\n\n`, {}).length, MAX_IMPORT_ROWS, 'exactly the limit, with blank lines, is accepted');
});
