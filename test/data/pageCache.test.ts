/**
 * First pages of planned list queries remembered until the next write (countCache.ts,
 * `plugins.data.pageCacheMb`): the cache itself, then pages through the engine that stay exact
 * through writes, rollbacks, open transactions and, on PostgreSQL, another process's writes.
 */
import t, { type Test } from 'tap';
import type { DataContext, DataEngine } from '../../capabilities/dataEngine.ts';
import { createCountCache, RECORDS_SHARE, rememberedBytes, TEXTS_KEPT } from '../../plugins/data/query/countCache.ts';
import { bearer, eachBackend, signIn, type Site } from '../auth/authHarness.ts';
import { openTransaction, tableReads, untilRemembered } from '../harness/rememberedReads.ts';
import type { TestRuntime } from '../harness/startTestRuntime.ts';

const page = (n: number, text = 'x') => Array.from({ length: n }, (_, i) => ({ id: `r${i}`, title: text }));
const DOC = 'select * from "doc" order by "id" asc limit ?\u0000[51]';
const FOLDER = 'select * from `folder` where `owner` = ?\u0000["u1"]';
const BY_ID = 'select "id", "title" from "doc" where "id" = $1 limit $2';

t.test('a page is kept until a write to a table its statement reads', async (t) => {
  const cache = createCountCache();
  const reader = cache.reader('a');
  reader.keepPage(DOC, page(3));
  reader.keepPage(FOLDER, page(2));
  t.same(cache.reader('a').page(DOC)?.map((r) => r.id), ['r0', 'r1', 'r2'], 'a later read finds the rows');
  t.equal(cache.reader('b').page(DOC), undefined, 'environments do not share pages');
  cache.changed('a', ['folder']);
  t.equal(cache.reader('a').page(FOLDER), undefined, 'a write to the table it reads forgets it');
  t.equal(cache.reader('a').page(DOC)?.length, 3, 'a page of another table is kept');
  cache.changed('a', ['do']);
  t.equal(cache.reader('a').page(DOC)?.length, 3, 'a table whose name is a prefix of it does not forget it');
  const during = cache.reader('a');
  cache.changed('a', ['doc']);
  t.equal(during.page(DOC), undefined, 'forgotten for a read that began before the write');
  during.keepPage(DOC, page(1));
  t.equal(cache.reader('a').page(DOC), undefined, 'a page read across a write is not kept');
  cache.reader('a').keepPage(DOC, page(1));
  cache.changed('a');
  t.equal(cache.reader('a').page(DOC), undefined, 'a write naming no table forgets every page');
});

t.test('a kept page cannot be changed by its readers', async (t) => {
  const cache = createCountCache();
  cache.reader('a').keepPage(DOC, page(2));
  const rows = cache.reader('a').page(DOC)!;
  t.throws(() => {
    (rows[0] as Record<string, unknown>).title = 'changed';
  }, TypeError, 'a row is frozen');
  t.throws(() => (rows as Array<Record<string, unknown>>).push({ id: 'more' }), TypeError, 'and the page');
  t.equal(cache.reader('a').page(DOC)?.[0]?.title, 'x', 'the next reader gets the rows as read');
});

