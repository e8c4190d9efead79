/** GET /api/v1/search on both drivers: ranking, sync with writes, filters, folding, hostile input, and reads through the engine. */
import t, { type Test } from 'tap';
import type { DataDatabase } from '../../capabilities/dataDatabase.ts';
import type { DataEngine, DataRecord } from '../../capabilities/dataEngine.ts';
import { codedError, definePlugin } from '../../kernel/index.ts';
import { BUILTIN_PLUGINS } from '../../plugins/builtin.ts';
import { storeFor } from '../../plugins/search/storeFor.ts';
import { bootSearch, drivers, idsOf, type SearchRuntime } from './searchFixtures.ts';

interface HookEvent {
  object: string;
  ctx: { environmentId: string };
  engine: DataEngine;
  query?: Record<string, unknown>;
  result?: { items: DataRecord[] };
  record?: DataRecord;
}

/** What the probe plugin's hooks do; each test sets what it needs and resets it. */
const probe = {
  /** beforeFind on article: hide records whose code is this. */
  hideCode: null as string | null,
  /** afterFind on article: drop the body field from every record. */
  dropBody: false,
  /** after-hook that throws (after the search plugin's, which ran in the same transaction). */
  fail: null as 'insert' | 'update' | 'delete' | null,
  /** Documents of article the index held inside the failing transaction. */
  insideCount: -1,
};

const failIf = (operation: 'insert' | 'update' | 'delete') => async (event: HookEvent) => {
  if (probe.fail !== operation) return;
  // In the write's transaction: the engine of the hook event names it.
  probe.insideCount = await sideTables!.withDatabase(event.ctx.environmentId, (db) => storeFor(db).count(db.knex, 'article'), event.engine);
  throw codedError('CONFLICT', { summary: `the probe refused the ${operation}` });
};

let sideTables: DataDatabase | undefined;

const probePlugin = definePlugin({
  name: 'search-probe',
  version: '1.0.0',
  kernel: '^16.0.0',
  requires: ['data.database'],
  register(ctx) {
    sideTables = ctx.resolve('data.database');
    ctx.hook('data.beforeFind', (event: HookEvent) => {
      if (probe.hideCode === null) return;
      const hide = { code: { $ne: probe.hideCode } };
      event.query!.where = event.query!.where ? { $and: [event.query!.where, hide] } : hide;
    }, { object: 'article' });
    ctx.hook('data.afterFind', (event: HookEvent) => {
      if (probe.dropBody) for (const item of event.result!.items) delete item.body;
    }, { object: 'article' });
    ctx.hook('data.afterInsert', failIf('insert'), { object: 'article', priority: 5000 });
    ctx.hook('data.afterUpdate', failIf('update'), { object: 'article', priority: 5000 });
    ctx.hook('data.afterDelete', failIf('delete'), { object: 'article', priority: 5000 });
  },
});

const builtins = [...BUILTIN_PLUGINS, { manifest: probePlugin, enabledByDefault: true }];

