/**
 * The engine's top-level transactions (heldTransaction.ts): committed when the work resolves,
 * rolled back when it fails, nested work in a savepoint, BEGIN and COMMIT seen as knex 'query'
 * events, and a handle whose transaction ended refuses statements, also while a later
 * transaction holds the same connection (SQLite has one).
 */
import t from 'tap';
import { heldTransaction } from '../../plugins/data/sql/heldTransaction.ts';
import { databaseCases } from '../harness/databases.ts';

for (const db of await databaseCases()) {
  t.test(db.name, { skip: db.skip }, async (t) => {
    const { knex } = await db.open(t);
    await knex.schema.createTable('held_item', (table) => {
      table.string('id').primary();
      table.integer('n');
    });
    const ids = async () => ((await knex('held_item').orderBy('id').select('id')) as Array<{ id: string }>).map((r) => r.id);
    const statements: string[] = [];
    knex.on('query', (q: { sql: string }) => statements.push(q.sql));

    const answer = await heldTransaction(knex, async (trx) => {
      await trx('held_item').insert({ id: 'a', n: 1 });
      await trx.raw('update held_item set n = 2 where id = ?', ['a']);
      return ((await trx('held_item').where({ id: 'a' }).first('n')) as { n: number }).n;
    });
    t.equal(answer, 2, 'the work reads its own writes and its answer is returned');
    t.same([statements[0], statements.at(-2)?.slice(0, 6), statements.at(-1)], [db.name.startsWith('sqlite') ? 'BEGIN IMMEDIATE;' : 'BEGIN;', 'select', 'COMMIT;'], 'BEGIN (SQLite: IMMEDIATE, the write lock at once) and COMMIT are emitted as queries');
    t.same(await ids(), ['a'], 'committed');

    const failed = await heldTransaction(knex, async (trx) => {
      await trx('held_item').insert({ id: 'b', n: 1 });
      throw new Error('refused by the work');
    }).then(() => 'committed', (error: Error) => error.message);
    t.equal(failed, 'refused by the work', 'the work\'s error is the answer');
    t.same(await ids(), ['a'], 'and its write was rolled back');

    await heldTransaction(knex, async (trx) => {
      await trx('held_item').insert({ id: 'c', n: 1 });
      const inner = await trx.transaction(async (nested) => {
        await nested('held_item').insert({ id: 'd', n: 1 });
        throw new Error('inner');
      }).then(() => 'kept', (error: Error) => error.message);
      t.equal(inner, 'inner', 'a nested failure reaches its caller');
      await trx.transaction(async (nested) => nested('held_item').insert({ id: 'e', n: 1 }));
    });
    t.same(await ids(), ['a', 'c', 'e'], 'a nested failure undoes its own writes only');

    // knex's executionPromise: what waits for the end of a transaction (a file's bytes after its row's delete).
    const ends: string[] = [];
    await heldTransaction(knex, async (trx) => {
      void trx.executionPromise.then((value) => ends.push(`committed ${String(value)}`));
      await trx('held_item').insert({ id: 'f', n: 1 });
      return 'done';
    });
    await heldTransaction(knex, async (trx) => {
      void trx.executionPromise.then(() => ends.push('committed'), (error: Error) => ends.push(`rolled back: ${error.message}`));
      throw new Error('refused');
    }).catch(() => undefined);
    await new Promise((resolve) => setImmediate(resolve));
    t.same(ends, ['committed done', 'rolled back: refused'], 'executionPromise settles with the commit or the rollback');
    await knex('held_item').where({ id: 'f' }).delete();

    let stale: Awaited<Parameters<Parameters<typeof heldTransaction>[1]>[0]> | undefined;
    await heldTransaction(knex, async (trx) => {
      stale = trx;
    });
    t.equal(stale!.isCompleted(), true, 'an ended handle says so');
    const late = await stale!('held_item').insert({ id: 'late', n: 1 }).then(() => 'ran', (error: Error) => error.message);
    t.match(late, /Transaction query already complete/, 'an ended handle refuses a statement');
    // The same connection held by a later transaction: the stale handle's statement must not run inside it.
    const during = await heldTransaction(knex, async () => {
      const inside = await stale!('held_item').insert({ id: 'stale', n: 1 }).then(() => 'ran', (error: Error) => error.message);
      const raw = await stale!.raw('delete from held_item').then(() => 'ran', (error: Error) => error.message);
      return [inside, raw];
    });
    t.match(during, [/Transaction query already complete/, /Transaction query already complete/], 'and is refused while another transaction holds its connection');
    t.same(await ids(), ['a', 'c', 'e'], 'nothing ran through the ended handle');
  });
}