t.test('pages stay within the byte budget, least recently used out first', async (t) => {
  // The budget holds eight pages of 10 rows, the most it may (one page is at most an eighth of it).
  const key = (i: number) => `select * from "t${String(i).padStart(2, '0')}"\u0000[]`;
  const size = rememberedBytes(key(1), page(10, 'y'.repeat(100)));
  t.ok(size > 3000 && size < 4000, 'a page is measured by its strings and values');
  const cache = createCountCache(1000, 8 * size);
  const kept = (env: string, i: number) => cache.reader(env).page(key(i)) !== undefined;
  const eight = [0, 1, 2, 3, 4, 5, 6, 7];
  for (const i of eight) cache.reader('a').keepPage(key(i), page(10, 'y'.repeat(100)));
  t.same(eight.map((i) => kept('a', i)), eight.map(() => true), 'eight pages fit');
  cache.reader('a').page(key(0));
  cache.reader('b').keepPage(key(8), page(10, 'y'.repeat(100)));
  t.same(eight.map((i) => kept('a', i)), [true, false, true, true, true, true, true, true], 'a ninth (of another environment) drops the least recently used');
  t.ok(kept('b', 8), 'and is kept');
  cache.reader('a').keepPage(key(9), page(1, 'z'.repeat(2000)));
  t.notOk(kept('a', 9), 'a page over an eighth of the budget is not kept');
  cache.changed('a');
  for (let i = 10; i < 17; i++) cache.reader('a').keepPage(key(i), page(10, 'y'.repeat(100)));
  t.same([kept('b', 8), ...[10, 11, 12, 13, 14, 15, 16].map((i) => kept('a', i))], [true, true, true, true, true, true, true, true], 'a full forget gives its bytes back');
  const small = createCountCache(1000, 8 * rememberedBytes(key(1), []));
  const long = `select * from "t" where ${'"a" = 1 and '.repeat(50)}"b" = 1\u0000[]`;
  small.reader('a').keepPage(long, []);
  t.equal(small.reader('a').page(long), undefined, 'an empty page of a long statement is measured by its key');
  for (let i = 0; i < 20; i++) small.reader('a').keepPage(key(i), []);
  t.equal([...Array(20).keys()].filter((i) => small.reader('a').page(key(i)) !== undefined).length, 8, 'so many empty pages stay within the budget');
  const none = createCountCache(1000, 0);
  none.reader('a').keepPage(DOC, page(1));
  t.equal(none.reader('a').page(DOC), undefined, 'a budget of 0 keeps nothing');
});

t.test('records read by id are kept within a budget of their own', async (t) => {
  const cache = createCountCache(1000, 0);
  const record = (i: number) => cache.reader('a').recordKey(BY_ID, [`r${i}`]);
  // A record is one entry in the index (its text's set of records).
  const size = rememberedBytes(record(10), page(1), 1);
  // Room for 32 pages of one row; the records get half of it: 16 of them.
  const sized = createCountCache(1000, 32 * size + 100);
  const key = (i: number) => sized.reader('a').recordKey(BY_ID, [`r${i}`]);
  t.equal(RECORDS_SHARE, 2, 'a half');
  sized.reader('a').keepPage(DOC, page(1));
  for (let i = 10; i < 110; i++) sized.reader('a').keepPage(key(i), page(1), true);
  t.equal(sized.reader('a').page(DOC)?.length, 1, 'a hundred records read once each do not push a page out');
  const kept = Array.from({ length: 100 }, (_, i) => sized.reader('a').page(key(i + 10), true) !== undefined);
  t.same([kept.filter(Boolean).length, kept.slice(84).every(Boolean)], [16, true], 'the records keep the sixteen most recent');
  t.equal(sized.reader('a').page(key(109)), undefined, 'a record is not a page');
  sized.changed('a', ['doc']);
  t.same([sized.reader('a').page(key(109), true), sized.reader('a').page(DOC)], [undefined, undefined], 'a write to the table forgets both');
  cache.reader('a').keepPage(record(1), page(1), true);
  t.equal(cache.reader('a').page(record(1), true), undefined, 'a budget of 0 keeps no record either');
});

