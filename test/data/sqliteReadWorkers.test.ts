/** The SQLite read workers: rows as the direct reader gives them, the time budget, the queue and aborts. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { openDatabase } from '../../plugins/data/sql/openDatabase.ts';
import { createReadWorkers, readWorkers } from '../../plugins/data/sql/sqliteReadWorkers.ts';

t.test('read workers of a SQLite file', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'osr-workers-'));
  const db = await openDatabase({ url: `sqlite:${join(dir, 'w.db')}` });
  t.teardown(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  await db.knex.raw('create table t (id text primary key, name text, n integer)');
  for (let i = 0; i < 12; i++) await db.knex('t').insert({ id: `r${i}`, name: i < 10 ? 'same' : 'Ünïcode', n: i });
  const workers = readWorkers(db.knex)!;
  t.ok(workers, 'a SQLite file has read workers');
  t.same(workers.stats(), { workers: 0, busy: 0, queued: 0, stuck: 0 }, 'none started before the first read');

  const far = Date.now() + 60_000;
  const rows = await workers.read({ sql: 'select id, n, os_lower(name) as low from t where n >= ? order by n limit 3', bindings: [10] }, far);
  t.same(rows, [{ id: 'r10', n: 10, low: 'ünïcode' }, { id: 'r11', n: 11, low: 'ünïcode' }], 'rows as objects; os_lower folds Unicode in the worker');
  t.same(await workers.read({ sql: 'select cache_size from pragma_cache_size()', bindings: [] }, far), [{ cache_size: -2000 }],
    "a worker's page cache is SQLite's default 2 MB, not better-sqlite3's 16 MB");

  const product = 'select count(*) as n from t join t as a on t.name = a.name join t as b on t.name = b.name join t as c on t.name = c.name join t as d on t.name = d.name join t as e on t.name = e.name join t as f on t.name = f.name join t as g on t.name = g.name where os_budget(?, t.id, a.id, b.id, c.id, d.id, e.id, f.id, g.id)';
  const started = Date.now();
  const budget = Date.now() + 300;
  const costly = workers.read({ sql: product, bindings: [budget] }, budget);
  // Queued behind it, with a deadline that passes while it waits.
  const queued = workers.read({ sql: 'select 1 as one', bindings: [] }, Date.now() + 100);
  const abortedJob = new AbortController();
  const dropped = workers.read({ sql: 'select 1 as one', bindings: [] }, far, abortedJob.signal);
  t.equal(workers.stats().queued, 2, 'two jobs wait behind the costly one');
  abortedJob.abort();
  await t.rejects(dropped, { name: 'AbortError' }, 'an aborted job leaves the queue');
  await t.rejects(costly, { code: 'OSR_QUERY_BUDGET' }, 'the costly statement stops at its deadline');
  const ms = Date.now() - started;
  t.ok(ms < 1000, `within the worker, before the grace period (${ms} ms)`);
  await t.rejects(queued, { code: 'OSR_QUERY_BUDGET' }, 'a job whose deadline passed in the queue is refused without running');
  t.same(workers.stats(), { workers: 1, busy: 0, queued: 0, stuck: 0 }, 'the worker is kept and idle');

  // A running job aborted: its worker is terminated, and its thread ends at the next os_budget call.
  const running = new AbortController();
  const stopped = workers.read({ sql: product, bindings: [far] }, far, running.signal);
  await new Promise((resolve) => setTimeout(resolve, 200));
  t.equal(workers.stats().busy, 1, 'the costly job runs');
  running.abort();
  await t.rejects(stopped, { name: 'AbortError' }, 'the aborted job is rejected');
  for (let i = 0; i < 40 && workers.stats().stuck > 0; i++) await new Promise((resolve) => setTimeout(resolve, 50));
  t.same(workers.stats(), { workers: 0, busy: 0, queued: 0, stuck: 0 }, 'its thread ended');
  t.same(await workers.read({ sql: 'select count(*) as n from t', bindings: [] }, far), [{ n: 12 }], 'a new worker takes the next job');
});

t.test('a worker that crashes is replaced, and close ends every worker', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'osr-workers-'));
  const db = await openDatabase({ url: `sqlite:${join(dir, 'w.db')}`, readers: 0 });
  t.teardown(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  await db.knex.raw('create table t (id text primary key, n integer)');
  await db.knex('t').insert([{ id: 'a', n: 1 }, { id: 'b', n: 2 }]);
  // A small heap: a result larger than a quarter of it is refused as over budget, the worker kept.
  const workers = createReadWorkers(join(dir, 'w.db'), { size: 1, heapMb: 8 });
  const far = Date.now() + 60_000;
  t.same(await workers.read({ sql: 'select id, n from t order by id', bindings: [] }, far), [{ id: 'a', n: 1 }, { id: 'b', n: 2 }], 'a read before the refusal');
  const huge = 'with recursive r(i) as (select 1 union all select i + 1 from r where i < 400000) select i, hex(randomblob(64)) as h from r';
  await t.rejects(workers.read({ sql: huge, bindings: [] }, far), { code: 'OSR_QUERY_BUDGET' }, 'a result past the worker\'s share of its heap is refused, before the heap runs out');
  t.same(workers.stats(), { workers: 1, busy: 0, queued: 0, stuck: 0 }, 'the worker is kept');
  t.same(await workers.read({ sql: 'select count(*) as n from t', bindings: [] }, far), [{ n: 2 }], 'and answers the next read');

  // A worker that dies (here: its file cannot be opened) fails its job and is replaced by the next one.
  const moved = join(dir, 'moved.db');
  const lost = createReadWorkers(moved, { size: 1 });
  t.teardown(() => lost.close());
  await t.rejects(lost.read({ sql: 'select 1 as one', bindings: [] }, far), { code: 'SQLITE_CANTOPEN', message: /read worker failed/ }, 'the job of the dead worker is rejected with the cause');
  t.same(lost.stats(), { workers: 0, busy: 0, queued: 0, stuck: 0 }, 'the dead worker left the pool');
  writeFileSync(moved, '');
  t.same(await lost.read({ sql: 'select 1 as one', bindings: [] }, far), [{ one: 1 }], 'a new worker answers the next read');
  t.equal(lost.stats().workers, 1, 'one worker again');

  // Committed writes are seen by the next read of a worker (its own read-only connection, WAL).
  await db.knex('t').insert({ id: 'c', n: 3 });
  t.same(await workers.read({ sql: 'select count(*) as n from t', bindings: [] }, far), [{ n: 3 }], 'a committed write is seen');
  await t.rejects(workers.read({ sql: "insert into t (id, n) values ('x', 9) returning id", bindings: [] }, far), { code: 'SQLITE_READONLY' }, 'a worker cannot write');

  await workers.close();
  t.same(workers.stats(), { workers: 0, busy: 0, queued: 0, stuck: 0 }, 'close ends the workers');
  await t.rejects(workers.read({ sql: 'select 1 as one', bindings: [] }, far), { message: 'the SQLite read workers are closed' }, 'and refuses reads after');
});

t.test('an in-memory database and readers 0 have no read workers', async (t) => {
  const memory = await openDatabase({ url: 'sqlite::memory:', readers: 4 });
  t.teardown(() => memory.close());
  t.equal(readWorkers(memory.knex), undefined, 'in memory: none (a second connection would be another database)');
  const dir = mkdtempSync(join(tmpdir(), 'osr-workers-'));
  const off = await openDatabase({ url: `sqlite:${join(dir, 'w.db')}`, readers: 0 });
  t.teardown(async () => {
    await off.close();
    rmSync(dir, { recursive: true, force: true });
  });
  t.equal(readWorkers(off.knex), undefined, 'readers 0: none');
});

t.test('a job reports the time its statement ran in the worker, without its wait in the queue', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'osr-workers-'));
  const db = await openDatabase({ url: `sqlite:${join(dir, 'w.db')}`, readers: 0 });
  const workers = createReadWorkers(join(dir, 'w.db'), { size: 1 });
  t.teardown(async () => {
    await workers.close();
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  await db.knex.raw('create table t (id text primary key)');
  const far = Date.now() + 60_000;
  const long = { sql: 'with recursive r(i) as (select 1 union all select i + 1 from r where i < 3000000) select count(*) as n from r', bindings: [], timing: { ms: 0 } };
  const quick = { sql: 'select count(*) as n from t', bindings: [], timing: { ms: 0 } };
  const started = performance.now();
  const first = workers.read(long, far);
  // One worker: the quick job waits for the long one to end.
  const second = workers.read(quick, far);
  t.same(await first, [{ n: 3000000 }], 'the long statement answers');
  t.same(await second, [{ n: 0 }], 'the queued one too');
  const waited = performance.now() - started;
  t.ok(long.timing.ms > 20, `the long statement's own time is reported (${long.timing.ms.toFixed(2)} ms)`);
  t.ok(long.timing.ms <= waited, 'and is at most the wall time');
  t.ok(quick.timing.ms < long.timing.ms / 4, `the queued statement reports its own time (${quick.timing.ms.toFixed(3)} ms), not its wait of ${waited.toFixed(1)} ms`);
});
