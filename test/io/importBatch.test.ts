/**
 * An import written in batches (engine.createMany: every insert hook of the object marked `batched`):
 * each row still gets the checks and the report of a single create, across batch boundaries.
 */
import t from 'tap';
import type { DataRecord } from '../../capabilities/dataEngine.ts';
import { codedError, definePlugin } from '../../kernel/index.ts';
import { HookStore } from '../../kernel/hookStore.ts';
import { BUILTIN_PLUGINS } from '../../plugins/builtin.ts';
import { onEachDriver } from './ioFixtures.ts';

interface InsertEvent {
  record: DataRecord;
}

const fired: string[] = [];

/** Batched hooks on batch_item: a before-hook that fills `note`, an after-hook that refuses one name. */
const batchedHooks = definePlugin({
  name: 'test-batched-hooks',
  version: '1.0.0',
  kernel: '^16.0.0',
  register(ctx) {
    ctx.hook('data.beforeInsert', (event: InsertEvent) => {
      fired.push(`before ${String(event.record.name)}`);
      if (event.record.note === undefined) event.record.note = `noted ${String(event.record.name)}`;
      // Changed inside, in place: the value is the same array, its content is not.
      if (event.record.name === 'labelled-inside' && Array.isArray(event.record.labels)) event.record.labels.push('green');
    }, { object: 'batch_item', batched: true });
    ctx.hook('data.afterInsert', (event: InsertEvent) => {
      fired.push(`after ${String(event.record.name)}`);
      if (event.record.name === 'refused-after') throw codedError('CONFLICT', { summary: 'Refused after the write.' });
    }, { object: 'batch_item', batched: true });
  },
});

const url = '/api/v1/data/batch_item/import';
const row = (i: number, extra: DataRecord = {}): DataRecord => ({ name: `Row ${i}`, code: `B-${i}`, ...extra });

t.test('batched is taken on insert hooks only, and only as true', async (t) => {
  const store = new HookStore();
  t.throws(() => store.add('p', 'data.beforeUpdate', () => undefined, { batched: true }), { code: 'KERNEL_UNKNOWN_HOOK' }, 'not on an update hook');
  t.throws(() => store.add('p', 'data.afterInsert', () => undefined, { batched: 'yes' as unknown as boolean }), { code: 'KERNEL_UNKNOWN_HOOK' }, 'not as another value');
  store.add('p', 'data.afterInsert', () => undefined, { batched: true });
  store.add('p', 'data.beforeInsert', () => undefined);
  t.same(store.all().map((h) => h.batched), [true, undefined], 'kept on the registration');
});

