/**
 * Remembered reads that are always right across processes (docs/data-api.md, Remembered reads and
 * other writers; Reading your own writes), two runtimes on one PostgreSQL database:
 * - a row changed by another program (a plain pg client, as psql) reaches every process's
 *   remembered record, page, total and aggregation within the documented bound (100 ms), through
 *   the tables' change triggers (changeTriggers.ts);
 * - a write through runtime A, then reads through runtime B with the write's `X-OSR-Write-Token`:
 *   the record, its list page and its total are the written ones in 1,000 of 1,000 trials.
 * SQLite: one runtime process per file here (two processes on one file: data_version, the cluster
 * work); a write's answer carries no token and a read presenting one is answered as any other.
 */
import t from 'tap';
import { bearer, eachBackend, signIn } from '../auth/authHarness.ts';
import { tableReads, untilRemembered } from '../harness/rememberedReads.ts';
import type { TestRuntime } from '../harness/startTestRuntime.ts';

const APP = { apps: ['test/data/fixtures/fresh-app'] };
const TOKEN_HEADER = 'x-osr-write-token';
/** The documented bound for a write made by another program (docs/data-api.md). */
const BOUND_MS = 100;

interface Item { id: string; n: number; status: string; label: string }
interface Seen { record: Item; page: { items: Item[]; total: number }; groups: Array<{ status: string; c: number }> }

async function readAll(rt: TestRuntime, token: string, id: string, extra: Record<string, string> = {}): Promise<Seen> {
  const headers = { ...bearer(token), ...extra };
  const [record, page, groups] = await Promise.all([
    rt.inject({ method: 'GET', url: `/api/v1/data/fresh_item/${id}`, headers }),
    rt.inject({ method: 'GET', url: '/api/v1/data/fresh_item?orderBy=n&limit=50', headers }),
    rt.inject({ method: 'POST', url: '/api/v1/data/fresh_item/query', headers, payload: { groupBy: ['status'], aggregations: [{ function: 'count', alias: 'c' }] } }),
  ]);
  return { record: record.json() as Item, page: page.json() as Seen['page'], groups: (groups.json() as { items: Seen['groups'] }).items.map((g) => ({ status: g.status, c: Number(g.c) })).sort((l, r) => l.status.localeCompare(r.status)) };
}

t.test('a row changed by another program is read fresh by every process within the bound', async (t) => {
  await eachBackend(t, ['freshpsql'], async (t, site) => {
    if (site.backend !== 'postgres') return; // SQLite's other writers: PRAGMA data_version (the cluster work).
    const a = await site.boot({ config: APP });
    const b = await site.boot({ config: APP });
    const tokenA = (await signIn(a)).token;
    const tokenB = (await signIn(b)).token;
    const environment = site.ids[0]!;
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await a.inject({ method: 'POST', url: '/api/v1/data/fresh_item', headers: bearer(tokenA), payload: { label: `r${i}`, n: i, status: i % 2 === 0 ? 'open' : 'done' } });
      t.equal(res.statusCode, 201, `record ${i}`);
      ids.push(res.json().id as string);
    }
    const [x, y] = [ids[0]!, ids[1]!];
    // Both processes remember the record, the page with its total and the aggregation.
    for (const [name, rt, token] of [['A', a, tokenA], ['B', b, tokenB]] as const) {
      const reads = await tableReads(rt, environment, 'fresh_item');
      t.ok(await untilRemembered(() => readAll(rt, token, x), reads), `${name} answers the record, page, total and groups from memory`);
      const seen = await readAll(rt, token, x);
      t.equal(seen.record.n, 0, `${name}: the record before`);
      t.equal(seen.page.total, 6, `${name}: the total before`);
      t.same(seen.groups, [{ status: 'done', c: 3 }, { status: 'open', c: 3 }], `${name}: the groups before`);
    }
    // Another program: a plain connection, no runtime.
    await site.query(environment, 'update fresh_item set n = 999 where id = ?', [x]);
    await site.query(environment, 'delete from fresh_item where id = ?', [y]);
    const committed = performance.now();
    await new Promise((resolve) => setTimeout(resolve, BOUND_MS));
    for (const [name, rt, token] of [['A', a, tokenA], ['B', b, tokenB]] as const) {
      const seen = await readAll(rt, token, x);
      t.equal(seen.record.n, 999, `${name}: the record as changed`);
      t.equal(seen.page.total, 5, `${name}: the total without the deleted row`);
      t.same(seen.page.items.map((i) => i.n), [2, 3, 4, 5, 999], `${name}: the page as changed`);
      t.same(seen.groups, [{ status: 'done', c: 2 }, { status: 'open', c: 3 }], `${name}: the groups as changed`);
    }
    t.comment(`read fresh in both processes ${Math.round(performance.now() - committed)} ms after the commit (bound ${BOUND_MS} ms, waited before reading)`);
  });
});

