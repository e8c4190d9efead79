/**
 * SQLite reads in the pool of read workers answer as the main thread does: the same rows, values
 * and totals, writes seen once committed, a transaction's own writes seen inside it. A slow
 * pooled read leaves the event loop free. PostgreSQL runs the same reads (it has no pool) and
 * must give the same answers.
 */
import t from 'tap';
import type { DataContext } from '../../capabilities/dataEngine.ts';
import { readWorkers } from '../../plugins/data/sql/sqliteReadWorkers.ts';
import { bootRest, onEachDriver, type Rest } from '../rest/restFixtures.ts';

const api = '/api/v1/data';

/** Jobs the environment's read workers have started (SQLite); 0 on PostgreSQL. */
async function workersStarted(rest: Rest): Promise<number> {
  if (rest.driver !== 'sqlite') return 0;
  return rest.database().withDatabase(rest.environments[0]!, async ({ knex }) => readWorkers(knex)!.stats().workers);
}

const ACCOUNTS = [
  { name: 'Alpha', type: 'customer', phone: '+1 555 0100', segments: ['smb', 'enterprise'], active: true, annual_revenue: 10.5, employees: 3, customer_since: '2024-01-02' },
  { name: 'Beta', type: 'customer', phone: '+1 555 0101', segments: [], active: false, annual_revenue: 20.25, employees: 7, customer_since: '2023-06-30' },
  { name: 'Gamma', type: 'partner', segments: ['public_sector'], active: true, annual_revenue: null, employees: 11, customer_since: null },
  { name: 'Delta', type: 'prospect', segments: ['mid_market'], active: false, annual_revenue: 5, employees: 2, customer_since: '2022-12-31' },
];

