/** An import is a series of engine creates: the data hooks fire per row, and their failures are the row's. */
import t from 'tap';
import type { DataRecord } from '../../capabilities/dataEngine.ts';
import { codedError, definePlugin } from '../../kernel/index.ts';
import { BUILTIN_PLUGINS } from '../../plugins/builtin.ts';
import { onEachDriver } from './ioFixtures.ts';

interface InsertEvent {
  record: DataRecord;
  ctx: { environmentId: string };
}

const fired: Array<{ hook: string; name: unknown }> = [];
let behaviour: ((event: InsertEvent) => void) | null = null;

const recorder = definePlugin({
  name: 'test-import-hooks',
  version: '1.0.0',
  kernel: '^16.0.0',
  register(ctx) {
    ctx.hook('data.beforeInsert', (event: InsertEvent) => {
      fired.push({ hook: 'beforeInsert', name: event.record.name });
      behaviour?.(event);
    }, { object: 'item' });
    ctx.hook('data.afterInsert', (event: InsertEvent) => void fired.push({ hook: 'afterInsert', name: event.record.name }), { object: 'item' });
  },
});

const url = '/api/v1/data/item/import';
const rows = [{ name: 'one' }, { name: 'two', status: 'done' }, { name: 'three' }];

await onEachDriver(t, 'io-hooks', async (t, io) => {
  await t.test('each row fires beforeInsert and afterInsert, as a single create would', async (t) => {
    fired.length = 0;
    const res = await io.send('POST', url, { format: 'json', rows, atomic: false });
    t.equal(res.body.created, 2, 'two rows created');
    t.same(fired, [
      { hook: 'beforeInsert', name: 'one' }, { hook: 'afterInsert', name: 'one' },
      { hook: 'beforeInsert', name: 'two' },
      { hook: 'beforeInsert', name: 'three' }, { hook: 'afterInsert', name: 'three' },
    ], 'per row, in order; a row failing its validation rule stops after beforeInsert');
  });

  await t.test('a beforeInsert change is stored', async (t) => {
    behaviour = (event) => void (event.record.note = `hooked ${String(event.record.name)}`);
    try {
      const res = await io.send('POST', url, { format: 'json', rows: [{ name: 'changed' }] });
      const stored = (await io.all('item')).find((r) => r.id === res.body.rows[0].id);
      t.equal(stored?.note, 'hooked changed', 'the hook saw and changed the row');
    } finally {
      behaviour = null;
    }
  });

  await t.test('a hook refusing a row with a coded error fails that row only (atomic false)', async (t) => {
    behaviour = (event) => {
      if (event.record.name === 'two') throw codedError('CONFLICT', { summary: 'Two is not welcome.' });
    };
    try {
      const res = await io.send('POST', url, { format: 'json', rows: [{ name: 'one' }, { name: 'two' }], atomic: false });
      t.equal(res.body.created, 1, 'the other row is created');
      t.same(res.body.errors, [{ row: 2, code: 'CONFLICT', errors: [{ path: '', message: 'Two is not welcome.' }] }], 'reported with its code and message');
    } finally {
      behaviour = null;
    }
  });

  await t.test('a hook that crashes fails the whole request and writes nothing', async (t) => {
    const before = (await io.all('item')).length;
    behaviour = (event) => {
      if (event.record.name === 'two') throw new Error('hook exploded: secret-token-123');
    };
    try {
      const res = await io.send('POST', url, { format: 'json', rows: [{ name: 'one' }, { name: 'two' }], atomic: false });
      t.equal(res.status, 500, '500');
      t.equal(res.body.error.code, 'INTERNAL', 'INTERNAL');
      t.equal(JSON.stringify(res.body).includes('secret-token-123'), false, 'the crash is not shown to the client');
      t.equal((await io.all('item')).length, before, 'not even the row before it is kept');
    } finally {
      behaviour = null;
    }
  });

  await t.test('a dry run fires the hooks too, inside the transaction that is rolled back', async (t) => {
    fired.length = 0;
    const before = (await io.all('item')).length;
    const res = await io.send('POST', url, { format: 'json', rows: [{ name: 'dry' }], dryRun: true });
    t.same([res.body.valid, res.body.created], [1, 0], 'valid, not created');
    t.same(fired.map((f) => f.hook), ['beforeInsert', 'afterInsert'], 'hooks ran');
    t.equal((await io.all('item')).length, before, 'nothing kept');
  });
}, { builtins: [...BUILTIN_PLUGINS, { manifest: recorder, enabledByDefault: true }] });
