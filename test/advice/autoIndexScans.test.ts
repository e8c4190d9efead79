/** PostgreSQL: an automatic index whose idx_scan grew since the last sweep counts as used, even when no engine read noted it. */
import { randomBytes } from 'node:crypto';
import t from 'tap';
import type { DataIndexAdvice } from '../../capabilities/dataIndexAdvice.ts';
import { eachBackend, signIn } from '../auth/authHarness.ts';
import { sendAs } from '../access/accessWorld.ts';
import { TICKETS_APP } from './adviceFixtures.ts';

const DAY = 86_400_000;
const BY_STATUS = `/api/v1/data/ticket?where=${encodeURIComponent(JSON.stringify({ status: 'open', priority: { $gte: 4 } }))}&orderBy=-priority,due_date&limit=50`;

await eachBackend(t, [`autoidx-scans-${randomBytes(3).toString('hex')}`], async (t, site) => {
  if (site.backend !== 'postgres') {
    t.pass('SQLite keeps no index statistics: uses come from the engine only (autoIndexUnused.test.ts)');
    return;
  }
  const env = site.ids[0]!;
  const rt = await site.boot({ config: { apps: [TICKETS_APP], plugins: { data: { slowQueryMs: 0, autoIndex: true } } } });
  const token = (await signIn(rt)).token;
  t.equal((await sendAs(rt, token, 'GET', BY_STATUS)).status, 200);
  const advice = rt.runtime.kernel.service<DataIndexAdvice>('data.indexAdvice')!;
  let name = '';
  for (let i = 0; i < 100 && name === ''; i++) {
    name = String((await site.query(env, 'select name from osr_auto_index'))[0]?.name ?? '');
    if (name === '') await new Promise((resolve) => setTimeout(resolve, 50));
  }
  t.match(name, /^osr_auto_ticket_/, 'the automatic index is built');
  await site.query(env, 'update osr_auto_index set built_at = ?', [Date.now() - 30 * DAY]);
  // A read outside the engine, made to take the automatic index; the backend's statistics are flushed when it ends.
  await site.query(env, `select id from (select set_config('enable_seqscan', 'off', false), set_config('enable_bitmapscan', 'off', false)) s, lateral (select id from ticket where status = 'open' and priority >= 4 order by priority desc nulls last, due_date asc nulls first, id limit 50) x`);
  let scans = 0;
  for (let i = 0; i < 100 && scans === 0; i++) {
    scans = Number((await site.query(env, 'select idx_scan from pg_stat_user_indexes where indexrelname = ?', [name]))[0]?.idx_scan ?? 0);
    if (scans === 0) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  t.ok(scans > 0, `PostgreSQL counts the scan (${scans})`);
  t.same((await advice.sweepUnused(env)).dropped, [], 'the scanned index is kept');
  const row = (await site.query(env, 'select last_used_at, scans from osr_auto_index where name = ?', [name]))[0]!;
  t.ok(Number(row.last_used_at) > Date.now() - DAY, 'its last use is now');
  t.equal(Number(row.scans), scans, 'and the scan count is kept for the next sweep');
});
