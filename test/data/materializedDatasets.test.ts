/**
 * Materialized datasets (docs/datasets.md, Materialized), on each backend: the counts a dataset
 * declares are kept by the database in its rollup table, right whoever writes (the engine, a plain
 * SQL client inserting, updating, deleting; the trash), and group counts and list totals that test
 * only its dimensions are read from it (shown by a row written into the rollup table alone, which
 * such answers then count and others do not). A caller with a row scope on another field is
 * answered from the rows. Folding the rollup's delta rows keeps every answer.
 */
import { Writable } from 'node:stream';
import pg from 'pg';
import pino from 'pino';
import t from 'tap';
import { POSTGRES_URL } from '../harness/databases.ts';
import { addUser } from '../access/accessWorld.ts';
import { bearer, eachBackend, signIn } from '../auth/authHarness.ts';
import type { TestRuntime } from '../harness/startTestRuntime.ts';

const APP = { apps: ['test/data/fixtures/rollup-app'] };
const ROLLUP = 'osr_rollup_ticket_counts';
const STATUSES = ['open', 'pending', 'done'];

/** A logger whose lines land in `lines`. */
function linesLogger(lines: string[]): pino.Logger {
  return pino({ level: 'info', base: undefined }, new Writable({ write(chunk, _encoding, done) { lines.push(String(chunk)); done(); } }));
}

type Group = Record<string, unknown> & { n: number };

async function groups(rt: TestRuntime, token: string, groupBy: string[], where?: Record<string, unknown>): Promise<Group[]> {
  const res = await rt.inject({ method: 'POST', url: '/api/v1/data/ticket/query', headers: bearer(token), payload: { ...(where ? { where } : {}), groupBy, aggregations: [{ function: 'count', alias: 'n' }], orderBy: groupBy } });
  if (res.statusCode !== 200) throw new Error(`query: ${res.statusCode} ${res.body}`);
  return (res.json().items as Group[]).map((g) => ({ ...g, n: Number(g.n) }));
}

async function total(rt: TestRuntime, token: string, query: string): Promise<number> {
  const res = await rt.inject({ method: 'GET', url: `/api/v1/data/ticket?limit=1&${query}`, headers: bearer(token) });
  if (res.statusCode !== 200) throw new Error(`list: ${res.statusCode} ${res.body}`);
  return Number(res.json().total);
}

/** The same counts from the rows themselves (live rows only). */
function truth(rows: Array<{ status: string | null; priority: number | null }>, groupBy: Array<'status' | 'priority'>, keep: (r: { status: string | null; priority: number | null }) => boolean = () => true): Group[] {
  const counts = new Map<string, Group>();
  for (const row of rows.filter(keep)) {
    const key = JSON.stringify(groupBy.map((g) => row[g]));
    const group = counts.get(key) ?? { ...Object.fromEntries(groupBy.map((g) => [g, row[g]])), n: 0 };
    group.n++;
    counts.set(key, group);
  }
  const order = (v: unknown) => (v === null ? '' : typeof v === 'number' ? String(v).padStart(6, '0') : `~${String(v)}`);
  return [...counts.values()].sort((a, b) => {
    for (const g of groupBy) {
      const x = order(a[g]);
      const y = order(b[g]);
      if (x !== y) return x < y ? -1 : 1;
    }
    return 0;
  });
}