t.test("a record's key names its SQL text by number, the text held once for all its ids", async (t) => {
  const cache = createCountCache();
  const reader = cache.reader('a');
  const key = reader.recordKey(BY_ID, ['r1']);
  t.ok(key.length < 20 && !key.includes('select'), `the key holds no SQL (${JSON.stringify(key)})`);
  t.equal(reader.recordKey(BY_ID, ['r1']), key, 'the same read, the same key');
  t.not(reader.recordKey(BY_ID, ['r2']), key, 'another id, another key');
  t.not(reader.recordKey(BY_ID.replace('"title"', '"body"'), ['r1']), key, 'another text, another key');
  t.ok(rememberedBytes(key, page(1), 1) < rememberedBytes(`${BY_ID}\u0000["r1"]`, page(1)) - BY_ID.length, 'a record costs its rows, not its text');
  reader.keepPage(reader.recordKey(BY_ID, ['folder']), page(1), true);
  cache.changed('a', ['folder']);
  t.equal(cache.reader('a').page(reader.recordKey(BY_ID, ['folder']), true)?.length, 1, 'a binding that spells a table name is not a table');
  cache.changed('a', ['doc']);
  t.equal(cache.reader('a').page(reader.recordKey(BY_ID, ['folder']), true), undefined, 'the table its text reads is');

  const FOLDER_BY_ID = 'select "id" from "folder" where "id" = $1';
  const ids = Array.from({ length: 50 }, (_, i) => `r${i}`);
  for (const id of ids) {
    cache.reader('a').keepPage(reader.recordKey(BY_ID, [id]), page(1), true);
    cache.reader('a').keepPage(reader.recordKey(FOLDER_BY_ID, [id]), page(1), true);
  }
  const found = (sql: string) => ids.filter((id) => cache.reader('a').page(reader.recordKey(sql, [id]), true) !== undefined).length;
  t.same([found(BY_ID), found(FOLDER_BY_ID)], [50, 50], 'fifty records of each of two texts');
  cache.changed('a', ['folder']);
  t.same([found(BY_ID), found(FOLDER_BY_ID)], [50, 0], 'a write forgets every record its table was read by, and no other');
  cache.changed('a', ['doc']);
  t.same([found(BY_ID), found(FOLDER_BY_ID)], [0, 0], 'then the other table');
  cache.reader('a').keepPage(reader.recordKey(FOLDER_BY_ID, ['r1']), page(1), true);
  cache.changed('a', ['folder']);
  t.equal(found(FOLDER_BY_ID), 0, 'a text read again after its records went is indexed again');

  // Texts past TEXTS_KEPT are numbered anew; the records kept under an old number still go with a write.
  const old = cache.reader('a').recordKey(BY_ID, ['r1']);
  cache.reader('a').keepPage(old, page(1), true);
  for (let i = 0; i < TEXTS_KEPT; i++) cache.reader('a').recordKey(`select "id" from "other${i}" where "id" = $1`, ['x']);
  t.not(cache.reader('a').recordKey(BY_ID, ['r1']), old, 'the oldest text is numbered anew');
  t.equal(cache.reader('a').page(old, true)?.length, 1, 'its records are still found under their key');
  cache.changed('a', ['doc']);
  t.equal(cache.reader('a').page(old, true), undefined, 'and forgotten by a write to its table');
  const late = createCountCache();
  const lateKey = late.reader('a').recordKey(BY_ID, ['r1']);
  for (let i = 0; i < TEXTS_KEPT; i++) late.reader('a').recordKey(`select "id" from "other${i}" where "id" = $1`, ['x']);
  late.reader('a').keepPage(lateKey, page(1), true);
  t.equal(late.reader('a').page(lateKey, true), undefined, 'a record whose text was forgotten while it was read is not kept (no table would forget it)');
});

t.test('totals are forgotten by the tables their statements name, too', async (t) => {
  const cache = createCountCache();
  const reader = cache.reader('a');
  reader.set('select count(*) as n from "s"."doc" where "title" = $1\u0000["folder"]', 4);
  cache.changed('a', ['folder']);
  t.equal(cache.reader('a').get('select count(*) as n from "s"."doc" where "title" = $1\u0000["folder"]'), 4, 'a binding that spells a table name is not a table');
  cache.changed('a', ['doc']);
  t.equal(cache.reader('a').get('select count(*) as n from "s"."doc" where "title" = $1\u0000["folder"]'), undefined, 'a schema-qualified table is');
});

const APP = { apps: ['test/data/fixtures/nested-app'] };

/** Statements of an environment's knex that read the tag table (its rows, groups or totals). */
const watchPages = (rt: TestRuntime, environment: string) => tableReads(rt, environment, 'tag');

