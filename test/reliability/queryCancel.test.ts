/**
 * A costly query stops when its client goes away: on PostgreSQL its statement is cancelled, on
 * SQLite its read worker is terminated, well before the time budget would have stopped it.
 */
import { request } from 'node:http';
import t from 'tap';
import { readWorkers } from '../../plugins/data/sql/sqliteReadWorkers.ts';
import { onEachDriver, type Rest } from '../rest/restFixtures.ts';

const BUDGET_MS = 20_000;
const selfJoins = Array.from({ length: 8 }, (_, i) => ({ type: 'inner', object: 'account', as: `a${i}`, on: `name = a${i}.name` }));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether the costly query still runs: a PostgreSQL backend on it, or a busy or stuck SQLite read worker. */
function running(rest: Rest): Promise<boolean> {
  return rest.database().withDatabase(rest.environments[0]!, async ({ knex }) => {
    if (rest.driver === 'sqlite') {
      const stats = readWorkers(knex)!.stats();
      return stats.busy + stats.stuck > 0;
    }
    const rows = (await knex.raw(`select count(*)::int as n from pg_stat_activity where state = 'active' and pid <> pg_backend_pid() and query like '%"a7".%'`)) as { rows: Array<{ n: number }> };
    return rows.rows[0]!.n > 0;
  });
}

async function waitFor(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return true;
    await sleep(50);
  }
  return check();
}

t.test('a costly query stops when its client goes away', async (t) => {
  await onEachDriver(t, 'cancel', async (t, rest) => {
    for (let i = 0; i < 12; i++) await rest.create('account', { name: 'same' });
    const url = new URL(`${rest.rt.runtime.http().url()!}/api/v1/data/account/query`);
    const body = JSON.stringify({ joins: selfJoins, aggregations: [{ function: 'count', alias: 'n' }] });
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } });
    req.on('error', () => undefined);
    req.end(body);
    t.equal(await waitFor(() => running(rest), 3000), true, 'the costly query runs');
    const closed = Date.now();
    req.destroy();
    t.equal(await waitFor(async () => !(await running(rest)), 2000), true, `it stopped ${Date.now() - closed} ms after its client went away`);
    const health = await rest.send('GET', '/api/v1/health');
    t.equal(health.status, 200, 'the server answers');
  }, { config: { server: { listen: true, port: 0, host: '127.0.0.1' }, plugins: { data: { maxJoins: 8, queryTimeoutMs: BUDGET_MS } } } });
});
