/**
 * plugins.data.autoIndexUnusedDays: an automatic index no read used for the period is dropped (by the
 * data.autoIndexSweep job, and at start); one still used is kept; a declared index never is, even
 * when the record of automatic indexes names it.
 */
import { randomBytes } from 'node:crypto';
import t from 'tap';
import type { DataIndexAdvice } from '../../capabilities/dataIndexAdvice.ts';
import type { JobsQueue } from '../../capabilities/jobsQueue.ts';
import { AUTO_INDEX_SWEEP_JOB } from '../../plugins/data/sweep/index.ts';
import { eachBackend, signIn, type Site } from '../auth/authHarness.ts';
import { sendAs } from '../access/accessWorld.ts';
import { TICKETS_APP } from './adviceFixtures.ts';

const DAY = 86_400_000;
const q = (where: unknown, orderBy: string) => `/api/v1/data/ticket?where=${encodeURIComponent(JSON.stringify(where))}&orderBy=${orderBy}&limit=50`;
const BY_STATUS = q({ status: 'open', priority: { $gte: 4 } }, '-priority,due_date');
const BY_TITLE = q({ title: 'x', priority: { $lte: 2 } }, 'due_date');

async function ticketIndexes(site: Site): Promise<string[]> {
  const rows = site.backend === 'postgres'
    ? await site.query(site.ids[0]!, "select indexname as name from pg_indexes where tablename = 'ticket' and schemaname = current_schema() order by 1")
    : await site.query(site.ids[0]!, "select name from sqlite_master where type = 'index' and tbl_name = 'ticket' and name not like 'sqlite_%' order by 1");
  return rows.map((r) => String(r.name)).filter((name) => name !== 'ticket_pkey');
}

async function records(site: Site): Promise<Array<{ name: string; columns: string[]; used: boolean }>> {
  const rows = await site.query(site.ids[0]!, 'select name, columns, last_used_at from osr_auto_index order by name');
  return rows.map((r) => ({ name: String(r.name), columns: JSON.parse(String(r.columns)) as string[], used: r.last_used_at !== null }));
}

async function until(check: () => Promise<boolean>, ms = 10_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

await eachBackend(t, [`autoidx-unused-${randomBytes(3).toString('hex')}`], async (t, site) => {
  const env = site.ids[0]!;
  const config = { apps: [TICKETS_APP], plugins: { data: { slowQueryMs: 0, autoIndex: true, autoIndexMax: 3, autoIndexUnusedDays: 7 } } };
  const rt = await site.boot({ config });
  const token = (await signIn(rt)).token;
  const declared = await ticketIndexes(site);
  t.ok(declared.includes('ix_ticket__status'), 'the declared index on status is there');

  t.equal((await sendAs(rt, token, 'GET', BY_STATUS)).status, 200);
  t.ok(await until(async () => (await records(site)).length === 1), 'the first automatic index is built and recorded');
  t.equal((await sendAs(rt, token, 'GET', BY_TITLE)).status, 200);
  t.ok(await until(async () => (await records(site)).length === 2), 'the second one too');
  const built = await records(site);
  const indexes = await ticketIndexes(site);
  t.same(indexes.filter((n) => n.startsWith('osr_auto_')), built.map((r) => r.name), 'the record names exactly the automatic indexes built');
  t.same(built.map((r) => r.used), [false, false], 'neither is used yet');

  // Both built 30 days ago as far as the record goes; a declared index slipped into the record too.
  await site.query(env, 'update osr_auto_index set built_at = ?', [Date.now() - 30 * DAY]);
  await site.query(env, 'insert into osr_auto_index (name, object, columns, built_at, last_used_at, scans) values (?, ?, ?, ?, ?, ?)',
    ['ix_ticket__status', 'ticket', '["status"]', Date.now() - 30 * DAY, null, 0]);
  // The status read uses the index leading with status; nothing reads by title any more.
  t.equal((await sendAs(rt, token, 'GET', BY_STATUS)).status, 200);
  const advice = rt.runtime.kernel.service<DataIndexAdvice>('data.indexAdvice')!;
  const jobs = rt.runtime.kernel.service<JobsQueue>('jobs.queue')!;
  const job = await jobs.add(AUTO_INDEX_SWEEP_JOB, undefined, { environmentId: env });
  t.ok(await until(async () => (await jobs.get(job.id, env))?.state === 'completed'), 'the sweep job runs');
  const after = await ticketIndexes(site);
  const left = await records(site);
  t.equal(left.length, 1, 'one automatic index is left');
  const kept = left[0]!;
  t.same(kept.columns, ['status', 'priority', 'due_date'], 'the one kept leads with status, which the read after the backdating fixes');
  t.ok(kept.used, 'and is recorded as used');
  const dropped = built.map((r) => r.name).filter((n) => n !== kept.name);
  t.equal(dropped.length, 1, 'and the other was dropped');
  t.notOk(after.includes(dropped[0]!), 'the index unused for 30 days is gone from the database');
  t.ok(after.includes(kept.name), 'the used one is still there');
  t.same(after.filter((n) => !n.startsWith('osr_auto_')), declared, 'every declared index is still there, the one the record named included');
  t.notOk(left.some((r) => r.name === 'ix_ticket__status'), 'and the record of it is gone');
  t.same((await advice.sweepUnused(env)).dropped, [], 'a second sweep drops nothing');
  await rt.close();

  // At start: the index left unused since 30 days (PostgreSQL: no scan since the last sweep either) is dropped.
  await site.query(env, 'update osr_auto_index set built_at = ?, last_used_at = ?, scans = ?', [Date.now() - 40 * DAY, Date.now() - 30 * DAY, 2 ** 40]);
  const again = await site.boot({ config });
  t.same(await records(site), [], 'no automatic index is recorded after the start');
  t.same(await ticketIndexes(site), declared, 'only the declared indexes are left');
  t.same((await again.runtime.kernel.service<DataIndexAdvice>('data.indexAdvice')!.sweepUnused(env)), { dropped: [], kept: [] });
});
