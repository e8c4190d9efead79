import t from 'tap';
import type { DataContext, DataEngine } from '../../capabilities/dataEngine.ts';
import { createCountCache } from '../../plugins/data/query/countCache.ts';
import { startTestRuntime } from '../harness/startTestRuntime.ts';

t.test('the cache keeps a total only until something writes', async (t) => {
  const cache = createCountCache(2);
  const before = cache.reader('a');
  before.set('q1', 10);
  t.equal(cache.reader('a').get('q1'), 10, 'a later read finds the total');
  t.equal(cache.reader('b').get('q1'), undefined, 'environments do not share totals');
  const during = cache.reader('a');
  cache.changed('a');
  t.equal(during.get('q1'), undefined, 'a read that began before the write no longer finds it');
  t.equal(cache.reader('a').get('q1'), undefined, 'nor does a new read');
  during.set('q2', 5);
  t.equal(cache.reader('a').get('q2'), undefined, 'a total counted across a write is not kept');
  const after = cache.reader('a');
  after.set('q1', 1);
  after.set('q2', 2);
  after.set('q3', 3);
  t.same(['q1', 'q2', 'q3'].map((k) => cache.reader('a').get(k)), [undefined, 2, 3], 'at most maxEntries, the oldest dropped first');
});

t.test('list totals on SQLite stay exact through writes, rollbacks and open transactions', async (t) => {
  const rt = await startTestRuntime({ config: { apps: ['test/access/fixtures/app'], environments: [{ id: 'counts' }] } });
  t.teardown(() => rt.close());
  const engine = rt.runtime.kernel.service<DataEngine>('data.engine')!;
  const system: DataContext = { environmentId: 'counts', principal: null, system: true };
  const total = async () => (await engine.query('doc', { limit: 1 }, system)).total;

  t.equal(await total(), 0, 'empty');
  const a = await engine.create('doc', { title: 'A' }, system);
  t.equal(await total(), 1, 'a create shows at once');
  t.equal(await total(), 1, 'and again (from the cache)');
  await engine.create('doc', { title: 'B' }, system);
  t.equal(await total(), 2, 'a second create shows');
  await engine.delete('doc', String(a.id), {}, system);
  t.equal(await total(), 1, 'a delete shows');

  await t.rejects(engine.transaction(system, async (tx) => {
    await tx.create('doc', { title: 'rolled back' }, system);
    throw new Error('abort');
  }), /abort/);
  t.equal(await total(), 1, 'a rolled-back create leaves the total as it was');

  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let created!: () => void;
  const inserted = new Promise<void>((resolve) => (created = resolve));
  const open = engine.transaction(system, async (tx) => {
    await tx.create('doc', { title: 'C' }, system);
    created();
    await gate;
  });
  await inserted;
  t.equal(await total(), 1, 'an uncommitted create is not counted outside its transaction');
  release();
  await open;
  t.equal(await total(), 2, 'once committed it is, though a total was counted while it was open');

  const filtered = async () => (await engine.query('doc', { where: { title: 'B' }, limit: 1 }, system)).total;
  t.equal(await filtered(), 1, 'a filtered total');
  const b = (await engine.query('doc', { where: { title: 'B' } }, system)).items[0]!;
  await engine.update('doc', String(b.id), { title: 'B2' }, {}, system);
  t.equal(await filtered(), 0, 'an update that moves a row out of a filter shows');
});
