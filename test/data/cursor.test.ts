import t from 'tap';
import type { Test } from 'tap';
import { isCodedError } from '../../kernel/errors.ts';
import { executeQuery } from '../../plugins/data/query/executeQuery.ts';
import { parseQuery } from '../../plugins/data/query/parseQuery.ts';
import { recordToRow } from '../../plugins/data/sql/codec.ts';
import { newId } from '../../plugins/data/sql/newId.ts';
import type { Database } from '../../plugins/data/sql/openDatabase.ts';
import { databaseCases } from '../harness/databases.ts';
import { contact, registry } from '../harness/fixtures.ts';
import { seed } from './seed.ts';

const cursorKey = 'cursor-test-key';

/** Deterministic pseudo-random numbers, so a failure replays. */
function random(seedValue: number): () => number {
  let state = seedValue;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

async function insertContacts(db: Database, count: number, next: () => number, tag: string): Promise<string[]> {
  const rows = Array.from({ length: count }, (_, i) => {
    const r = next();
    const at = new Date(Date.UTC(2026, 1, 1) + Math.floor(next() * 1e9)).toISOString();
    return {
      id: newId(),
      name: `${tag}-${i}-${Math.floor(r * 1000)}`,
      // A quarter of the rows have no score: nulls must page like any value.
      score: r < 0.25 ? null : Math.floor(r * 20) / 2,
      priority: Math.floor(next() * 4),
      last_seen: at,
      version: 1,
      created_at: at,
      updated_at: at,
      owner_id: 'u1',
    };
  });
  await db.knex('contact').insert(rows.map((r) => recordToRow(contact, r, db.dialect)));
  return rows.map((r) => r.id);
}

async function walk(db: Database, query: Record<string, unknown>, between: () => Promise<void>): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 200; page++) {
    const result = await executeQuery(parseQuery(cursor ? { ...query, cursor } : query, contact, registry), db.knex, { cursorKey, total: false });
    seen.push(...result.items.map((i) => String(i.id)));
    cursor = result.nextCursor;
    if (!cursor) break;
    await between();
  }
  return seen;
}

function rejects(t: Test, run: () => Promise<unknown>, reason: RegExp, name: string): Promise<void> {
  return run().then(
    () => void t.fail(`${name}: expected BAD_CURSOR`),
    (error: unknown) => {
      t.ok(isCodedError(error) && error.code === 'BAD_CURSOR', `${name}: BAD_CURSOR`);
      t.match(isCodedError(error) ? String(error.details.reason) : String(error), reason, `${name}: reason`);
    },
  );
}

for (const dbCase of await databaseCases()) {
  t.test(dbCase.name, { skip: dbCase.skip }, async (t) => {
    const db = await dbCase.open(t);
    await seed(db);
    const next = random(42);
    await insertContacts(db, 40, next, 'base');
    const existing = (await db.knex('contact').pluck('id')) as string[];

    const orders: Array<Record<string, unknown>> = [
      { orderBy: '-score', limit: 7 },
      { orderBy: 'score,-priority', limit: 5 },
      { orderBy: '-last_seen', limit: 6 },
      { orderBy: 'name', limit: 9 },
      { limit: 8 },
      { where: { priority: { $ne: 0 } }, orderBy: '-priority,score', limit: 4 },
    ];
    for (const [i, query] of orders.entries()) {
      t.test(`walk ${JSON.stringify(query)} while rows are inserted`, async (t) => {
        const wanted = query.where
          ? ((await db.knex('contact').where((qb) => qb.whereNot('priority', 0).orWhereNull('priority')).pluck('id')) as string[])
          : existing;
        const seen = await walk(db, query, async () => {
          await insertContacts(db, 3, next, `walk${i}`);
        });
        const counts = new Map<string, number>();
        for (const id of seen) counts.set(id, (counts.get(id) ?? 0) + 1);
        t.same([...counts].filter(([, n]) => n > 1), [], 'no row is returned twice');
        t.same(wanted.filter((id) => counts.get(id) !== 1), [], 'every row that existed at the start is returned exactly once');
      });
    }

    t.test('a walk returns the rows in the order of one sorted read, NULLs where they sort', async (t) => {
      const everything = { ...contact, maxPageSize: 1000 };
      const all = new Map([...registry, ['contact', everything]]);
      for (const orderBy of ['-score', 'score', '-score,-priority', '-priority,score', '-last_seen']) {
        const walked = await walk(db, { orderBy, limit: 25 }, async () => undefined);
        const whole = await executeQuery(parseQuery({ orderBy, limit: 1000 }, everything, all), db.knex, { cursorKey, total: false });
        t.same(walked, whole.items.map((i) => String(i.id)), `${orderBy}: the pages in a row are the sorted read`);
      }
    });

    t.test('cursor is tamper-evident and bound to its query', async (t) => {
      const query = { orderBy: '-score', limit: 2 };
      const first = await executeQuery(parseQuery(query, contact, registry), db.knex, { cursorKey });
      const cursor = first.nextCursor!;
      t.type(cursor, 'string');
      const run = (q: Record<string, unknown>, key = cursorKey) => executeQuery(parseQuery(q, contact, registry), db.knex, { cursorKey: key });
      const [body, signature] = cursor.split('.') as [string, string];
      const payload = JSON.parse(Buffer.from(body, 'base64url').toString()) as { k: unknown[] };
      payload.k = [0];
      const forged = `${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${signature}`;
      await rejects(t, () => run({ ...query, cursor: forged }), /signature/, 'edited values');
      await rejects(t, () => run({ ...query, cursor: `${body}.${signature.slice(0, -2)}AA` }), /signature/, 'edited signature');
      await rejects(t, () => run({ ...query, cursor }, 'another-key'), /signature/, 'another key');
      await rejects(t, () => run({ ...query, cursor: 'not-a-cursor' }), /malformed/, 'garbage');
      await rejects(t, () => run({ orderBy: 'score', limit: 2, cursor }), /different query/, 'another order');
      await rejects(t, () => run({ ...query, where: { priority: 1 }, cursor }), /different query/, 'another where');
      const ok = await run({ ...query, limit: 3, cursor });
      t.equal(ok.items.length, 3, 'a new limit keeps the cursor valid');
    });

    t.test('a now-relative query keeps its cursor as time moves', async (t) => {
      const query = { where: { last_seen: { $lt: { $cel: 'now()' } } }, orderBy: 'last_seen', limit: 3 };
      const first = await executeQuery(parseQuery(query, contact, registry, { cel: { now: new Date('2026-06-01T00:00:00Z') } }), db.knex, { cursorKey });
      const second = await executeQuery(parseQuery({ ...query, cursor: first.nextCursor }, contact, registry, { cel: { now: new Date('2026-06-01T00:00:05Z') } }), db.knex, { cursorKey });
      t.equal(second.items.length, 3);
      t.notOk(second.items.some((i) => first.items.some((f) => f.id === i.id)), 'pages do not overlap');
    });
  });
}
