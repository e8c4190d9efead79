/** engine.upsert: one record per key under concurrency, the update branch versioned, and the same inside a transaction. */
import t from 'tap';
import type { DataContext, DataEngine } from '../../capabilities/dataEngine.ts';
import { eachBackend } from '../auth/authHarness.ts';

t.test('engine upsert', async (t) => {
  await eachBackend(t, ['upsert'], async (t, site) => {
    const rt = await site.boot({ config: { apps: ['test/data/fixtures/nested-app'] } });
    const engine = rt.runtime.kernel.service<DataEngine>('data.engine')!;
    const system: DataContext = { environmentId: site.ids[0]!, principal: null, system: true };
    const tags = async (code: string) => (await engine.query('tag', { where: { code }, limit: 10 }, system)).items;

    await t.test('200 concurrent upserts of one key: one record, one created, 199 updates', async (t) => {
      const answers = await Promise.allSettled(Array.from({ length: 200 }, () => engine.upsert('tag', 'code', { code: 'race' }, {}, system)));
      t.same(answers.filter((a) => a.status === 'rejected').map((a) => String((a as PromiseRejectedResult).reason)), [], 'none failed');
      const done = answers.map((a) => (a as PromiseFulfilledResult<{ created: boolean; record: { id: unknown; version: unknown } }>).value);
      t.equal(done.filter((a) => a.created).length, 1, 'exactly one created it');
      t.equal(new Set(done.map((a) => a.record.id)).size, 1, 'all answered the same record');
      const stored = await tags('race');
      t.equal(stored.length, 1, 'one record');
      t.equal(stored[0]!.version, 200, 'every other upsert updated it, one after another');
    });

    await t.test('expectedVersion applies to the update branch only', async (t) => {
      const created = await engine.upsert('tag', 'code', { code: 'v' }, { expectedVersion: 7 }, system);
      t.same([created.created, created.record.version], [true, 1], 'a create ignores it');
      const stale = await engine.upsert('tag', 'code', { code: 'v' }, { expectedVersion: 7 }, system).catch((e: { code: string }) => e.code);
      t.equal(stale, 'CONCURRENT_UPDATE', 'a stale version refuses the update');
      const fresh = await engine.upsert('tag', 'code', { code: 'v' }, { expectedVersion: 1 }, system);
      t.same([fresh.created, fresh.record.version], [false, 2], 'the right one updates');
    });

    await t.test('inside a transaction that fails, an upsert is undone with it', async (t) => {
      const failure = new Error('later step failed');
      const outcome = await engine.transaction(system, async (tx) => {
        await tx.upsert('tag', 'code', { code: 'undone' }, {}, system);
        await tx.upsert('tag', 'code', { code: 'race' }, {}, system);
        throw failure;
      }).catch((e: unknown) => e);
      t.equal(outcome, failure, 'the transaction failed');
      t.equal((await tags('undone')).length, 0, 'the created record is gone');
      t.equal((await tags('race'))[0]!.version, 200, 'the updated record is as it was');
    });

    await t.test('siblings started together in one transaction: one record per key', async (t) => {
      const results = await engine.transaction(system, (tx) => Promise.all([
        tx.upsert('tag', 'code', { code: 'twin' }, {}, system),
        tx.upsert('tag', 'code', { code: 'twin' }, {}, system),
      ]));
      t.same(results.map((r) => r.created), [true, false], 'the first creates, the second updates');
      t.equal((await tags('twin')).length, 1, 'one record');
    });
  });
});
