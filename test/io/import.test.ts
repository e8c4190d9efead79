/** POST /data/:object/import over HTTP on each driver: limits, dry runs, atomicity, errors by row, mapping, CSV. */
import pino from 'pino';
import t from 'tap';
import type { DataRecord } from '../../capabilities/dataEngine.ts';
import { onEachDriver } from './ioFixtures.ts';

const url = '/api/v1/data/item/import';
const bulkUrl = '/api/v1/data/bulk/import';
const logLines: string[] = [];
const logger = pino({ level: 'info', base: undefined }, { write: (line: string) => void logLines.push(line) });

/** n valid CSV rows with unique codes. */
function bigCsv(n: number, prefix: string, category: string): string {
  let csv = 'name,code,qty,price,active,due,tags,category\r\n';
  for (let i = 1; i <= n; i++) csv += `Item ${i},${prefix}-${i},${i % 50},${(i * 1.25).toFixed(2)},${i % 2 ? 'yes' : 'no'},2026-03-${String((i % 28) + 1).padStart(2, '0')},red;blue,${category}\r\n`;
  return csv;
}

await onEachDriver(t, 'io-import', async (t, io) => {
  const count = async () => (await io.all('item')).length;
  const category = (await io.send('POST', '/api/v1/data/category', { name: 'Tools' })).body.id as string;
  await io.send('POST', '/api/v1/data/item', { name: 'Existing', code: 'EXIST-1' });

  await t.test('5,000 rows: a dry run writes nothing, a real import writes them all', async (t) => {
    const csv = bigCsv(5000, 'BIG', category);
    logLines.length = 0;
    const dry = await io.send('POST', bulkUrl, { format: 'csv', csv, dryRun: true });
    t.equal(dry.status, 200, 'dry run: 200');
    t.same(dry.body, { dryRun: true, atomic: true, total: 5000, valid: 5000, failed: 0, created: 0, errors: [] }, 'dry run: every row valid, none created, no ids');
    t.equal((await io.all('bulk')).length, 0, 'dry run: nothing written');
    const progress = logLines.map((l) => JSON.parse(l) as { msg: string; done?: number }).filter((l) => l.done !== undefined);
    t.same(progress.map((l) => l.done), [1000, 2000, 3000, 4000], 'progress logged every 1,000 rows');
    t.equal(progress[0]?.msg, 'import into bulk: 1000 of 5000 rows', 'the progress line');

    // A timer every 10 ms: an import that held the event loop would let it fire about once, after
    // one gap as long as the import. A busy machine may delay ticks, but not by half the import.
    const ticks: number[] = [];
    const started = performance.now();
    const timer = setInterval(() => void ticks.push(performance.now()), 10);
    const real = await io.send('POST', bulkUrl, { format: 'csv', csv }).finally(() => clearInterval(timer));
    const elapsed = performance.now() - started;
    const gaps = [...ticks, performance.now()].map((at, i, all) => at - (i === 0 ? started : all[i - 1]!));
    const longest = Math.max(...gaps);
    t.equal(real.status, 200, 'real: 200');
    t.ok(ticks.length >= 4 && longest < elapsed / 2, `the event loop kept turning during the import (${ticks.length} timer ticks in ${Math.round(elapsed)} ms, the longest gap ${Math.round(longest)} ms)`);
    t.hasStrict(real.body, { dryRun: false, atomic: true, total: 5000, valid: 5000, failed: 0, created: 5000, errors: [] }, 'real: counts');
    t.same(real.body.rows.map((r: { row: number }) => r.row), Array.from({ length: 5000 }, (_, i) => i + 1), 'real: an id for every row, in order');
    const stored = await io.all('bulk');
    t.equal(stored.length, 5000, 'real: 5,000 records');
    const third = stored.find((r) => r.id === real.body.rows[2].id);
    t.hasStrict(third, { name: 'Item 3', code: 'BIG-3', qty: 3, price: 3.75, active: true, due: '2026-03-04', tags: ['red', 'blue'], category }, 'values read by type');

    const before = (await io.all('bulk')).length;
    const res = await io.send('POST', bulkUrl, { format: 'csv', csv: bigCsv(5001, 'TOO', category) });
    t.equal(res.status, 400, '5,001 rows: 400');
    t.same(res.body.error, {
      code: 'IMPORT_TOO_LARGE',
      message: 'The import holds 5001 rows; at most 5000 are accepted per request. Split it into smaller files.',
      details: { count: 5001, max: 5000 },
    }, '5,001 rows: IMPORT_TOO_LARGE with the count and the limit');
    const rows = await io.send('POST', bulkUrl, { format: 'json', rows: Array.from({ length: 5001 }, (_, i) => ({ name: `j${i}` })) });
    t.equal(rows.body.error.code, 'IMPORT_TOO_LARGE', '5,001 json rows too');
    t.equal((await io.all('bulk')).length, before, '5,001 rows: nothing written');
  });

  // Nine rows: two good, seven failing for different reasons.
  const mixed = [
    'name,code,qty,status,due,category,tags',
    'Good one,MIX-1,1,new,,,',
    'Bad qty,MIX-2,lots,new,,,',
    ',MIX-3,1,new,,,',
    'Bad lookup,MIX-4,1,new,,no-such-category,',
    'Duplicate code,EXIST-1,1,new,,,',
    'Rule,MIX-6,1,done,,,',
    'Good two,MIX-7,2,new,2026-01-01,,green',
    'Short,MIX-8',
    'Bad option,MIX-9,1,archived,,,purple',
  ].join('\n');
  const expectedErrors = [
    { row: 2, code: 'VALIDATION_ERROR', errors: [{ path: 'qty', message: "must be a whole number, not 'lots'" }] },
    { row: 3, code: 'VALIDATION_ERROR', errors: [{ path: 'name', message: 'is required' }] },
    { row: 4, code: 'VALIDATION_ERROR', errors: [{ path: 'category', message: "no category record has id 'no-such-category'" }] },
    { row: 5, code: 'VALIDATION_ERROR', errors: [{ path: 'code', message: 'must be unique: another record already has this value' }] },
    { row: 6, code: 'VALIDATION_ERROR', errors: [{ path: 'due', message: 'A done item needs a due date.' }] },
    { row: 8, code: 'VALIDATION_ERROR', errors: [{ path: '', message: 'has 2 value(s) but the header has 7 column(s)' }] },
    { row: 9, code: 'VALIDATION_ERROR', errors: [{ path: 'status', message: 'must be one of new, done' }, { path: 'tags', message: 'must be an array of values from red, green, blue' }] },
  ];

  await t.test('atomic (the default): one bad row rolls everything back, and every bad row is reported', async (t) => {
    const before = await count();
    const res = await io.send('POST', url, { format: 'csv', csv: mixed });
    t.equal(res.status, 400, '400');
    t.equal(res.body.error.code, 'IMPORT_REJECTED', 'IMPORT_REJECTED');
    t.equal(res.body.error.message, "Nothing was imported: 7 of 9 rows are not valid (first: row 2: qty must be a whole number, not 'lots'). details.errors lists every row; fix them, or send atomic: false to import the valid rows only.", 'says what happened and the way out');
    t.hasStrict(res.body.error.details, { dryRun: false, atomic: true, total: 9, valid: 2, failed: 7, created: 0 }, 'counts');
    t.same(res.body.error.details.errors, expectedErrors, 'errors by row number: bad type, required, lookup, unique, rule, shape, options');
    t.equal(await count(), before, 'no row left behind');
    t.equal((await io.all('item')).some((r) => String(r.code).startsWith('MIX-')), false, 'not even the good rows');
  });

  await t.test('atomic false: the valid rows are written, the others reported', async (t) => {
    const before = await count();
    const dry = await io.send('POST', url, { format: 'csv', csv: mixed, atomic: false, dryRun: true });
    t.hasStrict(dry.body, { dryRun: true, atomic: false, total: 9, valid: 2, failed: 7, created: 0 }, 'dry run: what would happen');
    t.same(dry.body.errors, expectedErrors, 'dry run: the same errors');
    t.equal(await count(), before, 'dry run: nothing written');

    const res = await io.send('POST', url, { format: 'csv', csv: mixed, atomic: false });
    t.equal(res.status, 200, '200');
    t.hasStrict(res.body, { dryRun: false, atomic: false, total: 9, valid: 2, failed: 7, created: 2 }, 'counts');
    t.same(res.body.errors, expectedErrors, 'errors by row');
    t.same(res.body.rows.map((r: { row: number }) => r.row), [1, 7], 'ids of the created rows');
    const codes = (await io.all('item')).map((r) => r.code).filter((c) => String(c).startsWith('MIX-')).sort();
    t.same(codes, ['MIX-1', 'MIX-7'], 'only the valid rows are stored');
    t.equal(await count(), before + 2, 'two more records');
  });

  await t.test('rows that clash with each other: the later one fails', async (t) => {
    const res = await io.send('POST', url, { format: 'json', rows: [{ name: 'A', code: 'DUP-1' }, { name: 'B', code: 'DUP-1' }], atomic: false });
    t.same([res.body.created, res.body.errors], [1, [{ row: 2, code: 'VALIDATION_ERROR', errors: [{ path: 'code', message: 'must be unique: another record already has this value' }] }]], 'unique checks see earlier rows of the same import');
  });

  await t.test('mapping', async (t) => {
    const csv = 'Product,Qty,Colours,Internal\nMapped,4,green;red,secret\n';
    const res = await io.send('POST', url, { format: 'csv', csv, mapping: { Product: 'name', Qty: 'qty', Colours: 'tags', Internal: null } });
    t.equal(res.status, 200, 'mapped columns: 200');
    const stored = (await io.all('item')).find((r) => r.id === res.body.rows[0].id);
    t.hasStrict(stored, { name: 'Mapped', qty: 4, tags: ['green', 'red'] }, 'values land in the mapped fields');
    t.equal(JSON.stringify(stored).includes('secret'), false, 'a column mapped to null is skipped');

    const errors = await io.send('POST', url, { format: 'csv', csv: 'Product,Qty\nX,lots\n', mapping: { Product: 'name', Qty: 'qty' }, atomic: false });
    t.same(errors.body.errors, [{ row: 1, code: 'VALIDATION_ERROR', errors: [{ path: 'qty', message: "must be a whole number, not 'lots'", column: 'Qty' }] }], 'errors name the field and the column');

    const before = await count();
    const bad = await io.send('POST', url, { format: 'csv', csv: 'Product,Qty\nX,1\n', mapping: { Product: 'title', Qty: 'qty' } });
    t.equal(bad.status, 400, 'an unknown mapping target: 400');
    t.same(bad.body.error.details.errors, [{ path: 'mapping.Product', message: "'title' is not a field of item; map the column to a field of item, or to null to skip it" }], 'before any row');
    const unmapped = await io.send('POST', url, { format: 'csv', csv: 'name,Colour\nX,red\n' });
    t.match(unmapped.body.error, { code: 'VALIDATION_ERROR', details: { errors: [{ path: 'csv.header.Colour' }] } }, 'an unmapped column that is not a field: 400');
    t.equal(await count(), before, 'nothing written');

    const json = await io.send('POST', url, { format: 'json', rows: [{ Title: 'From JSON', n: '7', drop: 1 }], mapping: { Title: 'name', n: 'qty', drop: null } });
    t.hasStrict((await io.all('item')).find((r) => r.id === json.body.rows[0].id), { name: 'From JSON', qty: 7 }, 'json rows are mapped and read too');
    const unknownKey = await io.send('POST', url, { format: 'json', rows: [{ name: 'x', colour: 'red' }], atomic: false });
    t.same(unknownKey.body.errors, [{ row: 1, code: 'VALIDATION_ERROR', errors: [{ path: 'colour', message: 'is not a field of item' }] }], 'an unknown JSON key is a row error');
  });

  await t.test('CSV edge cases arrive intact', async (t) => {
    const csv = '\uFEFFname,note,meta\r\n"Comma, inc.","line 1\r\nline 2","{""k"":""v""}"\r\n"Quote ""q""",,\r\n\r\n';
    const res = await io.send('POST', url, { format: 'csv', csv });
    t.equal(res.body.created, 2, 'two rows');
    const byId = new Map((await io.all('item')).map((r) => [r.id, r] as [unknown, DataRecord]));
    t.hasStrict(byId.get(res.body.rows[0].id), { name: 'Comma, inc.', note: 'line 1\r\nline 2', meta: { k: 'v' } }, 'BOM, quoted comma, CRLF inside quotes, JSON with escaped quotes');
    t.hasStrict(byId.get(res.body.rows[1].id), { name: 'Quote "q"', note: null, meta: null }, 'escaped quotes; empty cells are null');
    const broken = await io.send('POST', url, { format: 'csv', csv: 'name\n"open\n' });
    t.match(broken.body.error, { code: 'VALIDATION_ERROR', message: /csv line 2: a quoted field is not closed/ }, 'a damaged file is a 400 naming the line');
  });

  await t.test('routes and bodies', async (t) => {
    const cases: Array<[string, string, unknown, number, string]> = [
      ['apiEnabled false', '/api/v1/data/secret_item/import', { format: 'json', rows: [] }, 404, 'NOT_FOUND'],
      ['unknown object', '/api/v1/data/nothing/import', { format: 'json', rows: [] }, 404, 'NOT_FOUND'],
      ['import not in apiMethods', '/api/v1/data/listed_item/import', { format: 'json', rows: [] }, 405, 'METHOD_NOT_ALLOWED'],
      ['csv without csv', url, { format: 'csv', rows: [] }, 400, 'VALIDATION_ERROR'],
      ['json without rows', url, { format: 'json', csv: 'a' }, 400, 'VALIDATION_ERROR'],
      ['unknown format', url, { format: 'xml', csv: 'a' }, 400, 'VALIDATION_ERROR'],
      ['unknown key', url, { format: 'json', rows: [], upsert: true }, 400, 'VALIDATION_ERROR'],
      ['a row that is not an object', url, { format: 'json', rows: ['x'] }, 400, 'VALIDATION_ERROR'],
    ];
    for (const [name, path, body, status, code] of cases) {
      const res = await io.send('POST', path, body);
      t.same([res.status, res.body.error?.code], [status, code], `${name}: ${status} ${code}`);
    }
    const empty = await io.send('POST', url, { format: 'json', rows: [] });
    t.same(empty.body, { dryRun: false, atomic: true, total: 0, valid: 0, failed: 0, created: 0, errors: [], rows: [] }, 'no rows: nothing to do');
    const prefixed = await io.send('POST', `/api/v1/environments/${io.environment}/data/item/import`, { format: 'json', rows: [{ name: 'Prefixed' }] });
    t.equal(prefixed.body.created, 1, 'served below the environment prefix too');
  });
}, { logger });
