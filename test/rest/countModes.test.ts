/** ?count=exact|estimated|none on lists and queries, on v1 (default exact) and v2 (default none). */
import { randomUUID } from 'node:crypto';
import t from 'tap';
import type { Test } from 'tap';
import { onEachDriver, type Rest } from './restFixtures.ts';

const MANY = 10_050;

/** `n` copies of a created task with other ids and subjects, inserted in batches below the engine. */
async function seed(rest: Rest, n: number, subject: string): Promise<void> {
  const first = await rest.create('task', { subject });
  const environmentId = rest.environments[0]!;
  await rest.database().withDatabase(environmentId, async ({ knex }) => {
    const row = (await knex('task').where({ id: first.id }).first()) as Record<string, unknown>;
    const rows = Array.from({ length: n - 1 }, () => ({ ...row, id: randomUUID() }));
    for (let i = 0; i < rows.length; i += 500) await knex('task').insert(rows.slice(i, i + 500));
    if (rest.driver === 'postgres') await knex.raw('analyze task');
  });
}

const where = (subject: string) => encodeURIComponent(JSON.stringify({ subject }));

t.test('count modes', (t) => onEachDriver(t, 'count-modes', async (t: Test, rest) => {
  await seed(rest, MANY, 'bulk');
  await seed(rest, 3, 'few');

  const exact = await rest.send('GET', `/api/v1/data/task?where=${where('bulk')}&limit=2`);
  t.equal(exact.status, 200);
  t.equal(exact.body.total, MANY, 'v1 counts exactly by default');
  t.notOk('totalEstimated' in exact.body);
  t.equal((await rest.send('GET', `/api/v1/data/task?where=${where('bulk')}&limit=2&count=exact`)).body.total, MANY, 'count=exact says so');

  const none = await rest.send('GET', `/api/v1/data/task?where=${where('bulk')}&limit=2&count=none`);
  t.equal(none.status, 200);
  t.notOk('total' in none.body, 'count=none: no total');
  t.equal(none.body.items.length, 2, 'the page still comes');
  t.type(none.body.nextCursor, 'string');

  const few = await rest.send('GET', `/api/v1/data/task?where=${where('few')}&count=estimated`);
  t.equal(few.body.total, 3, 'few matches: estimated is exact');
  t.notOk('totalEstimated' in few.body, 'and not flagged');

  const many = await rest.send('GET', `/api/v1/data/task?where=${where('bulk')}&limit=2&count=estimated`);
  t.equal(many.status, 200);
  t.equal(many.body.totalEstimated, true, 'many matches: flagged as an estimate');
  t.equal(many.body.items.length, 2);
  if (rest.driver === 'postgres') t.ok(many.body.total >= 10_000 && many.body.total < MANY * 2, `the planner's estimate (${many.body.total})`);
  else t.equal(many.body.total, 10_000, 'SQLite: at least 10,000');

  const query = await rest.send('POST', '/api/v1/data/task/query?count=estimated', { where: { subject: 'few' } });
  t.equal(query.body.total, 3, 'the structured query takes count too');
  const queryNone = await rest.send('POST', '/api/v1/data/task/query?count=none', { where: { subject: 'few' } });
  t.notOk('total' in queryNone.body);

  const v2 = await rest.send('GET', `/api/v2/data/task?where=${where('few')}`);
  t.notOk('total' in v2.body, 'v2 counts nothing by default');
  t.equal((await rest.send('GET', `/api/v2/data/task?where=${where('few')}&count=exact`)).body.total, 3, 'v2 count=exact');
  t.equal((await rest.send('GET', `/api/v2/data/task?where=${where('few')}&count=true`)).body.total, 3, 'v2 count=true as before');

  const bad = await rest.send('GET', '/api/v1/data/task?count=maybe');
  t.equal(bad.status, 400);
  t.equal(bad.body.error.code, 'VALIDATION_ERROR');
  t.match(bad.body.error.message, /exact, estimated, none/);
}));