await onEachDriver(t, 'io-batch', async (t, io) => {
  const category = (await io.send('POST', '/api/v1/data/category', { name: 'Batch tools' })).body.id as string;
  await io.send('POST', '/api/v1/data/batch_item', { name: 'Existing', code: 'TAKEN' });

  await t.test('600 rows over three batches: each failing row reported by number, the rest written with history', async (t) => {
    const rows = Array.from({ length: 600 }, (_, i) => row(i + 1, i % 3 === 0 ? { category } : {}));
    rows[99] = row(100, { category: 'no-such-category' });
    rows[299] = row(300, { code: 'B-10' });
    rows[399] = row(400, { code: 'TAKEN' });
    rows[449] = row(450, { status: 'done' });
    rows[499] = row(500, { name: 'forbidden' });
    rows[549] = row(550, { name: 'refused-after' });
    const res = await io.send('POST', url, { format: 'json', rows, atomic: false });
    t.equal(res.status, 200, JSON.stringify(res.body).slice(0, 300));
    t.hasStrict(res.body, { total: 600, valid: 594, failed: 6, created: 594 }, 'counts');
    const unique = [{ path: 'code', message: 'must be unique: another record already has this value' }];
    t.same(res.body.errors, [
      { row: 100, code: 'VALIDATION_ERROR', errors: [{ path: 'category', message: "no category record has id 'no-such-category'" }] },
      { row: 300, code: 'VALIDATION_ERROR', errors: unique },
      { row: 400, code: 'VALIDATION_ERROR', errors: unique },
      { row: 450, code: 'VALIDATION_ERROR', errors: [{ path: 'due', message: "is required for this record (requiredWhen: record.status == 'done')" }] },
      { row: 500, code: 'VALIDATION_ERROR', errors: [{ path: 'name', message: 'This name is not allowed.' }] },
      { row: 550, code: 'CONFLICT', errors: [{ path: '', message: 'Refused after the write.' }] },
    ], 'lookup, a clash with an earlier row of another batch, a clash with a stored record, requiredWhen, a rule, an after-hook');
    const written = res.body.rows as Array<{ row: number; id: string }>;
    t.same(written.map((r) => r.row), Array.from({ length: 600 }, (_, i) => i + 1).filter((n) => ![100, 300, 400, 450, 500, 550].includes(n)), 'an id for every other row, in order');
    const stored = new Map((await io.all('batch_item')).map((r) => [String(r.id), r]));
    t.equal(stored.size, 595, 'the rows and the record before them');
    const third = stored.get(written[2]!.id);
    t.hasStrict(third, { name: 'Row 3', code: 'B-3', status: 'new', category: null, note: 'noted Row 3', version: 1 }, 'defaults and the before-hook change stored');
    t.equal(stored.get(written[0]!.id)?.category, category, 'a lookup stored');
    const history = await io.engine().history('batch_item', written[2]!.id, {}, io.system);
    t.same(history.items.map((h) => [h.operation, h.version, (h.changes as Record<string, { new: unknown }>).code?.new]), [['create', 1, 'B-3']], 'one history entry for a created record');
    const entries = await io.engine().query('sys_record_history', { where: { object: { $eq: 'batch_item' } }, limit: 1 }, io.system);
    t.equal(entries.total, 595, 'one entry per stored record, none for failed rows');
  });

  await t.test('a value a before-hook changed inside is checked again; one it left is stored as coerced', async (t) => {
    fired.length = 0;
    const res = await io.send('POST', url, { format: 'json', rows: [row(3001, { labels: ['red', 'red'], note: 'given' }), row(3002, { name: 'labelled-inside', labels: ['blue'], note: 'given' })], atomic: false });
    t.same(fired, ['before Row 3001', 'before labelled-inside', 'after Row 3001'], 'refused while checking the batch, not by the write (no second pass row by row)');
    t.same([res.status, res.body.created], [200, 1], 'one row written');
    t.same(res.body.errors, [{ row: 2, code: 'VALIDATION_ERROR', errors: [{ path: 'labels', message: 'must be an array of values from red, blue' }] }], 'the label the hook added inside the array is refused');
    const stored = await io.engine().get('batch_item', (res.body.rows as Array<{ id: string }>)[0]!.id, {}, io.system);
    t.same(stored.labels, ['red'], 'the untouched array stored as coerced (each label once)');
  });

  await t.test('the hooks run for each row; a dry run writes nothing', async (t) => {
    fired.length = 0;
    const before = (await io.all('batch_item')).length;
    const res = await io.send('POST', url, { format: 'json', rows: [row(1001), row(1002)], dryRun: true });
    t.same([res.status, res.body.valid, res.body.created], [200, 2, 0], 'valid, not created');
    t.same(fired, ['before Row 1001', 'before Row 1002', 'after Row 1001', 'after Row 1002'], 'a batch: the before-hooks, the write, the after-hooks');
    t.equal((await io.all('batch_item')).length, before, 'nothing kept');
  });

  await t.test('atomic: one failing row in a late batch rolls every batch back', async (t) => {
    const before = (await io.all('batch_item')).length;
    const rows = Array.from({ length: 520 }, (_, i) => row(2000 + i));
    rows[510] = row(2510, { code: 'TAKEN' });
    const res = await io.send('POST', url, { format: 'json', rows });
    t.same([res.status, res.body.error?.code, res.body.error?.details.created, res.body.error?.details.errors.map((e: { row: number }) => e.row)], [400, 'IMPORT_REJECTED', 0, [511]], 'rejected, naming the row');
    t.equal((await io.all('batch_item')).length, before, 'nothing written');
  });
}, { builtins: [...BUILTIN_PLUGINS, { manifest: batchedHooks, enabledByDefault: true }] });
