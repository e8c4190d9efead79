import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { isCodedError } from '../../kernel/errors.ts';
import { openDatabase } from '../../plugins/data/sql/openDatabase.ts';
import { directReader } from '../../plugins/data/sql/sqliteReader.ts';
import { SQLITE_PAGE_CACHE_KB } from '../../plugins/data/sql/sqlitePageCacheKb.ts';
import { POSTGRES_URL, databaseCases } from '../harness/databases.ts';

t.test('sqlite: WAL, foreign keys, busy timeout, page cache, outer joins available', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'osr-open-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const db = await openDatabase({ url: `sqlite:${join(dir, 'app.db')}`, busyTimeoutMs: 1234 });
  t.teardown(() => db.close());
  t.equal(db.dialect, 'sqlite');
  t.equal(db.schema, null);
  const pragma = async (name: string) => Object.values(((await db.knex.raw(`pragma ${name}`)) as Array<Record<string, unknown>>)[0]!)[0];
  t.equal(await pragma('journal_mode'), 'wal');
  t.equal(await pragma('foreign_keys'), 1);
  t.equal(await pragma('busy_timeout'), 1234);
  t.equal(await pragma('cache_size'), -SQLITE_PAGE_CACHE_KB, `a page cache of ${SQLITE_PAGE_CACHE_KB} KiB, not better-sqlite3's 16 MB`);
  const [major, minor] = db.serverVersion.split('.').map(Number) as [number, number];
  t.ok(major > 3 || minor >= 39, `SQLite ${db.serverVersion} has RIGHT and FULL JOIN`);
});

t.test('sqlite: the file reader gives named rows, follows schema changes, and later columns of one name win', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'osr-open-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const db = await openDatabase({ url: `sqlite:${join(dir, 'app.db')}` });
  t.teardown(() => db.close());
  const read = directReader(db.knex)!;
  t.ok(read, 'a file database has a direct reader');
  await db.knex.raw('create table t (a integer, b text)');
  await db.knex.raw("insert into t values (1, 'x'), (2, 'y')");
  const all = { sql: 'select * from t order by a', bindings: [] };
  t.same(read(all), [{ a: 1, b: 'x' }, { a: 2, b: 'y' }]);
  await db.knex.raw('alter table t add column c text');
  await db.knex.raw("update t set c = 'z' where a = 2");
  t.same(read(all), [{ a: 1, b: 'x', c: null }, { a: 2, b: 'y', c: 'z' }], 'the re-prepared statement is read with its new columns');
  t.same(read({ sql: 'select a as n, b as n from t where a = ?', bindings: [2] }), [{ n: 'y' }]);
  t.same(read({ sql: 'select a from t where a > ?', bindings: [5] }), []);
});

t.test('sqlite: the directory of the file is made when missing, and one that cannot be is a configuration error', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'osr-open-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const db = await openDatabase({ url: `sqlite:${join(dir, 'data', 'nested', 'app.db')}` });
  t.teardown(() => db.close());
  await db.knex.raw('create table t (a integer)');
  t.ok(existsSync(join(dir, 'data', 'nested', 'app.db')), 'the database file is in the new directory');
  writeFileSync(join(dir, 'plain-file'), 'not a directory');
  const error = await openDatabase({ url: `sqlite:${join(dir, 'plain-file', 'app.db')}` }).catch((e: unknown) => e);
  t.ok(isCodedError(error) && error.code === 'CONFIG_INVALID', 'a path through a file is refused with a coded error');
  t.match((error as Error).message, /cannot create the directory/);
});

t.test('sqlite::memory: works', async (t) => {
  const db = await openDatabase({ url: 'sqlite::memory:' });
  t.teardown(() => db.close());
  t.same(await db.knex.raw('select 1 + 1 as two'), [{ two: 2 }]);
});

t.test('an unknown URL is a configuration error', async (t) => {
  const error = await openDatabase({ url: 'mysql://root:secret@localhost/db' }).catch((e: unknown) => e);
  t.ok(isCodedError(error) && error.code === 'CONFIG_INVALID');
  t.notMatch(String((error as Error).message), /secret/, 'the password is not echoed');
});

t.test('a bad schema name is refused', async (t) => {
  const error = await openDatabase({ url: POSTGRES_URL, schema: 'x; drop schema public' }).catch((e: unknown) => e);
  t.ok(isCodedError(error) && error.code === 'CONFIG_INVALID');
});

const pg = (await databaseCases()).find((c) => c.name === 'postgres')!;
t.test('postgres: the schema is created and is the search path', { skip: pg.skip }, async (t) => {
  const db = await pg.open(t);
  t.equal(db.dialect, 'postgres');
  const current = (await db.knex.raw('select current_schema() as s')) as { rows: Array<{ s: string }> };
  t.equal(current.rows[0]!.s, db.schema);
  await db.knex.schema.createTable('probe', (table) => table.text('id'));
  const where = (await db.knex.raw(`select table_schema from information_schema.tables where table_name = 'probe'`)) as { rows: Array<{ table_schema: string }> };
  t.same(where.rows.map((r) => r.table_schema), [db.schema]);
});
