/** plugins.data.autoIndex: the advised index is built after a slow read, at most autoIndexMax per object; off by default. */
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { eachBackend, signIn } from '../auth/authHarness.ts';
import { sendAs } from '../access/accessWorld.ts';
import { TICKETS_APP } from './adviceFixtures.ts';

const q = (where: unknown, orderBy: string) => `/api/v1/data/ticket?where=${encodeURIComponent(JSON.stringify(where))}&orderBy=${orderBy}&limit=50`;

async function autoIndexes(site: { query(id: string, sql: string): Promise<Array<Record<string, unknown>>>; backend: string; ids: string[] }): Promise<string[]> {
  const rows = site.backend === 'postgres'
    ? await site.query(site.ids[0]!, "select indexname as name from pg_indexes where tablename = 'ticket' and schemaname = current_schema() and indexname like 'osr_auto_%' order by 1")
    : await site.query(site.ids[0]!, "select name from sqlite_master where type = 'index' and tbl_name = 'ticket' and name like 'osr_auto_%' order by 1");
  return rows.map((r) => String(r.name));
}

async function until(check: () => Promise<boolean>, ms = 5000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

await eachBackend(t, [`autoidx-${randomBytes(3).toString('hex')}`], async (t, site) => {
  const off = await site.boot({ config: { apps: [TICKETS_APP], plugins: { data: { slowQueryMs: 0 } } } });
  const admin = await signIn(off);
  t.equal((await sendAs(off, admin.token, 'GET', q({ status: 'open', priority: { $gte: 4 } }, '-priority,due_date'))).status, 200);
  await new Promise((resolve) => setTimeout(resolve, 300));
  t.same(await autoIndexes(site), [], 'off by default: nothing built');
  await off.close();

  const rt = await site.boot({ config: { apps: [TICKETS_APP], plugins: { data: { slowQueryMs: 0, autoIndex: true, autoIndexMax: 1 } } } });
  const token = (await signIn(rt)).token;
  t.equal((await sendAs(rt, token, 'GET', q({ status: 'open', priority: { $gte: 4 } }, '-priority,due_date'))).status, 200);
  t.ok(await until(async () => (await autoIndexes(site)).length === 1), 'the advised index is built after the read');
  const [built] = await autoIndexes(site);
  t.match(built, /^osr_auto_ticket_[0-9a-f]{8}$/);
  const advice = await sendAs(rt, token, 'GET', '/api/v1/metrics/index-advice');
  t.same(advice.body.items, [], 'and the advice is served now');

  t.equal((await sendAs(rt, token, 'GET', q({ title: 'x', priority: { $lte: 2 } }, 'due_date'))).status, 200);
  await new Promise((resolve) => setTimeout(resolve, 500));
  t.same(await autoIndexes(site), [built], 'autoIndexMax 1: no second automatic index on the object');
  const pending = await sendAs(rt, token, 'GET', '/api/v1/metrics/index-advice');
  t.same(pending.body.items.map((a: { columns: string[] }) => a.columns), [['title', 'due_date', 'priority']], 'the second shape stays advised');
});
