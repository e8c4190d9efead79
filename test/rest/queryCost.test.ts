/**
 * The cost of one query is bounded: joins over plugins.data.maxJoins and a query past
 * plugins.data.queryTimeoutMs answer 400 QUERY_TOO_COSTLY, and health answers at once while such
 * a query runs (SQLite runs it in a read worker; PostgreSQL cancels it at statement_timeout).
 */
import t from 'tap';
import { readWorkers } from '../../plugins/data/sql/sqliteReadWorkers.ts';
import { onEachDriver, type Rest } from './restFixtures.ts';

const api = '/api/v1/data';
const TIMEOUT_MS = 1500;
const selfJoins = (n: number, type = 'inner') => Array.from({ length: n }, (_, i) => ({ type, object: 'account', as: `a${i}`, on: `name = a${i}.name` }));

/**
 * Whether the database still works on the stopped query: on PostgreSQL a backend running it; on
 * SQLite a read worker terminated at the deadline whose thread is still inside SQLite.
 */
async function stillRunning(rest: Rest): Promise<boolean> {
  await new Promise((resolve) => setTimeout(resolve, 300));
  return rest.database().withDatabase(rest.environments[0]!, async ({ knex }) => {
    if (rest.driver === 'sqlite') return readWorkers(knex)!.stats().stuck > 0;
    const rows = (await knex.raw("select count(*)::int as n from pg_stat_activity where state = 'active' and pid <> pg_backend_pid() and query like '%\"a7\".%'")) as { rows: Array<{ n: number }> };
    return rows.rows[0]!.n > 0;
  });
}

async function seed(rest: Rest, n: number, name: string): Promise<void> {
  for (let i = 0; i < n; i++) await rest.create('account', { name, employees: i });
}

t.test('joins over maxJoins answer QUERY_TOO_COSTLY naming the limit', async (t) => {
  await onEachDriver(t, 'costjoins', async (t, rest) => {
    const res = await rest.send('POST', `${api}/account/query`, { joins: selfJoins(4) });
    t.equal(res.status, 400, 'status');
    t.equal(res.body.error.code, 'QUERY_TOO_COSTLY', 'code');
    t.match(res.body.error.message, 'it holds 4 joins and at most 3 are allowed', 'the message says what is over');
    t.match(res.body.error.message, 'use at most 3 joins (plugins.data.maxJoins)', 'and what to change');
    t.same({ limit: res.body.error.details.limit, max: res.body.error.details.max }, { limit: 'maxJoins', max: 3 }, 'details name the limit');
    const within = await rest.send('POST', `${api}/account/query`, { joins: selfJoins(3) });
    t.equal(within.status, 200, 'three joins are answered');
  }, { config: { plugins: { data: { maxJoins: 3 } } } });
});

t.test('a query past the time budget answers QUERY_TOO_COSTLY while health answers at once', async (t) => {
  await onEachDriver(t, 'costtime', async (t, rest) => {
    await seed(rest, 12, 'same');
    await seed(rest, 2, 'other');

    // Within the budget a costly query is answered in full, unmatched left-joined rows included.
    const small = await rest.send('POST', `${api}/account/query`, {
      joins: [{ type: 'left', object: 'account', as: 'b', on: 'name = b.name' }],
      fields: ['name', 'b.employees'], where: { employees: { $lt: 1 } }, orderBy: ['name'], limit: 200,
    });
    t.equal(small.status, 200, 'a self-join within the budget is answered');
    t.equal(small.body.total, 14, 'one row per matching pair: 12 for the first "same" row, 2 for the first "other" row');
    t.same([...new Set(small.body.items.map((r: { name: string }) => r.name))], ['other', 'same'], 'rows of both names');

    // Eight self-joins of 12 rows: 12^9 rows, far past any budget.
    const started = Date.now();
    let costlyDone = false;
    const costly = rest.send('POST', `${api}/account/query`, { joins: selfJoins(8), aggregations: [{ function: 'count', alias: 'n' }] }).then((res) => {
      costlyDone = true;
      return { res, ms: Date.now() - started };
    });
    // Health while the costly query is in flight.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const healthStarted = Date.now();
    const health = await rest.send('GET', '/api/v1/health');
    const healthMs = Date.now() - healthStarted;
    t.equal(health.status, 200, 'health answers');
    t.equal(health.body.status, 'ok', 'health is ok');
    t.ok(healthMs < 500, `health answers at once (${healthMs} ms) while the costly query runs`);
    t.equal(costlyDone, false, 'the costly query was still running when health answered');

    const { res, ms } = await Promise.race([costly, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the costly query ran on past 10 s')), 10_000))]);
    t.equal(res.status, 400, 'the costly query answers 400');
    t.equal(res.body.error.code, 'QUERY_TOO_COSTLY', 'code');
    t.match(res.body.error.message, `it ran longer than the time budget of ${TIMEOUT_MS} ms`, 'the message names the budget');
    t.match(res.body.error.message, 'narrow the filter, use fewer joins', 'and what to change');
    t.same({ limit: res.body.error.details.limit, max: res.body.error.details.max }, { limit: 'queryTimeoutMs', max: TIMEOUT_MS }, 'details name the limit');
    t.ok(ms >= TIMEOUT_MS - 100 && ms < TIMEOUT_MS + 3000, `it stopped at the budget (${ms} ms)`);
    t.equal(await stillRunning(rest), false, 'nothing of the query runs on after its answer');

    // The server goes on: a plain read and the same costly shape within the budget.
    const after = await rest.send('GET', `${api}/account?limit=1`);
    t.equal(after.status, 200, 'reads go on after the budget stopped a query');
    const again = await rest.send('POST', `${api}/account/query`, { joins: selfJoins(1), where: { name: 'other' }, aggregations: [{ function: 'count', alias: 'n' }] });
    t.equal(again.status, 200, 'a costly query within the budget still runs');
    t.equal(again.body.items[0].n, 4, 'two "other" rows joined to each other: 4 pairs');
  }, { config: { plugins: { data: { maxJoins: 8, queryTimeoutMs: TIMEOUT_MS } } } });
});
