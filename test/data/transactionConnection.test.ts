/**
 * Statements of a write transaction run on its own connection (on SQLite outside knex's runner,
 * attachTransactionConnection): its reads see its writes, and an engine bound to a transaction
 * that has ended refuses every statement instead of running it on a connection that is no longer
 * the transaction's.
 */
import t from 'tap';
import type { DataContext, DataEngine } from '../../capabilities/dataEngine.ts';
import { eachBackend } from '../auth/authHarness.ts';

t.test('transaction connection', async (t) => {
  await eachBackend(t, ['trxconn'], async (t, site) => {
    const rt = await site.boot({ config: { apps: ['test/data/fixtures/nested-app'] } });
    const engine = rt.runtime.kernel.service<DataEngine>('data.engine')!;
    const system: DataContext = { environmentId: site.ids[0]!, principal: null, system: true };

    let kept: DataEngine | undefined;
    const seen = await engine.transaction(system, async (tx) => {
      kept = tx;
      const created = await tx.create('tag', { code: 'inside' }, system);
      const updated = await tx.update('tag', String(created.id), { code: 'inside-2' }, { expectedVersion: 1 }, system);
      const listed = (await tx.query('tag', { where: { code: 'inside-2' } }, system)).items.map((r) => r.code);
      return { created: created.code, updated: [updated.code, updated.version], listed, got: (await tx.get('tag', String(created.id), {}, system)).code };
    });
    t.same(seen, { created: 'inside', updated: ['inside-2', 2], listed: ['inside-2'], got: 'inside-2' }, 'reads inside the transaction see its writes, read-backs included');
    t.same((await engine.query('tag', { where: { code: 'inside-2' } }, system)).items.map((r) => r.version), [2], 'committed');

    const refused = await kept!.query('tag', { limit: 5 }, system).then(() => 'ran', (error: Error) => error.message);
    t.match(refused, /Transaction query already complete/, 'a read through an engine whose transaction ended is refused');
    const refusedGet = await kept!.get('tag', 'none', {}, system).then(() => 'ran', (error: Error) => error.message);
    t.match(refusedGet, /Transaction query already complete/, 'and so is a read by id');
    const refusedWrite = await kept!.create('tag', { code: 'late' }, system).then(() => 'ran', (error: Error) => error.message);
    t.match(refusedWrite, /Transaction query already complete/, 'and a write');
    t.same((await engine.query('tag', { where: { code: 'late' } }, system)).items, [], 'nothing was written after the end');
  });
});
