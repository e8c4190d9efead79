/**
 * SQLite: what another connection commits to the file reaches the remembered totals, pages and
 * aggregations of this process (fileChanges.ts, `PRAGMA data_version` on the writer connection):
 * another program's connection, and the auth engine's own connection in this process. The look
 * is taken only where a remembered answer may serve the read: never for reads by id (they read
 * the file), inside a transaction, or with `plugins.data.countCache: 'off'`.
 */
import Database from 'better-sqlite3';
import t, { type Test } from 'tap';
import type { DataContext, DataEngine } from '../../capabilities/dataEngine.ts';
import { signIn, sqliteSite, type Site } from '../auth/authHarness.ts';
import { tableReads, untilRemembered } from '../harness/rememberedReads.ts';

const APP = { apps: ['test/data/fixtures/nested-app'] };

/** Counts the runs of `PRAGMA data_version` in this process (every better-sqlite3 statement shares one prototype). */
function countLooks(t: Test): { looks: number } {
  const probe = new Database(':memory:');
  const proto = Object.getPrototypeOf(probe.prepare('select 1')) as { get: (...args: unknown[]) => unknown };
  probe.close();
  const original = proto.get;
  const counter = { looks: 0 };
  proto.get = function (this: { source: string }, ...args: unknown[]) {
    if (/^pragma data_version$/i.test(this.source.trim())) counter.looks++;
    return original.apply(this, args);
  };
  t.teardown(() => {
    proto.get = original;
  });
  return counter;
}

async function boot(t: Test, site: Site, plugins: Record<string, unknown> = {}) {
  const rt = await site.boot({ config: { ...APP, plugins: { email: { enabled: false }, ...plugins } } });
  const environment = site.ids[0]!;
  const engine = rt.runtime.kernel.service<DataEngine>('data.engine')!;
  const system: DataContext = { environmentId: environment, principal: null, system: true };
  const codes = async () => {
    const page = await engine.query('tag', { orderBy: 'code', limit: 10 }, system);
    return { codes: page.items.map((r) => r.code), total: page.total };
  };
  return { rt, environment, engine, system, codes };
}

t.test('a row written through another connection to the file is read at once', async (t) => {
  const site = sqliteSite(t, ['otherconn']);
  const { rt, environment, engine, system, codes } = await boot(t, site);
  await engine.create('tag', { code: 'a' }, system);
  const groups = async () => (await engine.query('tag', { groupBy: ['code'], aggregations: [{ function: 'count', alias: 'n' }], orderBy: 'code' }, system)).items;
  const reads = await tableReads(rt, environment, 'tag');
  t.ok(await untilRemembered(codes, reads), 'the page and its total are answered from memory');
  t.ok(await untilRemembered(groups, reads), 'so are the groups');
  const row = (await site.query(environment, 'select * from tag'))[0]!;
  await site.query(environment, 'insert into tag (id, code, created_at, updated_at, version) values (?, ?, ?, ?, 1)', ['other-1', 'b', row.created_at, row.updated_at]);
  t.same(await codes(), { codes: ['a', 'b'], total: 2 }, 'the page and total after the other connection\'s insert');
  t.same(await groups(), [{ code: 'a', n: 1 }, { code: 'b', n: 1 }], 'the groups after it');
});

t.test('a write through the auth engine\'s connection makes the process forget what it remembered', async (t) => {
  const site = sqliteSite(t, ['authconn']);
  // Without the audit trail a sign-in writes nothing through the engine: only the auth connection writes.
  const { rt, environment, engine, system, codes } = await boot(t, site, { audit: { enabled: false } });
  await engine.create('tag', { code: 'a' }, system);
  const reads = await tableReads(rt, environment, 'tag');
  const after: number[] = [];
  for (let i = 0; i < 3; i++) {
    t.ok(await untilRemembered(codes, reads), `round ${i}: the page is answered from memory`);
    reads.length = 0;
    // A sign-in stores a session through the auth engine's own connection to the file.
    await signIn(rt);
    t.same(await codes(), { codes: ['a'], total: 1 }, `round ${i}: the same page`);
    after.push(reads.length);
  }
  t.ok(after.every((n) => n > 0), `every read after a sign-in read the file again (statements: ${after.join(', ')})`);
});

t.test('the file is looked at only for reads a remembered answer may serve', async (t) => {
  await t.test('remembered reads on', async (t) => {
    const site = sqliteSite(t, ['lookson']);
    const { engine, system, codes } = await boot(t, site);
    const tag = await engine.create('tag', { code: 'a' }, system);
    const counter = countLooks(t);
    for (let i = 0; i < 10; i++) t.equal((await engine.get('tag', String(tag.id), {}, system)).code, 'a', `read by id ${i}`);
    t.equal(counter.looks, 0, 'reads by id look at nothing');
    await engine.transaction(system, async (tx) => {
      for (let i = 0; i < 5; i++) t.same((await tx.query('tag', { orderBy: 'code', limit: 10 }, system)).items.map((r) => r.code), ['a'], `a list in a transaction ${i}`);
    });
    t.equal(counter.looks, 0, 'lists inside a transaction look at nothing');
    t.same(await codes(), { codes: ['a'], total: 1 }, 'a list outside one');
    t.equal(counter.looks, 1, 'looks once');
  });
  await t.test("countCache: 'off'", async (t) => {
    const site = sqliteSite(t, ['looksoff']);
    const { engine, system, codes } = await boot(t, site, { data: { countCache: 'off' } });
    const tag = await engine.create('tag', { code: 'a' }, system);
    const counter = countLooks(t);
    for (let i = 0; i < 5; i++) {
      t.same(await codes(), { codes: ['a'], total: 1 }, `list ${i}`);
      t.equal((await engine.get('tag', String(tag.id), {}, system)).code, 'a', `read by id ${i}`);
    }
    t.equal(counter.looks, 0, 'nothing remembered, nothing looked at');
  });
});