t.test('schemaSync off: no trigger is created, and a table without one is never answered from memory', async (t) => {
  await eachBackend(t, ['freshoff'], async (t, site) => {
    if (site.backend !== 'postgres') return;
    const a = await site.boot({ config: APP });
    const environment = site.ids[0]!;
    const triggers = async () => (await site.query(environment, "select c.relname as name from pg_trigger g join pg_class c on c.oid = g.tgrelid join pg_namespace n on n.oid = c.relnamespace where g.tgname = 'osr_changed' and n.nspname = current_schema() and c.relname = 'fresh_item'")).length;
    t.equal(await triggers(), 1, 'a start with the schema sync on creates the trigger');
    await site.query(environment, 'drop trigger osr_changed on fresh_item');
    await a.close();
    const b = await site.boot({ config: { ...APP, plugins: { data: { schemaSync: 'off' } } } });
    t.equal(await triggers(), 0, 'a start with schemaSync off creates none: the schema is the operator\'s');
    const token = (await signIn(b)).token;
    const created = await b.inject({ method: 'POST', url: '/api/v1/data/fresh_item', headers: bearer(token), payload: { label: 'off', n: 1, status: 'open' } });
    t.equal(created.statusCode, 201, 'the runtime serves');
    const x = created.json().id as string;
    for (let i = 0; i < 5; i++) {
      await readAll(b, token, x);
      await readAll(b, token, x);
      await site.query(environment, 'update fresh_item set n = ? where id = ?', [100 + i, x]);
      const seen = await readAll(b, token, x);
      t.same([seen.record.n, seen.page.items[0]?.n], [100 + i, 100 + i], `round ${i}: another program's change is read at once (nothing remembered)`);
    }
  });
});

t.test('a write through one process, read through another with its token: 1,000 of 1,000 trials', async (t) => {
  await eachBackend(t, ['freshtoken'], async (t, site) => {
    const a = await site.boot({ config: APP });
    const b = await site.boot({ config: APP });
    const tokenA = (await signIn(a)).token;
    const tokenB = (await signIn(b)).token;
    const created = await a.inject({ method: 'POST', url: '/api/v1/data/fresh_item', headers: bearer(tokenA), payload: { label: 'x', n: -1, status: 'open' } });
    t.equal(created.statusCode, 201, 'the record every trial updates');
    const x = created.json().id as string;
    if (site.backend === 'sqlite') {
      // One process per file: nothing to carry; a presented token changes nothing.
      t.equal(created.headers[TOKEN_HEADER], undefined, 'SQLite: no token on the write answer');
      const seen = await readAll(a, tokenA, x, { [TOKEN_HEADER]: 'AAAAAAAAAAAA.1' });
      t.equal(seen.record.n, -1, 'a read with a token is answered');
      return;
    }
    t.match(created.headers[TOKEN_HEADER], /^[A-Za-z0-9_-]+\.\d+$/, 'PostgreSQL: the write answer carries the token');
    const trials = 1000;
    let fresh = 0;
    const stale: string[] = [];
    for (let i = 0; i < trials; i++) {
      // B remembers the record, the page and its total (and in most trials still does when it reads again).
      await readAll(b, tokenB, x);
      const updated = await a.inject({ method: 'PATCH', url: `/api/v1/data/fresh_item/${x}`, headers: bearer(tokenA), payload: { n: i } });
      const added = await a.inject({ method: 'POST', url: '/api/v1/data/fresh_item', headers: bearer(tokenA), payload: { label: `t${i}`, n: 1_000_000 + i, status: 'done' } });
      if (updated.statusCode !== 200 || added.statusCode !== 201) throw new Error(`trial ${i}: the writes answered ${updated.statusCode} and ${added.statusCode}`);
      const token = added.headers[TOKEN_HEADER] as string;
      const seen = await readAll(b, tokenB, x, { [TOKEN_HEADER]: token });
      const onPage = seen.page.items.find((item) => item.id === x);
      if (seen.record.n === i && onPage?.n === i && seen.page.total === i + 2 && seen.groups.find((g) => g.status === 'done')?.c === i + 1) fresh++;
      else if (stale.length < 5) stale.push(`trial ${i}: record ${seen.record.n}, page ${String(onPage?.n)}, total ${seen.page.total}, done ${String(seen.groups.find((g) => g.status === 'done')?.c)}`);
    }
    t.equal(fresh, trials, `every read through B with A's token saw the write${stale.length > 0 ? ` (${stale.join('; ')})` : ''}`);
  });
});