t.test('pooled reads give the rows, values and totals of main-thread reads, writes included', async (t) => {
  await onEachDriver(t, 'readpool', async (t, rest) => {
    for (const account of ACCOUNTS) await rest.create('account', account);
    const list = `${api}/account?where=${encodeURIComponent(JSON.stringify({ employees: { $gte: 3 } }))}&orderBy=-employees&select=name,segments,active,annual_revenue,customer_since,employees&limit=2`;
    t.equal(await workersStarted(rest), 0, 'no worker before a read needs one');
    // pooledReadMs 0: a shape's first two reads run on the main thread (two slow runs in a row), every later one in the pool.
    // Pages are not remembered here (pageCacheMb 0): each read runs its statements.
    const main = await rest.send('GET', list);
    t.equal(main.status, 200, 'the first read answers');
    t.same((await rest.send('GET', list)).body, main.body, 'the second answers the same');
    t.equal(await workersStarted(rest), 0, 'the first two reads of a shape ran on the main thread');
    const pooled = await rest.send('GET', list);
    t.equal(await workersStarted(rest), rest.driver === 'sqlite' ? 2 : 0, 'the third ran in read workers, page and count in one each (SQLite)');
    t.equal(pooled.status, 200, 'answered');
    t.same(pooled.body, main.body, 'same items, total and cursor as on the main thread');
    t.same(pooled.body.items.map(({ id: _id, ...fields }: Record<string, unknown>) => fields), [
      { name: 'Gamma', segments: ['public_sector'], active: true, annual_revenue: null, customer_since: null, employees: 11 },
      { name: 'Beta', segments: [], active: false, annual_revenue: 20.25, customer_since: '2023-06-30', employees: 7 },
    ], 'booleans, JSON arrays, currency, dates and nulls decoded as on the main thread');
    t.equal(pooled.body.total, 3, 'the total');
    const next = await rest.send('GET', `${list}&cursor=${encodeURIComponent(pooled.body.nextCursor)}`);
    t.same(next.body.items.map((r: { name: string }) => r.name), ['Alpha'], 'the cursor of a pooled page walks on');

    // Written, then read: the pooled read sees the committed write, and its total moves.
    const created = await rest.create('account', { name: 'Epsilon', type: 'customer', phone: '+1 555 0102', segments: ['smb'], active: true, employees: 40 });
    const afterCreate = await rest.send('GET', list);
    t.same(afterCreate.body.items.map((r: { name: string }) => r.name), ['Epsilon', 'Gamma'], 'the new record leads the pooled page');
    t.equal(afterCreate.body.total, 4, 'and the total counts it');
    const patched = await rest.send('PATCH', `${api}/account/${String(created.id)}`, { employees: 1 });
    t.equal(patched.status, 200, 'updated');
    const afterUpdate = await rest.send('GET', list);
    t.same(afterUpdate.body.items.map((r: { name: string }) => r.name), ['Gamma', 'Beta'], 'the update is seen by the next pooled read');
    t.equal(afterUpdate.body.total, 3, 'its total too');

    // Aggregations always run in the pool on SQLite.
    const groups = await rest.send('POST', `${api}/account/query`, {
      groupBy: ['type'], aggregations: [{ function: 'count', alias: 'n' }, { function: 'sum', field: 'employees', alias: 'staff' }], orderBy: ['type'],
    });
    t.equal(groups.status, 200, 'aggregation answered');
    t.same(groups.body.items, [
      { type: 'customer', n: 3, staff: 11 }, { type: 'partner', n: 1, staff: 11 }, { type: 'prospect', n: 1, staff: 2 },
    ], 'groups and sums count every committed row');
    t.equal(groups.body.total, 3, 'three groups');

    // Inside a transaction a read sees the transaction's own write (it stays on the writer's connection).
    const engine = rest.engine();
    const ctx: DataContext = { environmentId: rest.environments[0]!, principal: null, system: true };
    const seen = await engine.transaction(ctx, async (tx) => {
      await tx.create('account', { name: 'Zeta', type: 'competitor', employees: 9 }, ctx);
      const inside = await tx.query('account', { groupBy: ['type'], aggregations: [{ function: 'count', alias: 'n' }], where: { type: 'competitor' } }, ctx);
      return inside.items;
    });
    t.same(seen, [{ type: 'competitor', n: 1 }], 'the aggregation inside the transaction counts its uncommitted row');
    const committed = await rest.send('POST', `${api}/account/query`, { groupBy: ['type'], aggregations: [{ function: 'count', alias: 'n' }], where: { type: 'competitor' } });
    t.same(committed.body.items, [{ type: 'competitor', n: 1 }], 'and a pooled read after the commit counts it too');
  }, { config: { plugins: { data: { readers: 2, pooledReadMs: 0, pageCacheMb: 0 } } } });
});

t.test('a shape is judged without its values: a slow filter sends its other values to the pool too', async (t) => {
  await onEachDriver(t, 'readshape', async (t, rest) => {
    for (const account of ACCOUNTS) await rest.create('account', account);
    const list = (employees: number) => `${api}/account?where=${encodeURIComponent(JSON.stringify({ employees: { $gte: employees } }))}&orderBy=-employees&select=name&limit=2`;
    t.equal((await rest.send('GET', list(3))).status, 200, 'a first read of the shape');
    t.equal((await rest.send('GET', list(3))).status, 200, 'and a second, both slow (pooledReadMs 0)');
    t.equal(await workersStarted(rest), 0, 'both ran on the main thread');
    const other = await rest.send('GET', list(7));
    t.same(other.body.items.map((r: { name: string }) => r.name), ['Gamma', 'Beta'], 'another value of the same filter answers its own rows');
    t.equal(await workersStarted(rest), rest.driver === 'sqlite' ? 2 : 0, 'in the read workers at once (SQLite): it did not have to be slow twice on the main thread first');
  }, { config: { plugins: { data: { readers: 2, pooledReadMs: 0, pageCacheMb: 0 } } } });
});

