/**
 * Totals remembered until the next write (countCache.ts), with two runtimes on one database: on
 * PostgreSQL a write committed by one process reaches the other's remembered totals through the
 * write signal (a NOTIFY sent with its commit, writeSignal.ts; the mechanism is tested red in
 * writeSignal.test.ts). With `countCache: 'off'` a row inserted by SQL outside the runtime is counted.
 */
import t from 'tap';
import { bearer, eachBackend, signIn } from '../auth/authHarness.ts';
import { untilRemembered } from '../harness/rememberedReads.ts';
import type { TestRuntime } from '../harness/startTestRuntime.ts';
import { READS_ONLY, type DataDatabase } from '../../capabilities/dataDatabase.ts';

const APP = { apps: ['test/data/fixtures/nested-app'] };

async function total(rt: TestRuntime, token: string): Promise<number> {
  const res = await rt.inject({ method: 'GET', url: '/api/v1/data/tag?limit=1', headers: bearer(token) });
  return res.json().total as number;
}

async function eventually(read: () => Promise<number>, expected: number): Promise<number> {
  let seen = await read();
  for (let i = 0; i < 100 && seen !== expected; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    seen = await read();
  }
  return seen;
}

t.test('totals remembered across processes', async (t) => {
  await eachBackend(t, ['countsignal'], async (t, site) => {
    const a = await site.boot({ config: APP });
    t.teardown(() => a.close());
    const b = await site.boot({ config: APP });
    t.teardown(() => b.close());
    const tokenA = (await signIn(a)).token;
    const tokenB = (await signIn(b)).token;
    const environment = site.ids[0]!;
    const create = async (rt: TestRuntime, token: string, code: string) =>
      (await rt.inject({ method: 'POST', url: '/api/v1/data/tag', headers: bearer(token), payload: { code } })).statusCode;

    t.equal(await create(a, tokenA, 'one'), 201, 'a record through runtime A');
    t.equal(await eventually(() => total(a, tokenA), 1), 1, 'A counts one');
    // A remembers the total: a read right after a read runs no count (retried: background work
    // through data.database, such as the job queue's polls, also makes the totals forgotten).
    const database = a.runtime.kernel.service<DataDatabase>('data.database')!;
    const counted: string[] = [];
    await database.withDatabase(environment, async ({ knex }) => {
      knex.on('query', (q: { sql: string }) => {
        if (/count\(\*\)/i.test(q.sql)) counted.push(q.sql);
      });
    });
    t.ok(await untilRemembered(() => total(a, tokenA), counted), 'A answers a repeated total without counting');
    t.equal(await create(a, tokenA, 'two'), 201, 'a write through A itself');
    t.equal(await total(a, tokenA), 2, 'forgets A\'s totals at once');
    // SQLite: an environment's file belongs to one runtime process (docs/data-api.md, Totals).
    if (site.backend !== 'postgres') return;
    t.equal(await total(b, tokenB), 2, 'B counts the same');
    const statementsB: string[] = [];
    await b.runtime.kernel.service<DataDatabase>('data.database')!.withDatabase(environment, async ({ knex }) => {
      knex.on('query', (q: { sql: string }) => statementsB.push(q.sql));
    });
    t.equal(await create(b, tokenB, 'three'), 201, 'a write through runtime B');
    // A create that is its own statement (writeAlone.ts) is told once it committed (writeNotifier.ts).
    t.ok(statementsB.some((sql) => sql === 'select pg_notify($1, $2)'), 'which tells the other processes once it committed');
    t.equal(await eventually(() => total(a, tokenA), 3), 3, 'reaches the totals A remembered');
    const deleted = await b.inject({ method: 'DELETE', url: `/api/v1/data/tag/${String((await b.inject({ method: 'GET', url: '/api/v1/data/tag?where={"code":"one"}', headers: bearer(tokenB) })).json().items[0].id)}`, headers: bearer(tokenB) });
    t.equal(deleted.statusCode, 204, 'B deletes a record');
    t.ok(statementsB.some((sql) => sql === 'COMMIT;'), 'in a transaction');
    t.equal(await eventually(() => total(a, tokenA), 2), 2, 'and A hears the delete');
  });
});

t.test('work that only reads (READS_ONLY) keeps every total, and tells no other process', async (t) => {
  await eachBackend(t, ['countreads'], async (t, site) => {
    const a = await site.boot({ config: APP });
    t.teardown(() => a.close());
    const token = (await signIn(a)).token;
    const environment = site.ids[0]!;
    t.equal((await a.inject({ method: 'POST', url: '/api/v1/data/tag', headers: bearer(token), payload: { code: 'one' } })).statusCode, 201, 'a record');
    const database = a.runtime.kernel.service<DataDatabase>('data.database')!;
    const statements: string[] = [];
    // Registering the listener writes nothing: with READS_ONLY it sends no signal either, which
    // would come back to this process after the call and make it forget its totals.
    await database.withDatabase(environment, async ({ knex }) => {
      knex.on('query', (q: { sql: string }) => statements.push(q.sql));
    }, undefined, READS_ONLY);
    // The create's own signal comes back to this process too, shortly after its answer.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const counts = () => statements.filter((sql) => /count\(\*\)/i.test(sql)).length;
    // Remembered once no background work (the job queue's polls) came between two reads.
    const counted: string[] = [];
    t.ok(await untilRemembered(async () => {
      const read = await total(a, token);
      counted.splice(0, counted.length, ...statements.filter((sql) => /count\(\*\)/i.test(sql)));
      statements.length = 0;
      return read;
    }, counted), 'remembered');
    t.equal(await total(a, token), 1, 'the total');
    // Background work (a job poll, a late echo of the create's signal) may still make one round
    // count again; work that does not honour READS_ONLY makes every round count.
    let outcome: number[] = [];
    for (let round = 0; round < 3; round++) {
      await untilRemembered(() => total(a, token), []);
      statements.length = 0;
      const read = await database.withDatabase(environment, async ({ knex }) => (await knex('tag').select('code')).length, undefined, READS_ONLY);
      if (round === 0) t.equal(read, 1, 'the work reads');
      t.equal(await total(a, token), 1, 'the same total');
      outcome = [counts(), statements.filter((sql) => /notify/i.test(sql)).length];
      if (outcome[0] === 0 && outcome[1] === 0) break;
    }
    t.same(outcome, [0, 0], 'answered without counting, and no NOTIFY sent');
    statements.length = 0;
    await database.withDatabase(environment, async ({ knex }) => (await knex('tag').select('code')).length);
    await total(a, token);
    t.equal(counts(), 1, 'work that names no tables makes it count again');
    if (site.backend === 'postgres') t.equal(statements.filter((sql) => sql === 'select pg_notify($1, $2)').length, 1, 'and tells the other processes');
  });
});

t.test('countCache off counts every time', async (t) => {
  await eachBackend(t, ['countoff'], async (t, site) => {
    const a = await site.boot({ config: { ...APP, plugins: { email: { enabled: false }, data: { countCache: 'off' } } } });
    t.teardown(() => a.close());
    const token = (await signIn(a)).token;
    t.equal(await total(a, token), 0, 'nothing yet');
    await site.query(site.ids[0]!, "insert into tag (id, version, created_at, updated_at, code) values ('outside-1', 1, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', 'outside')");
    t.equal(await total(a, token), 1, 'a row written outside the runtime is counted');
  });
});
