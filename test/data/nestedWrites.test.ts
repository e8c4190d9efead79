/**
 * Nested engine calls (a batch of writes in one transaction, hooks writing through the engine they
 * were given) each run in a savepoint: a failed call undoes only itself and leaves the transaction
 * usable, siblings started together run one after another, and a call inside a call nests.
 */
import t from 'tap';
import type { DataContext, DataEngine } from '../../capabilities/dataEngine.ts';
import { eachBackend } from '../auth/authHarness.ts';

t.test('nested writes', async (t) => {
  await eachBackend(t, ['nested'], async (t, site) => {
    const rt = await site.boot({ config: { apps: ['test/data/fixtures/nested-app'] } });
    const engine = rt.runtime.kernel.service<DataEngine>('data.engine')!;
    const system: DataContext = { environmentId: site.ids[0]!, principal: null, system: true };
    const codes = async () => (await engine.query('tag', { orderBy: 'code', limit: 100 }, system)).items.map((r) => r.code);

    const batch = await engine.transaction(system, async (tx) => {
      const results = await Promise.allSettled([
        tx.create('tag', { code: 'a' }, system),
        tx.create('tag', { code: 'a' }, system),
        tx.create('tag', { code: 'b' }, system),
      ]);
      // The duplicate fails in the database (the unique index): PostgreSQL aborts the whole
      // transaction on a failed statement unless its savepoint is rolled back.
      const after = await tx.create('tag', { code: 'c' }, system);
      return { results, after };
    });
    t.same(batch.results.map((r) => r.status), ['fulfilled', 'rejected', 'fulfilled'], 'siblings started together: only the duplicate fails');
    t.equal((batch.results[1] as PromiseRejectedResult).reason.code, 'VALIDATION_ERROR', 'the unique index refused the duplicate');
    t.equal(batch.after.code, 'c', 'the transaction is usable after the failed statement');
    t.same(await codes(), ['a', 'b', 'c'], 'everything but the failed call committed');

    const undone = new Error('undo this one');
    const siblings = await engine.transaction(system, async (tx) => {
      return Promise.allSettled([
        tx.transaction(system, async (inner) => {
          await inner.create('tag', { code: 'x' }, system);
          await new Promise((resolve) => setTimeout(resolve, 20));
          throw undone;
        }),
        tx.transaction(system, async (inner) => inner.create('tag', { code: 'y' }, system)),
      ]);
    });
    t.same(siblings.map((r) => r.status), ['rejected', 'fulfilled']);
    t.equal((siblings[0] as PromiseRejectedResult).reason, undone, 'the failed sibling reports its own error');
    t.same(await codes(), ['a', 'b', 'c', 'y'], 'a failing sibling undoes its own write, not the sibling started after it');

    await engine.transaction(system, async (tx) => {
      await tx.transaction(system, async (child) => {
        await child.create('tag', { code: 'p' }, system);
        await t.rejects(child.transaction(system, async (grandchild) => {
          await grandchild.create('tag', { code: 'q' }, system);
          throw undone;
        }), undone, 'a call inside a call runs at once and fails alone');
        await child.create('tag', { code: 'r' }, system);
      });
    });
    t.same(await codes(), ['a', 'b', 'c', 'p', 'r', 'y'], 'the inner call undone, its parent kept');

    await t.rejects(engine.transaction(system, async (tx) => {
      await tx.create('tag', { code: 'z' }, system);
      await tx.transaction(system, async (inner) => inner.create('tag', { code: 'zz' }, system));
      throw new Error('roll back everything');
    }), /roll back everything/);
    t.same(await codes(), ['a', 'b', 'c', 'p', 'r', 'y'], 'released nested work rolls back with its transaction');
  });
});
