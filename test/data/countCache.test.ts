import t from 'tap';
import type { DataContext, DataEngine } from '../../capabilities/dataEngine.ts';
import { createCountCache } from '../../plugins/data/query/countCache.ts';
import { openTransaction } from '../harness/rememberedReads.ts';
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

t.test('a change of named tables forgets only the totals that read them', async (t) => {
  const cache = createCountCache();
  const reader = cache.reader('a');
  reader.set('select count(*) as n from `sys_job`\u0000[]', 7);
  reader.set('select count(*) as n from "sys_job" where "state" = $1\u0000["waiting"]', 3);
  reader.set('select count(*) as n from `doc`\u0000[]', 10);
  const during = cache.reader('a');
  cache.changed('a', ['sys_job', 'sys_job_payload']);
  const now = cache.reader('a');
  t.same([now.get('select count(*) as n from `sys_job`\u0000[]'), now.get('select count(*) as n from "sys_job" where "state" = $1\u0000["waiting"]')], [undefined, undefined], 'totals naming the table, quoted either way, are forgotten');
  t.equal(now.get('select count(*) as n from `doc`\u0000[]'), 10, 'the others are kept');
  during.set('select count(*) as n from `folder`\u0000[]', 4);
  t.equal(cache.reader('a').get('select count(*) as n from `folder`\u0000[]'), undefined, 'a read under way during the change stores nothing');
});

t.test('a job queue polling its tables leaves other totals remembered', async (t) => {
  const rt = await startTestRuntime({ config: { apps: ['test/data/fixtures/nested-app'], environments: [{ id: 'jobs' }] } });
  t.teardown(() => rt.close());
  const database = rt.runtime.kernel.service<import('../../capabilities/dataDatabase.ts').DataDatabase>('data.database')!;
  const engine = rt.runtime.kernel.service<DataEngine>('data.engine')!;
  const system: DataContext = { environmentId: 'jobs', principal: null, system: true };
  await engine.create('tag', { code: 'one' }, system);
  const counted: string[] = [];
  await database.withDatabase('jobs', async ({ knex }) => {
    knex.on('query', (q: { sql: string }) => {
      if (/count\(\*\)/i.test(q.sql)) counted.push(q.sql);
    });
  });
  t.equal((await engine.query('tag', { limit: 1 }, system)).total, 1, 'counted once');
  await database.withDatabase('jobs', async ({ knex }) => knex('sys_job').where({ id: 'none' }).update({ attempts: 1 }), undefined, { touches: ['sys_job', 'sys_job_payload'] });
  counted.length = 0;
  t.equal((await engine.query('tag', { limit: 1 }, system)).total, 1, 'the same total');
  t.same(counted, [], 'answered without counting after work that touches the job tables only');
  await database.withDatabase('jobs', async ({ knex }) => knex('sys_job').where({ id: 'none' }).update({ attempts: 1 }));
  counted.length = 0;
  await engine.query('tag', { limit: 1 }, system);
  t.equal(counted.length, 1, 'work that may touch any table makes it count again');
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

  const open = openTransaction(engine, system, (tx) => tx.create('doc', { title: 'C' }, system));
  await open.ready;
  t.equal(await total(), 1, 'an uncommitted create is not counted outside its transaction');
  await open.commit();
  t.equal(await total(), 2, 'once committed it is, though a total was counted while it was open');

  const filtered = async () => (await engine.query('doc', { where: { title: 'B' }, limit: 1 }, system)).total;
  t.equal(await filtered(), 1, 'a filtered total');
  const b = (await engine.query('doc', { where: { title: 'B' } }, system)).items[0]!;
  await engine.update('doc', String(b.id), { title: 'B2' }, {}, system);
  t.equal(await filtered(), 0, 'an update that moves a row out of a filter shows');
});
