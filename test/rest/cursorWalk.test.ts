/** Cursor pagination through HTTP: a walk over a table receiving inserts returns every row once; cursors are tamper-evident. */
import t from 'tap';
import { onEachDriver, type Rest } from './restFixtures.ts';

const SEED = 120;
const PAGE = 25;
const PRIORITIES = ['low', 'normal', 'high'] as const;

/** Deterministic values: ties on priority, a third of the due dates null, so the id tiebreaker and nulls both matter. */
function task(i: number, tag: string) {
  return {
    subject: `${tag} ${i}`,
    priority: PRIORITIES[(i * 7) % 3]!,
    status: i % 4 === 0 ? 'in_progress' : 'open',
    ...(i % 3 === 0 ? {} : { due_date: `2026-0${1 + (i % 9)}-${String(1 + (i % 27)).padStart(2, '0')}` }),
  };
}

async function seed(rest: Rest, count: number, tag: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 10) {
    const batch = await Promise.all(Array.from({ length: Math.min(10, count - i) }, (_, k) => rest.create('task', task(i + k, tag))));
    ids.push(...batch.map((r) => String(r.id)));
  }
  return ids;
}

const WHERE = { status: { $in: ['open', 'in_progress'] } };

/** Two ways to page: the list's query string and the structured query; `page(cursor)` returns the HTTP reply. */
const walks: Array<{ name: string; sortKey: string; page: (rest: Rest, cursor: string | null) => ReturnType<Rest['send']> }> = [
  {
    name: 'GET list, orderBy -priority,due_date',
    sortKey: 'priority',
    page: (rest, cursor) => rest.send('GET', `/api/v1/data/task?${new URLSearchParams({
      where: JSON.stringify(WHERE), orderBy: '-priority,due_date', limit: String(PAGE), ...(cursor ? { cursor } : {}),
    }).toString()}`),
  },
  {
    name: 'POST query, orderBy due_date desc then subject',
    sortKey: 'due_date',
    page: (rest, cursor) => rest.send('POST', '/api/v1/data/task/query', {
      where: WHERE, orderBy: [{ field: 'due_date', order: 'desc' }, { field: 'subject' }], limit: PAGE, ...(cursor ? { cursor } : {}),
    }),
  },
];

await onEachDriver(t, 'rest-cursor', async (t, rest) => {
  const original = await seed(rest, SEED, 'seed');
  t.equal(original.length, SEED, `${SEED} records seeded`);
  let inserted = 0;
  const added: string[] = [];

  for (const walk of walks) {
    await t.test(`${walk.name}: every original row exactly once while 5 rows arrive between pages`, async (t) => {
      const seen: Array<Record<string, unknown>> = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const res = await walk.page(rest, cursor);
        t.equal(res.status, 200, `page ${pages + 1}: 200`);
        t.ok(res.body.items.length <= PAGE, 'at most a page of rows');
        t.type(res.body.total, 'number', 'total is given');
        seen.push(...(res.body.items as Array<Record<string, unknown>>));
        cursor = res.body.nextCursor as string | null;
        pages++;
        if (cursor) added.push(...(await seed(rest, 5, `new-${inserted++}`)));
      } while (cursor && pages < 40);
      t.equal(cursor, null, 'the walk ends with nextCursor null');

      const ids = seen.map((r) => String(r.id));
      t.equal(new Set(ids).size, ids.length, 'no row returned twice');
      const counts = new Map<string, number>();
      for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
      t.same(original.filter((id) => counts.get(id) !== 1), [], 'every original row returned exactly once');
      t.ok(ids.every((id) => original.includes(id) || added.includes(id)), 'nothing but seeded and inserted rows returned');
      t.ok(pages >= Math.ceil(SEED / PAGE), `at least ${Math.ceil(SEED / PAGE)} pages (${pages})`);
      if (walk.sortKey === 'priority') {
        // Descending priority as text: normal, low, high. The walk never goes back up.
        const rank = seen.map((r) => ['normal', 'low', 'high'].indexOf(String(r.priority)));
        t.ok(rank.every((v, i) => i === 0 || v >= rank[i - 1]!), 'rows come in sort order across pages');
      } else {
        const dated = seen.filter((r) => r.due_date !== null).map((r) => String(r.due_date));
        const dates = seen.map((r) => r.due_date);
        const firstNull = dates.indexOf(null);
        t.ok(firstNull === -1 || dates.slice(firstNull).every((d) => d === null) || dates.slice(0, firstNull).every((d) => d === null),
          'null dates come together, at one end');
        t.same(dated, [...dated].sort().reverse(), 'dates descend across pages');
      }
    });
  }

  await t.test('a cursor is valid only for its own query, untouched', async (t) => {
    const first = await walks[0]!.page(rest, null);
    const cursor = String(first.body.nextCursor);
    t.match(cursor, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/, 'opaque token: payload.signature');
    const [payload, signature] = cursor.split('.') as [string, string];
    const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { id: string };
    const forged = Buffer.from(JSON.stringify({ ...decoded, id: original[0] })).toString('base64url');
    const flipped = signature.slice(0, -2) + (signature.endsWith('AA') ? 'BB' : 'AA');
    const list = (params: Record<string, string>) => rest.send('GET', `/api/v1/data/task?${new URLSearchParams(params).toString()}`);
    const base = { where: JSON.stringify(WHERE), orderBy: '-priority,due_date', limit: String(PAGE) };

    const cases: Array<[string, () => ReturnType<Rest['send']>, string]> = [
      ['signature altered', () => list({ ...base, cursor: `${payload}.${flipped}` }), 'its signature does not match'],
      ['payload altered, signature kept', () => list({ ...base, cursor: `${forged}.${signature}` }), 'its signature does not match'],
      ['not a cursor at all', () => list({ ...base, cursor: "1' or '1'='1" }), 'it is malformed'],
      ['another where', () => list({ ...base, where: JSON.stringify({ status: 'open' }), cursor }), 'it was issued for a different query'],
      ['another orderBy', () => list({ ...base, orderBy: 'due_date', cursor }), 'it was issued for a different query'],
      ['another object', () => rest.send('GET', `/api/v1/data/account?cursor=${cursor}`), 'it was issued for a different query'],
      ['the structured query with another where', () => rest.send('POST', '/api/v1/data/task/query', {
        where: { status: 'done' }, orderBy: '-priority,due_date', limit: PAGE, cursor,
      }), 'it was issued for a different query'],
    ];
    for (const [name, run, reason] of cases) {
      const res = await run();
      t.equal(res.status, 400, `${name}: 400`);
      t.equal(res.body.error?.code, 'BAD_CURSOR', `${name}: BAD_CURSOR`);
      t.match(res.body.error?.message, reason, `${name}: says why`);
      t.match(res.body.error?.message, 'Start again without a cursor', `${name}: says what to do`);
    }

    const again = await list({ ...base, cursor });
    t.equal(again.status, 200, 'the untouched cursor still works');
    t.same(again.body.items.map((r: { id: string }) => r.id).includes(first.body.items[0].id), false, 'and continues after the first page');

    const both = await list({ ...base, cursor, offset: '5' });
    t.equal(both.status, 400, 'cursor and offset together: 400');
    t.match(both.body.error.details.errors, [{ path: 'cursor', message: 'send cursor or offset, not both' }], 'names the conflict');
  });
});
