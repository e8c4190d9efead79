/**
 * The writer is free while a batch is prepared: an import's search words and history text are
 * made before its transaction opens (prepareWrite.ts, the search plugin's `prepare`), so on SQLite
 * another connection writes while they are made, and on both drivers no engine transaction is open
 * then. What is prepared is written only inside the transaction: a dry run and a rolled-back
 * import leave no search entry and no history entry. A before-hook that changes a value makes
 * its words and history text from the value as stored.
 */
import Database from 'better-sqlite3';
import type { Knex } from 'knex';
import t from 'tap';
import type { DataDatabase } from '../../capabilities/dataDatabase.ts';
import type { DataRecord } from '../../capabilities/dataEngine.ts';
import { definePlugin } from '../../kernel/index.ts';
import { HookStore } from '../../kernel/hookStore.ts';
import { BUILTIN_PLUGINS } from '../../plugins/builtin.ts';
import { onEachDriver, type Io } from './ioFixtures.ts';

const MARK = 'zanzibarmark';
const LATER = 'quokkamark';
const HOOKED = 'hookedmark';
/** Texts at least this long holding a marker are the ones whose preparation is watched. */
const LONG = 40_000;
const ROWS = 60;

/** About 90,000 characters of words, the marker first: within the textarea's bound of 100,000. */
const bigText = (mark: string, i: number) => `${mark} row${i} ${'lorem ipsum dolor sit amet '.repeat(3_300)}`;

/** A before-hook on memo that rewrites a body starting with `rewrite` (the stored value is not the one sent). */
const rewriting = definePlugin({
  name: 'test-rewriting-hook',
  version: '1.0.0',
  kernel: '^16.0.0',
  register(ctx) {
    ctx.hook('data.beforeInsert', (event: { record: DataRecord }) => {
      if (typeof event.record.body === 'string' && event.record.body.startsWith('rewrite')) event.record.body = `${HOOKED} ${'changed words '.repeat(4_000)}`;
    }, { object: 'memo', batched: true });
  },
});

interface Watch {
  /** Each preparation of a long marked text: what it was ('words' or 'history'), its marker, and whether an engine transaction was open then. */
  made: Array<{ kind: 'words' | 'history'; mark: string; open: boolean }>;
  /** SQLite: what another connection's write answered at each preparation of the import's words. */
  others: string[];
  stop(): void;
}

const markOf = (text: string) => [MARK, LATER, HOOKED].find((m) => text.includes(m));

/**
 * Watches the environment's database: BEGIN opens a transaction, COMMIT or ROLLBACK (not to a
 * savepoint) ends it, as the engine's statements say (knex's 'query' event). A long marked text
 * split into words (tokenize's NFKD normalization) or encoded as JSON for a history entry is
 * a preparation; on SQLite, at each one of the import's, another connection to the file writes a
 * row, with no busy wait: it is refused (SQLITE_BUSY) while the engine holds the writer.
 */
function watch(knex: Knex, file: string | null): Watch {
  let open = 0;
  const listener = (query: { sql?: string }) => {
    const sql = String(query.sql ?? '').trim();
    if (/^begin\b/i.test(sql)) open += 1;
    else if (/^(commit|rollback)\s*;?$/i.test(sql)) open -= 1;
  };
  knex.on('query', listener);
  const other = file ? new Database(file, { timeout: 0 }) : null;
  other?.exec('create table if not exists writer_probe (n integer)');
  const made: Watch['made'] = [];
  const others: string[] = [];
  const normalize = String.prototype.normalize;
  const stringify = JSON.stringify;
  // eslint-disable-next-line no-extend-native
  String.prototype.normalize = function (this: string, form?: string) {
    const text = String(this);
    const mark = text.length >= LONG ? markOf(text) : undefined;
    if (mark) {
      made.push({ kind: 'words', mark, open: open > 0 });
      if (other && mark === MARK) {
        try {
          other.prepare('insert into writer_probe (n) values (?)').run(others.length);
          others.push('written');
        } catch (error) {
          others.push(String((error as { code?: string }).code ?? error));
        }
      }
    }
    return normalize.call(text, form);
  } as typeof String.prototype.normalize;
  JSON.stringify = function (...args: Parameters<typeof JSON.stringify>) {
    const out = stringify(...args);
    const mark = typeof out === 'string' && out.length >= LONG ? markOf(out) : undefined;
    // A value encoded alone, or an entry's changes (`"new":`); not a request or response body.
    if (mark && (typeof args[0] === 'string' || out.includes('"new":'))) made.push({ kind: 'history', mark, open: open > 0 });
    return out;
  } as typeof JSON.stringify;
  return {
    made,
    others,
    stop() {
      String.prototype.normalize = normalize; // eslint-disable-line no-extend-native
      JSON.stringify = stringify;
      knex.off('query', listener);
      other?.close();
    },
  };
}