t.test('a materialized dataset\'s counts are kept by the database and answer group counts and totals', async (t) => {
  await eachBackend(t, ['rollups'], async (t, site) => {
    const rt = await site.boot({ config: APP });
    const env = site.ids[0]!;
    const admin = (await signIn(rt)).token;
    const ann = await addUser(rt, admin, 'AnnRollup');
    t.same(await site.query(env, `select count(*) as n from ${ROLLUP}`).then((r) => Number(r[0]!.n)), 0, 'the rollup table is made at boot, empty');

    const ids: string[] = [];
    for (let i = 0; i < 30; i++) {
      const res = await rt.inject({ method: 'POST', url: '/api/v1/data/ticket', headers: bearer(i % 5 === 0 ? ann.token : admin), payload: { title: `T${i}`, status: STATUSES[i % 3], ...(i % 7 === 0 ? {} : { priority: i % 4 }), notes: 'x' } });
      t.equal(res.statusCode, 201, `ticket ${i}`);
      ids.push(String(res.json().id));
    }
    // Through the engine: an update that moves a ticket, one that does not, a delete to the trash, a restore.
    t.equal((await rt.inject({ method: 'PATCH', url: `/api/v1/data/ticket/${ids[1]}`, headers: bearer(admin), payload: { status: 'done', priority: 3 } })).statusCode, 200);
    t.equal((await rt.inject({ method: 'PATCH', url: `/api/v1/data/ticket/${ids[2]}`, headers: bearer(admin), payload: { title: 'renamed' } })).statusCode, 200);
    t.equal((await rt.inject({ method: 'DELETE', url: `/api/v1/data/ticket/${ids[3]}`, headers: bearer(admin) })).statusCode, 204);
    t.equal((await rt.inject({ method: 'DELETE', url: `/api/v1/data/ticket/${ids[4]}`, headers: bearer(admin) })).statusCode, 204);
    t.equal((await rt.inject({ method: 'POST', url: `/api/v1/data/ticket/${ids[4]}/restore`, headers: bearer(admin) })).statusCode, 200);
    // Another program: rows copied in, changed and removed with plain SQL.
    await site.query(env, `insert into ticket (id, version, created_at, updated_at, created_by, updated_by, owner_id, title, status, priority) select id || 'x', 1, created_at, updated_at, created_by, updated_by, owner_id, title, 'pending', 9 from ticket where id in (?, ?, ?)`, [ids[5], ids[6], ids[7]]);
    await site.query(env, `update ticket set status = 'open', priority = null where id in (?, ?)`, [ids[8], ids[9]]);
    await site.query(env, 'delete from ticket where id = ?', [ids[10]]);

    const rows = (await site.query(env, 'select status, priority from ticket where deleted_at is null')).map((r) => ({ status: r.status as string | null, priority: r.priority === null ? null : Number(r.priority) }));
    t.equal(rows.length, 31, '30 made, 3 copied in, one trashed, one deleted');
    const check = async (token: string, seen: typeof rows, label: string) => {
      t.same(await groups(rt, token, ['status']), truth(seen, ['status']), `${label}: counts by status`);
      t.same(await groups(rt, token, ['status', 'priority']), truth(seen, ['status', 'priority']), `${label}: by status and priority`);
      t.same(await groups(rt, token, ['priority'], { status: 'open' }), truth(seen, ['priority'], (r) => r.status === 'open'), `${label}: by priority, filtered on status`);
      t.same(await groups(rt, token, ['status'], { priority: { $gte: 2 } }), truth(seen, ['status'], (r) => r.priority !== null && r.priority >= 2), `${label}: by status, filtered on priority`);
      t.equal(await total(rt, token, `where=${encodeURIComponent(JSON.stringify({ status: 'pending' }))}`), seen.filter((r) => r.status === 'pending').length, `${label}: a list's total`);
    };
    await check(admin, rows, 'the admin');
    const annRows = (await site.query(env, 'select status, priority from ticket where deleted_at is null and owner_id = ?', [ann.id])).map((r) => ({ status: r.status as string | null, priority: r.priority === null ? null : Number(r.priority) }));
    t.ok(annRows.length > 0 && annRows.length < rows.length, 'the member owns some tickets');
    await check(ann.token, annRows, 'a member (row scope: her own)');

    // A row only the rollup holds: answers read from the rollup count it, the others do not.
    await site.query(env, `insert into ${ROLLUP} (status, priority, __n) values ('zzz', 1, 5)`);
    // (Queries not asked before: nothing remembered answers them, as no write to ticket told of this row.)
    t.same((await groups(rt, admin, ['status'], { priority: { $gte: -1000 } })).find((g) => g.status === 'zzz'), { status: 'zzz', n: 5 }, 'the admin\'s group counts are read from the rollup');
    t.equal(await total(rt, admin, `where=${encodeURIComponent(JSON.stringify({ status: 'zzz' }))}`), 5, 'and a list\'s total');
    t.same(await groups(rt, ann.token, ['status'], { priority: { $gte: -1000 } }), truth(annRows, ['status'], (r) => r.priority !== null), 'a member whose scope tests the owner is answered from the rows');
    t.same((await groups(rt, admin, ['title'], { status: 'zzz' })), [], 'a group count by a field the rollup does not keep reads the rows');
    await site.query(env, `delete from ${ROLLUP} where status = 'zzz'`);

    // Enough delta rows to be folded (sql/foldRollups.ts: every 2 s, once grown past twice the
    // folded size and 64): batches of updates, each followed by a pause long enough for a fold,
    // until one is seen with nothing written meanwhile. (A fold may also come during a batch.)
    const rollupRows = async () => Number((await site.query(env, `select count(*) as n from ${ROLLUP}`))[0]!.n);
    let grown = 0;
    let folded = 0;
    for (let batch = 0; batch < 20 && folded === 0; batch++) {
      for (let i = 0; i < 20; i++) await site.query(env, 'update ticket set priority = ? where id = ?', [i % 2, ids[11]]);
      grown = await rollupRows();
      for (let i = 0; i < 30 && folded === 0; i++) {
        await new Promise((r) => setTimeout(r, 100));
        const now = await rollupRows();
        if (now < grown) folded = now;
      }
    }
    t.ok(folded > 0 && folded < grown, `the rollup's delta rows are folded (${grown} -> ${folded})`);
    const after = (await site.query(env, 'select status, priority from ticket where deleted_at is null')).map((r) => ({ status: r.status as string | null, priority: r.priority === null ? null : Number(r.priority) }));
    await check(admin, after, 'after folding');
    const distinct = Number((await site.query(env, 'select count(*) as n from (select distinct status, priority from ticket where deleted_at is null) q'))[0]!.n);
    t.equal(folded, distinct, 'one row per combination the rows hold');

    if (site.backend === 'postgres') {
      // A session whose search_path does not name the environment's schema: the triggers still find the rollup.
      const client = new pg.Client({ connectionString: POSTGRES_URL });
      await client.connect();
      try {
        await client.query(`update "env_${env.replace(/-/g, '_')}".ticket set status = 'done' where id = $1`, [ids[12]]);
      } finally {
        await client.end();
      }
    }
    await rt.close();

    // Another boot, nothing changed: nothing is made again, the counts hold.
    const logs: string[] = [];
    const again = await site.boot({ config: APP, logger: linesLogger(logs) });
    const adminAgain = (await signIn(again)).token;
    t.notOk(logs.some((l) => l.includes('counts of materialized dataset ticket_counts kept')), 'an unchanged rollup is not made again');
    const rowsAgain = (await site.query(env, 'select status, priority from ticket where deleted_at is null')).map((r) => ({ status: r.status as string | null, priority: r.priority === null ? null : Number(r.priority) }));
    t.same(await groups(again, adminAgain, ['status', 'priority']), truth(rowsAgain, ['status', 'priority']), 'counts after another boot (and a write from another search_path)');
    await again.close();

    // A trigger lost (a table rebuilt by hand, say): the next boot makes the rollup again, counted afresh.
    await site.query(env, site.backend === 'postgres' ? 'drop trigger osr_rollup_ticket_counts_ins on ticket' : 'drop trigger osr_rollup_ticket_counts_ins');
    await site.query(env, `insert into ticket (id, version, created_at, updated_at, created_by, updated_by, owner_id, title, status, priority) select id || 'y', 1, created_at, updated_at, created_by, updated_by, owner_id, title, 'open', 1 from ticket where id = ?`, [ids[13]]);
    const logs2: string[] = [];
    const third = await site.boot({ config: APP, logger: linesLogger(logs2) });
    t.ok(logs2.some((l) => l.includes('counts of materialized dataset ticket_counts kept')), 'a rollup missing a trigger is made again');
    const rowsThird = (await site.query(env, 'select status, priority from ticket where deleted_at is null')).map((r) => ({ status: r.status as string | null, priority: r.priority === null ? null : Number(r.priority) }));
    t.same(await groups(third, (await signIn(third)).token, ['status', 'priority']), truth(rowsThird, ['status', 'priority']), 'with the rows written while it lacked the trigger');
  });
});
