/**
 * History and trash at the engine: entries commit or roll back with the transaction around the
 * write, and a row stamped into the trash is out of expanded lookups, joins and aggregations too.
 */
import t from 'tap';
import type { DataContext, DataEngine } from '../../capabilities/dataEngine.ts';
import type { DataDatabase } from '../../capabilities/dataDatabase.ts';
import { eachBackend } from '../auth/authHarness.ts';

t.test('history rolls back with its transaction; trashed rows are out of expand, joins and aggregations', async (t) => {
  await eachBackend(t, ['recordtrash'], async (t, site) => {
    const rt = await site.boot({ config: { apps: ['test/rest/fixtures/records'] } });
    const engine = rt.runtime.kernel.service<DataEngine>('data.engine')!;
    const database = rt.runtime.kernel.service<DataDatabase>('data.database')!;
    const system: DataContext = { environmentId: site.ids[0]!, principal: null, system: true };
    const entries = async (recordId: string) => (await engine.query('sys_record_history', { where: { record_id: { $eq: recordId } }, orderBy: '-record_version' }, system)).items;

    let createdId = '';
    const undone = new Error('undo the batch');
    await t.rejects(engine.transaction(system, async (tx) => {
      const memo = await tx.create('memo', { title: 'BATCH' }, system);
      createdId = String(memo.id);
      await tx.update('memo', createdId, { title: 'BATCH-2' }, {}, system);
      t.equal((await tx.query('sys_record_history', { where: { record_id: { $eq: createdId } } }, system)).total, 2, 'two entries inside the transaction');
      throw undone;
    }), undone, 'the batch fails');
    t.same(await entries(createdId), [], 'no entry left after the rollback');

    const kept = await engine.create('memo', { title: 'KEPT' }, system);
    await engine.update('memo', String(kept.id), { title: 'KEPT-2', secret: 's' }, {}, system);
    const history = await entries(String(kept.id));
    t.same(history.map((e) => [e.operation, e.record_version]), [['update', 2], ['create', 1]], 'one entry per committed write');
    t.same(history[0]!.changes, { title: { old: 'KEPT', new: 'KEPT-2' }, secret: { old: null, new: 's' } }, 'old and new values');
    t.equal(history[0]!.created_by, null, 'engine work has no author');

    const target = await engine.create('memo', { title: 'TARGET' }, system);
    const pointer = await engine.create('memo', { title: 'POINTER', related: target.id }, system);
    await t.rejects(engine.delete('memo', String(target.id), {}, system), { code: 'CONFLICT' }, 'a referenced record is not trashed');
    // Stamped below the engine: the only way a referenced row gets into the trash.
    await database.withDatabase(system.environmentId, (db) => db.knex('memo').where({ id: target.id }).update({ deleted_at: new Date().toISOString(), deleted_by: 'someone' }));
    const expanded = await engine.get('memo', String(pointer.id), { expand: ['related'] }, system);
    t.equal(expanded.related, null, 'an expanded lookup to a trashed row is null');
    const joined = await engine.query('memo', { where: { id: { $eq: pointer.id } }, joins: [{ object: 'memo', as: 'r', on: 'related = r.id', type: 'inner' }] }, system);
    t.equal(joined.items.length, 0, 'an inner join to a trashed row matches nothing');
    const counted = await engine.query('memo', { groupBy: ['title'], aggregations: [{ function: 'count', alias: 'n' }] }, system);
    t.notOk(counted.items.some((g) => g.title === 'TARGET'), 'aggregations leave it out');
    t.equal((await engine.query('memo', {}, system)).total, 2, 'totals too');
  });
});