t.test('with readers 0 every read runs on the main thread, with the same answers', async (t) => {
  await onEachDriver(t, 'readpool0', async (t, rest) => {
    for (const account of ACCOUNTS) await rest.create('account', account);
    const groups = await rest.send('POST', `${api}/account/query`, { groupBy: ['active'], aggregations: [{ function: 'count', alias: 'n' }], orderBy: ['active'] });
    t.same(groups.body.items, [{ active: false, n: 2 }, { active: true, n: 2 }], 'booleans as group keys');
    if (rest.driver === 'sqlite') {
      const none = await rest.database().withDatabase(rest.environments[0]!, async ({ knex }) => readWorkers(knex));
      t.equal(none, undefined, 'no pool is attached');
    }
  }, { config: { plugins: { data: { readers: 0, pooledReadMs: 0 } } } });
});

t.test('health answers while a slow pooled read runs', async (t) => {
  await onEachDriver(t, 'readslow', async (t, rest) => {
    // PostgreSQL answers the same read without a pool; fewer rows keep its insert short.
    const rows = rest.driver === 'sqlite' ? 400_000 : 20_000;
    const template = await rest.create('account', { name: 'seed', type: 'customer', phone: '+1 555 0103', employees: 1 });
    // Many rows at once, copied from the template row in SQL: a count of distinct names over them takes a while.
    await rest.database().withDatabase(rest.environments[0]!, async ({ knex }) => {
      const columns = Object.keys(await knex('account').columnInfo()).filter((c) => c !== 'id' && c !== 'name');
      const list = columns.map((c) => `"${c}"`).join(', ');
      const ids = rest.driver === 'sqlite'
        ? `with recursive n(i) as (select 1 union all select i + 1 from n where i < ?) select lower(hex(randomblob(16))), 'n' || i, ${list} from n, account where account.id = ?`
        : `select md5(i::text || random()::text), 'n' || i, ${list} from generate_series(1, ?::int) as n(i), account where account.id = ?`;
      await knex.raw(`insert into account (id, name, ${list}) ${ids}`, [rows, String(template.id)]);
    });
    const order: string[] = [];
    const slow = rest.send('POST', `${api}/account/query`, { groupBy: ['type'], aggregations: [{ function: 'count_distinct', field: 'name', alias: 'names' }] })
      .then((res) => {
        order.push('slow');
        return res;
      });
    if (rest.driver === 'sqlite') {
      // Wait until the read runs in its worker: a read on the main thread would hold this loop until it ended.
      const workers = await rest.database().withDatabase(rest.environments[0]!, async ({ knex }) => readWorkers(knex)!);
      while (workers.stats().busy === 0 && order.length === 0) await new Promise((resolve) => setImmediate(resolve));
      t.equal(workers.stats().busy, 1, 'the slow read runs in a worker');
    }
    const health = await rest.send('GET', '/api/v1/health');
    order.push('health');
    t.equal(health.status, 200, 'health answers');
    const res = await slow;
    t.same(res.body.items, [{ type: 'customer', names: rows + 1 }], 'the slow read answers in full');
    if (rest.driver === 'sqlite') t.same(order, ['health', 'slow'], 'health answered before the slow read ended');
  });
});

t.test('stopping the runtime ends its read workers', async (t) => {
  const rest = await bootRest(t, 'sqlite', 'readstop');
  await rest.create('account', { name: 'One', type: 'partner' });
  const groups = await rest.send('POST', `${api}/account/query`, { groupBy: ['type'], aggregations: [{ function: 'count', alias: 'n' }] });
  t.same(groups.body.items, [{ type: 'partner', n: 1 }], 'an aggregation ran');
  const workers = await rest.database().withDatabase(rest.environments[0]!, async ({ knex }) => readWorkers(knex)!);
  t.equal(workers.stats().workers, 1, 'in a worker');
  await rest.rt.runtime.stop();
  t.same(workers.stats(), { workers: 0, busy: 0, queued: 0, stuck: 0 }, 'stop ended the worker');
  await t.rejects(workers.read({ sql: 'select 1 as one', bindings: [] }, Date.now() + 1000), { message: 'the SQLite read workers are closed' }, 'and the pool takes no more reads');
});