async function scenario(t: Test, s: SearchRuntime) {
  const article = (record: DataRecord) => s.create('article', record);

  await t.test('a term in a heavier field ranks higher; more matches rank higher', async (t) => {
    const inTitle = await article({ title: 'Quantum computing', body: 'lorem ipsum' });
    const inSummary = await article({ title: 'Lorem ipsum', summary: 'quantum dolor' });
    const inBody = await article({ title: 'Ipsum lorem', body: 'quantum dolor' });
    const reply = await s.search({ q: 'quantum' });
    t.equal(reply.status, 200, '200');
    t.same(idsOf(reply), [inTitle.id, inSummary.id, inBody.id], 'title (3) > summary (2) > body (1)');
    const scores = reply.body.items.map((hit: { score: number }) => hit.score);
    t.ok(scores[0] > scores[1] && scores[1] > scores[2], `scores strictly decrease: ${scores.join(' > ')}`);
    t.hasStrict(reply.body.items[0], { object: 'article', id: inTitle.id, record: { id: inTitle.id, title: 'Quantum computing', body: 'lorem ipsum', version: 1 } }, 'each hit carries object, id, score and the record');

    const thrice = await article({ title: 'Notes', body: 'zephyr zephyr zephyr' });
    const once = await article({ title: 'Notes', body: 'zephyr alpha beta' });
    t.same(idsOf(await s.search({ q: 'zephyr' })), [thrice.id, once.id], 'three occurrences rank above one');

    t.same(idsOf(await s.search({ q: 'quantum lorem' })).sort(), [inTitle.id, inSummary.id, inBody.id].sort(), 'every term must match');
    t.same(idsOf(await s.search({ q: 'quantum zephyr' })), [], 'no record holds both words');
    t.same(idsOf(await s.search({ q: 'quant' })).length, 3, 'the last word matches as a prefix');
    t.same(idsOf(await s.search({ q: 'quant ' })), [], 'a trailing space makes it a whole word');
  });

  await t.test('equal scores are ordered by id', async (t) => {
    const a = await article({ title: 'Twin xylophone' });
    const b = await article({ title: 'Twin xylophone' });
    t.same(idsOf(await s.search({ q: 'xylophone' })), [a.id, b.id].sort(), 'ascending ids');
  });

  await t.test('an import written in batches is indexed row by row; a rolled-back one is not', async (t) => {
    const rows = Array.from({ length: 260 }, (_, i) => ({ name: `Imported okapi ${i}` }));
    const res = await s.send('POST', '/api/v1/data/book/import', { format: 'json', rows });
    t.same([res.status, res.body.created], [200, 260], JSON.stringify(res.body).slice(0, 200));
    t.same(idsOf(await s.search({ q: 'okapi', limit: 5 })).length, 5, 'found');
    t.equal(await s.indexed('book'), 260, 'one document per imported record, over two batches');
    const dry = await s.send('POST', '/api/v1/data/book/import', { format: 'json', rows: [{ name: 'Dry quokka' }], dryRun: true });
    t.same([dry.status, dry.body.valid, dry.body.created], [200, 1, 0], 'dry run');
    t.same(idsOf(await s.search({ q: 'quokka' })), [], 'the dry run left nothing in the index');
    t.equal(await s.indexed('book'), 260, 'the same documents');
  });

  await t.test('kept in sync on create, update and delete', async (t) => {
    const created = await article({ title: 'Ephemeral walrus' });
    t.same(idsOf(await s.search({ q: 'walrus' })), [created.id], 'found after create');
    const patched = await s.send('PATCH', `/api/v1/data/article/${String(created.id)}`, { title: 'Ephemeral narwhal' });
    t.equal(patched.status, 200, 'updated');
    t.same(idsOf(await s.search({ q: 'walrus' })), [], 'the old word is gone');
    t.same(idsOf(await s.search({ q: 'narwhal' })), [created.id], 'the new word is found');
    t.equal((await s.search({ q: 'narwhal' })).body.items[0].record.version, 2, 'the hit carries the current record');
    await s.send('PATCH', `/api/v1/data/article/${String(created.id)}`, { code: 'X-1' });
    t.same(idsOf(await s.search({ q: 'narwhal' })), [created.id], 'a change to an unsearchable field keeps the entry');
    t.equal((await s.send('DELETE', `/api/v1/data/article/${String(created.id)}`)).status, 204, 'deleted');
    t.same(idsOf(await s.search({ q: 'narwhal' })), [], 'gone after delete');
  });

  await t.test('a rolled-back write leaves the index as it was', async (t) => {
    const kept = await article({ title: 'Steadfast pelican' });
    const before = await s.indexed('article');
    try {
      probe.fail = 'insert';
      const insert = await s.send('POST', '/api/v1/data/article', { title: 'Doomed pelican' });
      t.equal(insert.status, 409, 'the insert fails after the index was written');
      t.equal(probe.insideCount, before + 1, 'inside the transaction the index held the new document');
      t.equal(await s.indexed('article'), before, 'after the rollback it does not');
      t.same(idsOf(await s.search({ q: 'doomed' })), [], 'and search does not find it');

      probe.fail = 'update';
      const update = await s.send('PATCH', `/api/v1/data/article/${String(kept.id)}`, { title: 'Fickle pelican' });
      t.equal(update.status, 409, 'the update fails');
      t.same(idsOf(await s.search({ q: 'fickle' })), [], 'the new words are not indexed');
      t.same(idsOf(await s.search({ q: 'steadfast' })), [kept.id], 'the old ones still are');

      probe.fail = 'delete';
      t.equal((await s.send('DELETE', `/api/v1/data/article/${String(kept.id)}`)).status, 409, 'the delete fails');
      t.equal(probe.insideCount, before - 1, 'inside the transaction the document was removed');
      t.same(idsOf(await s.search({ q: 'steadfast' })), [kept.id], 'after the rollback it is found again');
    } finally {
      probe.fail = null;
    }
  });

  await t.test('object filter, API-disabled objects and apiMethods', async (t) => {
    const a = await article({ title: 'Gazetteer of islands' });
    const book = await s.create('book', { name: 'The gazetteer' });
    await s.create('memo', { note: 'gazetteer memo' });
    await s.engine().create('vault', { secret: 'gazetteer vault' }, s.system);
    const all = await s.search({ q: 'gazetteer' });
    t.same(all.body.items.map((h: { object: string }) => h.object).sort(), ['article', 'book'], 'every served object; memo (no search in apiMethods) and vault (apiEnabled false) are left out');
    t.same(idsOf(await s.search({ q: 'gazetteer', object: 'book' })), [book.id], 'object=book: books only');
    t.same(idsOf(await s.search({ q: 'gazetteer', object: 'article' })), [a.id], 'object=article: articles only');
    const cases: Array<[string, number, string]> = [
      ['memo', 405, 'METHOD_NOT_ALLOWED'], ['vault', 404, 'NOT_FOUND'], ['nothing_here', 404, 'NOT_FOUND'],
      ['counter', 400, 'VALIDATION_ERROR'], ['Bad-Name', 400, 'VALIDATION_ERROR'],
    ];
    for (const [object, status, code] of cases) {
      const reply = await s.search({ q: 'gazetteer', object });
      t.same([reply.status, reply.body.error?.code], [status, code], `object=${object}: ${status} ${code}`);
      t.notOk(JSON.stringify(reply.body).includes('gazetteer vault'), 'never leaks the vault');
    }
  });

  await t.test('case-insensitive and accent-insensitive', async (t) => {
    const dessert = await article({ title: 'Crème BRÛLÉE', summary: 'Ｆｕｌｌｗｉｄｔｈ' });
    for (const q of ['creme', 'CRÈME', 'brulee', 'Brûlée', 'crème brulee', 'fullwidth']) {
      t.same(idsOf(await s.search({ q })), [dessert.id], `'${q}' finds it`);
    }
  });

  await t.test('query syntax of either index is plain text; nothing yields a 500', async (t) => {
    const target = await article({ title: 'Syntax mongoose' });
    const finds = ['"mongoose"', 'mongoose*', '(mongoose)', 'mongoose!', "'mongoose'", 'mongoose:', '&mongoose|', '-mongoose', '^mongoose', '{mongoose}', 'mongoose\\'];
    for (const q of finds) {
      const reply = await s.search({ q });
      t.same([reply.status, idsOf(reply).includes(String(target.id))], [200, true], `${q}: 200, found`);
    }
    t.same(idsOf(await s.search({ q: 'mongoose OR zebra' })), [], 'OR is a word to find, not an operator');
    t.same(idsOf(await s.search({ q: 'mongoose AND' })), [], 'so is AND');
    t.same(idsOf(await s.search({ q: 'NOT mongoose' })), [], 'and NOT');
    const hostile = ['"', '*', 'AND', 'OR NOT', ':', "'", '&', '|', '!', '(', ')', '()', '"unterminated', "it's", 'a & b | !c', 'x:*', '\\', '%_', '\u0000', '😀', 'NEAR(a b, 2)', 'title:mongoose', ' & | ! '];
    for (const q of hostile) {
      const reply = await s.search({ q });
      t.equal(reply.status, 200, `${JSON.stringify(q)}: 200`);
      t.ok(Array.isArray(reply.body.items), 'with a list of hits');
    }
  });

  await t.test('bad parameters are 400s that say what to fix', async (t) => {
    const cases: Array<[Record<string, string | number>, string]> = [
      [{}, 'q'], [{ q: '' }, 'q'], [{ q: '   ' }, 'q'], [{ q: 'x'.repeat(201) }, 'q'],
      [{ q: 'a', limit: 0 }, 'limit'], [{ q: 'a', limit: 101 }, 'limit'], [{ q: 'a', limit: 'many' }, 'limit'], [{ q: 'a', page: 2 }, 'page'],
    ];
    for (const [params, about] of cases) {
      const reply = await s.search(params);
      t.equal(reply.status, 400, `${JSON.stringify(params)}: 400`);
      t.equal(reply.body.error.code, 'VALIDATION_ERROR', 'VALIDATION_ERROR');
      t.match(reply.body.error.message, about, `the message names ${about}`);
    }
    t.equal((await s.search({ q: 'x'.repeat(200) })).status, 200, '200 characters are fine');
  });

  await t.test('hits are read through the engine: its find hooks hide records and fields', async (t) => {
    const shown = await article({ title: 'Visible heron', body: 'heron body text', code: 'open' });
    const hidden = await article({ title: 'Hidden heron', code: 'secret' });
    t.same(idsOf(await s.search({ q: 'heron' })).sort(), [shown.id, hidden.id].sort(), 'both match without the hook');
    try {
      probe.hideCode = 'secret';
      const reply = await s.search({ q: 'heron' });
      t.same(idsOf(reply), [shown.id], 'a beforeFind hook that hides a record hides it from search');
      t.notOk(JSON.stringify(reply.body).includes('Hidden heron'), 'nothing of it leaks');
      probe.dropBody = true;
      const trimmed = await s.search({ q: 'heron', object: 'article' });
      t.equal(trimmed.body.items[0].record.title, 'Visible heron', 'the record is there');
      t.notOk('body' in trimmed.body.items[0].record, 'without the field afterFind removed');
    } finally {
      probe.hideCode = null;
      probe.dropBody = false;
    }
  });

  await t.test('limit, pages of maxPageSize, and hidden candidates are made up for', async (t) => {
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push(String((await article({ title: `Abundant ocelot ${i}`, code: i < 8 ? 'secret' : 'open' })).id));
    t.same(idsOf(await s.search({ q: 'ocelot', limit: 20 })), [...ids].sort(), 'all 12 (article pages are 5 records)');
    t.same(idsOf(await s.search({ q: 'ocelot', limit: 3 })), [...ids].sort().slice(0, 3), 'limit 3: the first 3');
    try {
      probe.hideCode = 'secret';
      const visible = ids.slice(8).sort();
      t.same(idsOf(await s.search({ q: 'ocelot', limit: 4 })), visible, '8 hidden candidates skipped, 4 hits still found');
    } finally {
      probe.hideCode = null;
    }
  });

  await t.test('each environment has its own index', async (t) => {
    const here = await article({ title: 'Territorial wombat' });
    const other = `/api/v1/environments/${s.others[0]!}/search?q=wombat`;
    t.same(idsOf(await s.search({ q: 'wombat' })), [here.id], 'found in its environment');
    const there = await s.send('GET', other);
    t.same([there.status, there.body], [200, { items: [] }], 'not in the other one');
    const theirs = await s.send('POST', `/api/v1/environments/${s.others[0]!}/data/article`, { title: 'Wandering wombat' });
    t.same(idsOf(await s.send('GET', other)), [theirs.body.id], 'which indexes its own records');
    t.same(idsOf(await s.search({ q: 'wombat' })), [here.id], 'and leaves this one alone');
  });

  await t.test('a query of no words finds nothing', async (t) => {
    const reply = await s.search({ q: '!!! ...' });
    t.same([reply.status, reply.body], [200, { items: [] }], '200, no hits');
  });
}

for (const driver of await drivers()) {
  await t.test(driver.name, { skip: driver.skip }, async (t) => {
    const s = await bootSearch(t, driver.name, { environment: `search-${process.pid}`, others: [`search-other-${process.pid}`], builtins });
    await scenario(t, s);
  });
}
