/** ?count=capped|exact|estimated|none on lists and queries, on v1 (default capped) and v2 (default none). */
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

  const capped = await rest.send('GET', `/api/v1/data/task?where=${where('bulk')}&limit=2`);
  t.equal(capped.status, 200);
  t.equal(capped.body.total, 10_000, 'v1 counts up to the cap by default');
  t.equal(capped.body.totalCapped, true, 'and says more match');
  t.notOk('totalEstimated' in capped.body);
  t.equal(capped.body.items.length, 2, 'the page comes whole');
  const next = await rest.send('GET', `/api/v1/data/task?where=${where('bulk')}&limit=2&cursor=${encodeURIComponent(capped.body.nextCursor)}`);
  t.same([next.body.total, next.body.totalCapped], [10_000, true], 'the next page of the walk is capped too (PostgreSQL: carried in the cursor)');
  const again = await rest.send('GET', `/api/v1/data/task?where=${where('bulk')}&limit=2&count=capped`);
  t.same([again.body.total, again.body.totalCapped], [10_000, true], 'count=capped is the default said');
  const exact = await rest.send('GET', `/api/v1/data/task?where=${where('bulk')}&limit=2&count=exact`);
  t.equal(exact.body.total, MANY, 'count=exact counts every match');
  t.notOk('totalCapped' in exact.body, 'and is not flagged');
  const fewCapped = await rest.send('GET', `/api/v1/data/task?where=${where('few')}`);
  t.equal(fewCapped.body.total, 3, 'few matches: the default is exact');
  t.notOk('totalCapped' in fewCapped.body, 'and not flagged');
  await rest.create('task', { subject: 'few' });
  t.equal((await rest.send('GET', `/api/v1/data/task?where=${where('few')}`)).body.total, 4, 'a write is counted at once (nothing stale remembered)');
  const walked: string[] = [];
  let cursor: string | null = null;
  do {
    const step: { body: { items: Array<{ id: string }>; total: number; nextCursor: string | null } } = await rest.send('GET', `/api/v1/data/task?where=${where('few')}&limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    t.equal(step.body.total, 4, 'each page of a cursor walk counts (capped)');
    walked.push(...step.body.items.map((item) => item.id));
    cursor = step.body.nextCursor;
  } while (cursor);
  t.equal(new Set(walked).size, 4, 'the walk reaches every row once');
  const groups = await rest.send('POST', '/api/v1/data/task/query', { groupBy: ['subject'], aggregations: [{ function: 'count', alias: 'n' }], limit: 1, orderBy: [{ field: 'subject', order: 'asc' }] });
  t.equal(groups.status, 200);
  t.equal(groups.body.total, 2, 'groups are counted exactly (capped or not)');
  const queried = await rest.send('POST', '/api/v1/data/task/query', { where: { subject: 'bulk' }, limit: 1 });
  t.same([queried.body.total, queried.body.totalCapped], [10_000, true], 'the structured query is capped by default too');

  const none = await rest.send('GET', `/api/v1/data/task?where=${where('bulk')}&limit=2&count=none`);
  t.equal(none.status, 200);
  t.notOk('total' in none.body, 'count=none: no total');
  t.equal(none.body.items.length, 2, 'the page still comes');
  t.type(none.body.nextCursor, 'string');

  const few = await rest.send('GET', `/api/v1/data/task?where=${where('few')}&count=estimated`);
  t.equal(few.body.total, 4, 'few matches: estimated is exact');
  t.notOk('totalEstimated' in few.body, 'and not flagged');

  const many = await rest.send('GET', `/api/v1/data/task?where=${where('bulk')}&limit=2&count=estimated`);
  t.equal(many.status, 200);
  t.equal(many.body.totalEstimated, true, 'many matches: flagged as an estimate');
  t.equal(many.body.items.length, 2);
  if (rest.driver === 'postgres') t.ok(many.body.total >= 10_000 && many.body.total < MANY * 2, `the planner's estimate (${many.body.total})`);
  else t.equal(many.body.total, 10_000, 'SQLite: at least 10,000');

  const query = await rest.send('POST', '/api/v1/data/task/query?count=estimated', { where: { subject: 'few' } });
  t.equal(query.body.total, 4, 'the structured query takes count too');
  const queryNone = await rest.send('POST', '/api/v1/data/task/query?count=none', { where: { subject: 'few' } });
  t.notOk('total' in queryNone.body);

  const v2 = await rest.send('GET', `/api/v2/data/task?where=${where('few')}`);
  t.notOk('total' in v2.body, 'v2 counts nothing by default');
  t.equal((await rest.send('GET', `/api/v2/data/task?where=${where('few')}&count=exact`)).body.total, 4, 'v2 count=exact');
  t.equal((await rest.send('GET', `/api/v2/data/task?where=${where('few')}&count=true`)).body.total, 4, 'v2 count=true as before');
  const v2capped = await rest.send('GET', `/api/v2/data/task?where=${where('bulk')}&limit=1&count=capped`);
  t.same([v2capped.body.total, v2capped.body.totalCapped], [10_000, true], 'v2 count=capped');

  const bad = await rest.send('GET', '/api/v1/data/task?count=maybe');
  t.equal(bad.status, 400);
  t.equal(bad.body.error.code, 'VALIDATION_ERROR');
  t.match(bad.body.error.message, /capped, exact, estimated, none/);
}));