t.test('remembered pages stay exact through writes, rollbacks and open transactions', async (t) => {
  await eachBackend(t, ['pages'], async (t, site) => {
    const rt = await site.boot({ config: APP });
    t.teardown(() => rt.close());
    const environment = site.ids[0]!;
    const engine = rt.runtime.kernel.service<DataEngine>('data.engine')!;
    const system: DataContext = { environmentId: environment, principal: null, system: true };
    const codes = async (query: Record<string, unknown> = { orderBy: 'code', limit: 10 }, total?: false) =>
      (await engine.query('tag', query, system, total === false ? { total } : {})).items.map((r) => r.code);
    const pages = await watchPages(rt, environment);

    await engine.create('tag', { code: 'b' }, system);
    t.same(await codes(), ['b'], 'one record');
    t.ok(await untilRemembered(codes, pages), 'a repeated first page is answered without reading');
    t.same(await codes(), ['b'], 'the same page');
    const a = await engine.create('tag', { code: 'a' }, system);
    t.same(await codes(), ['a', 'b'], 'a create shows at once');
    await engine.update('tag', String(a.id), { code: 'c' }, {}, system);
    t.same(await codes(), ['b', 'c'], 'an update shows at once');
    await engine.delete('tag', String(a.id), {}, system);
    t.same(await codes(), ['b'], 'a delete shows at once');
    await t.rejects(engine.transaction(system, async (tx) => {
      await tx.create('tag', { code: 'rolled back' }, system);
      throw new Error('abort');
    }), /abort/);
    t.same(await codes(), ['b'], 'a rolled-back create leaves the page as it was');

    const open = openTransaction(engine, system, (tx) => tx.create('tag', { code: 'd' }, system));
    await open.ready;
    t.same(await codes(), ['b'], 'an uncommitted create is not on the page outside its transaction');
    await open.commit();
    t.same(await codes(), ['b', 'd'], 'once committed it is, though the page was read while it was open');
    t.same(await codes({ orderBy: 'code', limit: 10 }, false), ['b', 'd'], 'a page without its total too');
    t.same(await codes({ orderBy: '-code', limit: 1 }), ['d'], 'another query has a page of its own');
    const groups = async () => (await engine.query('tag', { groupBy: ['code'], aggregations: [{ function: 'count', alias: 'n' }], orderBy: 'code' }, system)).items;
    t.same(await groups(), [{ code: 'b', n: 1 }, { code: 'd', n: 1 }], 'an aggregation');
    t.ok(await untilRemembered(groups, pages), 'a repeated aggregation is answered without reading');
    t.same(await groups(), [{ code: 'b', n: 1 }, { code: 'd', n: 1 }], 'the same groups again');
    await engine.create('tag', { code: 'b2' }, system);
    t.same(await groups(), [{ code: 'b', n: 1 }, { code: 'b2', n: 1 }, { code: 'd', n: 1 }], 'a create shows in the groups at once');
    await engine.delete('tag', String((await engine.query('tag', { where: { code: 'b2' } }, system)).items[0]!.id), {}, system);
    const items = (await engine.query('tag', { orderBy: 'code', limit: 10 }, system)).items;
    items[0]!.code = 'changed by a caller';
    t.same(await codes(), ['b', 'd'], 'a caller changing its records does not change the next page');
  });
});

/** A runtime of the pages app (notes and shelves), closed with the test; its engine and a system context. */
async function bootPages(t: Test, site: Site) {
  const rt = await site.boot({ config: { apps: ['test/data/fixtures/pages-app'] } });
  t.teardown(() => rt.close());
  const environment = site.ids[0]!;
  const engine = rt.runtime.kernel.service<DataEngine>('data.engine')!;
  const system: DataContext = { environmentId: environment, principal: null, system: true };
  return { rt, environment, engine, system };
}

t.test('records of a remembered page are each caller\'s own', async (t) => {
  await eachBackend(t, ['pagecopies'], async (t, site) => {
    const { rt, environment, engine, system } = await bootPages(t, site);
    await engine.create('note', { code: 'n1', labels: ['red', 'blue'], meta: { x: { y: 1 }, list: [{ z: 1 }] }, due: '2026-03-01' }, system);
    const read = async () => (await engine.query('note', { orderBy: 'code', limit: 5 }, system)).items;
    const first = await read();
    const expected = [{ id: first[0]!.id, code: 'n1', labels: ['red', 'blue'], meta: { x: { y: 1 }, list: [{ z: 1 }] }, due: '2026-03-01' }];
    t.match(first, expected, 'the page as read');
    const statements = await tableReads(rt, environment, 'note');
    t.ok(await untilRemembered(read, statements), 'answered from memory');
    for (let i = 0; i < 2; i++) {
      const items = await read();
      t.match(items, expected, 'each read from memory gives the same records');
      const record = items[0]!;
      record.code = 'changed';
      (record.labels as string[]).push('green');
      ((record.meta as { x: { y: number } }).x).y = 2;
      ((record.meta as { list: Array<{ z: number }> }).list[0]!).z = 2;
      delete record.due;
    }
    const last = (await read())[0]!;
    t.same({ id: last.id, code: last.code, labels: last.labels, meta: last.meta, due: last.due }, expected[0], 'what callers did to their records reaches no later reader');
  });
});

