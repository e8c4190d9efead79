/**
 * On the main thread (an in-memory SQLite database, or a transaction) a costly query still stops
 * at its deadline: its statements test os_budget for each row of the join product.
 */
import t from 'tap';
import { executeQuery } from '../../plugins/data/query/executeQuery.ts';
import { parseQuery } from '../../plugins/data/query/parseQuery.ts';
import { isCostly } from '../../plugins/data/query/queryCost.ts';
import { openDatabase } from '../../plugins/data/sql/openDatabase.ts';
import { readWorkers } from '../../plugins/data/sql/sqliteReadWorkers.ts';
import { contact, registry } from '../harness/fixtures.ts';
import { seed } from './seed.ts';

t.test('a costly query on an in-memory SQLite database stops at its deadline', async (t) => {
  const db = await openDatabase({ url: 'sqlite::memory:' });
  t.teardown(() => db.close());
  await seed(db);
  t.equal(readWorkers(db.knex), undefined, 'an in-memory database has no read workers');
  const joins = [0, 1, 2].map((i) => ({ type: 'inner', object: 'contact', as: `p${i}`, on: `priority = p${i}.priority` }));
  const ast = parseQuery({ joins, fields: ['id'], orderBy: ['id'] }, contact, registry);
  t.equal(isCostly(ast), true, 'self-joins on a shared value are costly');
  t.equal(isCostly(parseQuery({ joins: [{ type: 'left', object: 'account', as: 'a', on: 'account = a.id' }] }, contact, registry)), false, 'a many-to-one join on id is not');

  const within = await executeQuery(ast, db.knex, { cursorKey: 'k', deadline: Date.now() + 60_000 });
  // Priorities 1, 2, 3 (2, 3 and 2 contacts; null matches nothing): 2^4 + 3^4 + 2^4 rows.
  t.equal(within.total, 113, 'within its budget the query answers every row of the product');
  await t.rejects(executeQuery(ast, db.knex, { cursorKey: 'k', deadline: Date.now() - 1 }), { code: 'OSR_QUERY_BUDGET' }, 'past its deadline the statement is stopped');
  await db.knex.transaction(async (trx) => {
    await t.rejects(executeQuery(ast, trx, { cursorKey: 'k', deadline: Date.now() - 1 }), { code: 'OSR_QUERY_BUDGET' }, 'inside a transaction too');
  });
});