/** POST a body already in JSON (so the test's own encoding of it is not counted). */
async function importRows(io: Io, rows: DataRecord[], options: Record<string, unknown> = {}) {
  const payload = JSON.stringify({ format: 'json', rows, atomic: false, ...options });
  const res = await io.rt.inject({ method: 'POST', url: '/api/v1/data/memo/import', headers: { 'content-type': 'application/json' }, payload });
  return { status: res.statusCode, body: res.json() as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

const count = (made: Watch['made'], kind: 'words' | 'history', mark: string, open: boolean) => made.filter((m) => m.kind === kind && m.mark === mark && m.open === open).length;

t.test('prepare is taken on data.afterInsert and data.afterUpdate handlers only, as a function', async (t) => {
  const store = new HookStore();
  t.throws(() => store.add('p', 'data.beforeInsert', () => undefined, { prepare: () => 1 }), { code: 'KERNEL_UNKNOWN_HOOK' }, 'not on a before-hook');
  t.throws(() => store.add('p', 'data.afterInsert', () => undefined, { prepare: 'yes' as unknown as () => unknown }), { code: 'KERNEL_UNKNOWN_HOOK' }, 'not as another value');
  const prepare = () => 1;
  store.add('p', 'data.afterUpdate', () => undefined, { prepare });
  t.equal(store.all()[0]!.prepare, prepare, 'kept on the registration');
});

await onEachDriver(t, 'writer-free', async (t, io) => {
  const database = io.rt.runtime.kernel.service<DataDatabase>('data.database')!;
  const knex = await database.withDatabase(io.environment, async (db) => db.knex);
  const file = io.driver === 'sqlite' ? (knex.client.config.connection as { filename: string }).filename : null;
  const search = async (q: string) => (await io.send('GET', `/api/v1/search?q=${q}&limit=100`)).body.items as Array<{ id: string }>;
  const historyOf = async (id: string) => (await io.engine().history('memo', id, {}, io.system)).items;

  await t.test('an import: search words and history text made before the transaction, another connection writing meanwhile', async (t) => {
    const rows = Array.from({ length: ROWS }, (_, i) => ({ title: `Memo ${i}`, body: bigText(MARK, i) }));
    const watched = watch(knex, file);
    let res;
    try {
      res = await importRows(io, rows);
    } finally {
      watched.stop();
    }
    t.equal(res.status, 200, JSON.stringify(res.body).slice(0, 300));
    t.hasStrict(res.body, { total: ROWS, created: ROWS, failed: 0 }, 'every row written');
    t.equal(count(watched.made, 'words', MARK, false), ROWS, 'each body split into words once, with no transaction open');
    t.equal(count(watched.made, 'words', MARK, true), 0, 'no body split into words while a transaction was open');
    t.equal(count(watched.made, 'history', MARK, false), ROWS, 'each body encoded for its history entry once, with no transaction open');
    t.equal(count(watched.made, 'history', MARK, true), 0, 'no history text encoded while a transaction was open');
    if (file) {
      t.same(watched.others, Array.from({ length: ROWS }, () => 'written'), 'another connection wrote at each preparation: the writer was free');
      const probe = new Database(file, { readonly: true });
      t.equal((probe.prepare('select count(*) as n from writer_probe').get() as { n: number }).n, ROWS, 'its rows are stored');
      probe.close();
    }
    const found = await search(MARK);
    t.equal(found.length, ROWS, 'every row found by the word its body begins with');
    const ids = (res.body.rows as Array<{ id: string }>).map((r) => r.id);
    t.same(new Set(found.map((f) => f.id)), new Set(ids), 'the imported records');
    const history = await historyOf(ids[7]!);
    t.same(history.map((h) => h.operation), ['create'], 'one history entry');
    t.equal((history[0]!.changes as Record<string, { new: unknown }>).body?.new, bigText(MARK, 7), 'holding the body as sent');
    t.same((history[0]!.changes as Record<string, { old: unknown; new: unknown }>).title, { old: null, new: 'Memo 7' }, 'and the title');
  });

  await t.test('a dry run and a rolled-back import write none of what was prepared', async (t) => {
    const before = await io.engine().query('sys_record_history', { where: { object: { $eq: 'memo' } }, limit: 1 }, io.system, { total: true });
    const dry = await importRows(io, [{ title: 'Dry', body: bigText(LATER, 1) }], { dryRun: true });
    t.hasStrict(dry.body, { dryRun: true, valid: 1, created: 0 }, 'the dry run checked the row');
    const rejected = await importRows(io, [{ title: 'Rolled back', body: bigText(LATER, 2) }, { title: 't'.repeat(51) }], { atomic: true });
    t.equal(rejected.status, 400, 'an atomic import with a failed row is refused');
    t.same(await search(LATER), [], 'no search entry of either');
    const after = await io.engine().query('sys_record_history', { where: { object: { $eq: 'memo' } }, limit: 1 }, io.system, { total: true });
    t.equal(after.total, before.total, 'no history entry of either');
  });

  await t.test('a value a before-hook changed: words and history text of the stored value, made in the transaction', async (t) => {
    const res = await importRows(io, [{ title: 'Rewritten', body: `rewrite ${bigText(LATER, 3)}` }]);
    t.hasStrict(res.body, { created: 1 }, 'written');
    const id = (res.body.rows as Array<{ id: string }>)[0]!.id;
    t.same((await search(HOOKED)).map((h) => h.id), [id], 'found by the word the hook wrote');
    t.same(await search(LATER), [], 'not by a word only the value sent held');
    const history = await historyOf(id);
    t.match(String((history[0]!.changes as Record<string, { new: unknown }>).body?.new), new RegExp(`^${HOOKED} changed words`), 'the history holds the stored value');
  });

  await t.test('an update: the new value\'s words and history text made before the transaction', async (t) => {
    const [first] = await search(MARK);
    const id = first!.id;
    const watched = watch(knex, null);
    let res;
    try {
      res = await io.send('PATCH', `/api/v1/data/memo/${id}`, { body: bigText(LATER, 4) });
    } finally {
      watched.stop();
    }
    t.equal(res.status, 200, JSON.stringify(res.body).slice(0, 300));
    t.equal(count(watched.made, 'words', LATER, false), 1, 'the new body split into words with no transaction open');
    t.equal(count(watched.made, 'words', LATER, true), 0, 'and not again inside it');
    t.equal(count(watched.made, 'words', MARK, true), 1, 'the old body, read from the locked record, split in the transaction');
    t.equal(count(watched.made, 'history', LATER, false), 1, 'the new body encoded with no transaction open');
    t.equal(count(watched.made, 'history', LATER, true), 0, 'and not again inside it');
    t.same((await search(LATER)).map((h) => h.id), [id], 'found by its new words');
    t.notOk((await search(MARK)).some((h) => h.id === id), 'no longer by its old ones');
    const history = await historyOf(id);
    t.same(history.map((h) => h.operation), ['update', 'create'], 'an update entry');
    const change = (history[0]!.changes as Record<string, { old: unknown; new: unknown }>).body;
    t.equal(change?.new, bigText(LATER, 4), 'with the new body');
    t.equal(typeof change?.old === 'string' && change.old.startsWith(MARK), true, 'and the old one');
  });
}, { builtins: [...BUILTIN_PLUGINS, { manifest: rewriting, enabledByDefault: true }], config: { apps: ['test/io/fixtures/cellapp'] } });