t.test('a write to one table leaves the remembered pages of another', async (t) => {
  await eachBackend(t, ['pageothers'], async (t, site) => {
    const { rt, environment, engine, system } = await bootPages(t, site);
    await engine.create('note', { code: 'n1' }, system);
    const notes = async () => (await engine.query('note', { orderBy: 'code', limit: 5 }, system)).items.map((r) => r.code);
    const statements = await tableReads(rt, environment, 'note');
    // Background work through data.database (the job queue's polls) forgets everything now and then: retried.
    let kept = false;
    for (let i = 0; i < 20 && !kept; i++) {
      t.ok(await untilRemembered(notes, statements), 'the page of notes is remembered');
      statements.length = 0;
      await engine.create('shelf', { label: `s${i}` }, system);
      t.same(await notes(), ['n1'], 'the same notes');
      kept = statements.length === 0;
    }
    t.ok(kept, 'a create of a shelf (one statement) leaves the page of notes remembered');
    await engine.create('note', { code: 'n2' }, system);
    t.same(await notes(), ['n1', 'n2'], 'a create of a note shows at once');
  });
});

t.test('a page remembered by one process is forgotten when another writes (PostgreSQL)', async (t) => {
  await eachBackend(t, ['pagesignal'], async (t, site) => {
    const a = await site.boot({ config: APP });
    t.teardown(() => a.close());
    const tokenA = (await signIn(a)).token;
    const codes = async (rt: TestRuntime, token: string) =>
      ((await rt.inject({ method: 'GET', url: '/api/v1/data/tag?orderBy=code&limit=10', headers: bearer(token) })).json().items as Array<{ code: string }>).map((r) => r.code);
    const create = async (rt: TestRuntime, token: string, code: string) =>
      (await rt.inject({ method: 'POST', url: '/api/v1/data/tag', headers: bearer(token), payload: { code } })).statusCode;
    t.equal(await create(a, tokenA, 'one'), 201, 'a record through runtime A');
    t.same(await codes(a, tokenA), ['one'], 'A pages it');
    // SQLite: an environment's file belongs to one runtime process (docs/data-api.md, Totals).
    if (site.backend !== 'postgres') return;
    const b = await site.boot({ config: APP });
    t.teardown(() => b.close());
    const tokenB = (await signIn(b)).token;
    const pages = await watchPages(a, site.ids[0]!);
    t.ok(await untilRemembered(() => codes(a, tokenA), pages), 'A answers the repeated page from memory');
    t.equal(await create(b, tokenB, 'two'), 201, 'a write through runtime B');
    let seen = await codes(a, tokenA);
    for (let i = 0; i < 100 && seen.length !== 2; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      seen = await codes(a, tokenA);
    }
    t.same(seen, ['one', 'two'], "B's write reaches the page A remembered");
  });
});

t.test('pageCacheMb 0 reads every page', async (t) => {
  await eachBackend(t, ['pagesoff'], async (t, site) => {
    const rt = await site.boot({ config: { ...APP, plugins: { email: { enabled: false }, data: { pageCacheMb: 0 } } } });
    t.teardown(() => rt.close());
    const token = (await signIn(rt)).token;
    const pages = await watchPages(rt, site.ids[0]!);
    for (let i = 0; i < 3; i++) await rt.inject({ method: 'GET', url: '/api/v1/data/tag?orderBy=code&limit=10', headers: bearer(token) });
    t.equal(pages.filter((sql) => !/count\(\*\)/i.test(sql)).length, 3, 'each read runs its page statement');
    await site.query(site.ids[0]!, "insert into tag (id, version, created_at, updated_at, code) values ('outside-1', 1, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', 'outside')");
    const res = await rt.inject({ method: 'GET', url: '/api/v1/data/tag?orderBy=code&limit=10', headers: bearer(token) });
    t.same(res.json().items.map((r: { code: string }) => r.code), ['outside'], 'a row written outside the runtime is on the next page');
  });
});
