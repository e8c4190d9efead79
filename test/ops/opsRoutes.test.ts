/**
 * The operators' routes, on SQLite and PostgreSQL: GET /jobs (counts, dead letters and their last
 * error), GET /jobs/:id and POST /jobs/:id/retry (a dead job runs again and completes), GET
 * /automation/deliveries (accepted inbound hook deliveries, newest first, paged), GET
 * /lifecycle/dry-run (what each contract would remove, nothing removed) and GET /plugins (as
 * `osr plugins` shows them). Admins only: a member is refused every one with 403, an anonymous
 * caller with 401, and learns nothing of what they hold.
 */
import t from 'tap';
import type { DataDatabase } from '../../capabilities/dataDatabase.ts';
import type { JobsQueue } from '../../capabilities/jobsQueue.ts';
import { signPayload } from '../../plugins/automation/verifySignature.ts';
import { bearer, eachBackend, signIn } from '../auth/authHarness.ts';
import opsProbe, { FLAKY_ERROR, FLAKY_JOB } from '../console/fixtures/ops-probe/index.ts';
import { waitFor } from '../jobs/jobsHarness.ts';

const SECRET = 'ops-hook-secret-for-tests';
process.env.OSR_TEST_OPS_HOOK_SECRET = SECRET;
const APPS = ['test/console/fixtures/desk', 'test/console/fixtures/operations'];
const HOOK = '/api/v1/automation/hooks/order_in/orders';
const MEMBER = { email: 'member@example.com', password: 'member-password-1' };

function signed(body: string): Record<string, string> {
  const at = Math.floor(Date.now() / 1000);
  return { 'content-type': 'application/json', 'x-osr-signature': `t=${at},v1=${signPayload(SECRET, at, body)}` };
}

t.test('operators\' routes', async (t) => {
  await eachBackend(t, [`ops-${process.pid}`], async (t, site) => {
    const rt = await site.boot({ plugins: [opsProbe], config: { apps: APPS, plugins: { email: { enabled: false }, jobs: { pollMs: 50 } } } });
    const env = site.ids[0]!;
    const queue = rt.runtime.kernel.service<JobsQueue>('jobs.queue')!;
    const admin = bearer((await signIn(rt)).token);
    const created = await rt.inject({ method: 'POST', url: '/api/v1/auth/admin/create-user', headers: admin, payload: { ...MEMBER, mustChangePassword: false } });
    t.equal(created.statusCode, 201, 'a member is created');
    const member = bearer((await signIn(rt, MEMBER.email, MEMBER.password)).token);
    const get = async (url: string, headers: Record<string, string>) => {
      const res = await rt.inject({ url, headers });
      return { status: res.statusCode, body: res.json(), text: res.body };
    };

    // A job that fails once, with one attempt: dead at once.
    const { id } = await queue.add(FLAKY_JOB, {}, { attempts: 1, environmentId: env });
    t.ok(await waitFor(async () => (await queue.get(id, env))?.state === 'dead'), 'the flaky job goes dead');

    await t.test('GET /jobs: counts per name and state, dead letters with their last error', async (t) => {
      const res = await get('/api/v1/jobs', admin);
      t.equal(res.status, 200);
      t.equal(res.body.backend, 'embedded');
      t.same(res.body.counts.filter((c: { name: string }) => c.name === FLAKY_JOB), [{ name: FLAKY_JOB, state: 'dead', count: 1 }]);
      t.same(res.body.dead.map((d: { id: string; lastError: string; attempts: number; maxAttempts: number }) => [d.id, d.lastError, d.attempts, d.maxAttempts]), [[id, FLAKY_ERROR, 1, 1]]);
      const one = await get(`/api/v1/jobs/${id}`, admin);
      t.equal(one.status, 200);
      t.match(one.body, { id, name: FLAKY_JOB, state: 'dead', lastError: FLAKY_ERROR });
      t.equal((await get('/api/v1/jobs/no-such-job', admin)).status, 404, 'an unknown job is 404');
    });

    await t.test('members and anonymous callers are refused every operators\' route', async (t) => {
      for (const [method, url] of [
        ['GET', '/api/v1/jobs'], ['GET', `/api/v1/jobs/${id}`], ['POST', `/api/v1/jobs/${id}/retry`],
        ['GET', '/api/v1/automation/deliveries'], ['GET', '/api/v1/lifecycle/dry-run'], ['GET', '/api/v1/plugins'],
      ] as const) {
        const byMember = await rt.inject({ method, url, headers: member });
        t.equal(byMember.statusCode, 403, `${method} ${url}: a member is refused`);
        t.equal(byMember.json().error.code, 'PERMISSION_DENIED');
        t.equal(byMember.json().error.details.permission, 'admin');
        t.notMatch(byMember.body, FLAKY_ERROR, 'and reads nothing of the queue');
        const anonymous = await rt.inject({ method, url });
        t.equal(anonymous.statusCode, 401, `${method} ${url}: an anonymous caller is refused`);
      }
      t.equal((await queue.get(id, env))!.state, 'dead', "the member's retry changed nothing");
    });

    await t.test('POST /jobs/:id/retry: the dead job runs again and completes', async (t) => {
      const retried = await rt.inject({ method: 'POST', url: `/api/v1/jobs/${id}/retry`, headers: admin });
      t.equal(retried.statusCode, 200);
      t.equal(retried.json().id, id);
      t.equal(retried.json().attempts, 0, 'its attempts reset');
      t.ok(await waitFor(async () => (await queue.get(id, env))?.state === 'completed'), 'it completes');
      const again = await rt.inject({ method: 'POST', url: `/api/v1/jobs/${id}/retry`, headers: admin });
      t.equal(again.statusCode, 409, 'a job that is not dead is not retried');
      t.equal(again.json().error.code, 'JOB_NOT_DEAD');
      t.equal((await rt.inject({ method: 'POST', url: '/api/v1/jobs/no-such-job/retry', headers: admin })).statusCode, 404);
      const listed = await get('/api/v1/jobs', admin);
      t.same(listed.body.dead, [], 'no dead letter left');
      t.same(listed.body.counts.filter((c: { name: string }) => c.name === FLAKY_JOB), [{ name: FLAKY_JOB, state: 'completed', count: 1 }]);
    });

    await t.test('GET /automation/deliveries: accepted deliveries, newest first, with their runs', async (t) => {
      t.same((await get('/api/v1/automation/deliveries', admin)).body, { items: [], nextCursor: null }, 'none before the first');
      const runs: string[] = [];
      for (const [order, delivery] of [['A-1', 'dlv-a1'], ['A-2', null], ['A-3', 'dlv-a3']] as const) {
        const body = JSON.stringify({ order });
        const res = await rt.inject({ method: 'POST', url: HOOK, headers: { ...signed(body), ...(delivery ? { 'x-osr-delivery': delivery } : {}) }, payload: body });
        t.equal(res.statusCode, 202, `delivery of ${order} accepted`);
        runs.push(res.json().runId);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      const again = JSON.stringify({ order: 'A-1' });
      const duplicate = await rt.inject({ method: 'POST', url: HOOK, headers: { ...signed(again), 'x-osr-delivery': 'dlv-a1' }, payload: again });
      t.equal(duplicate.statusCode, 200, 'a duplicate delivery is answered and kept nowhere');
      const all = await get('/api/v1/automation/deliveries', admin);
      t.equal(all.status, 200);
      t.same(all.body.items.map((i: { flow: string; deliveryId: string | null; runId: string }) => [i.flow, i.deliveryId, i.runId]), [
        ['order_in', 'dlv-a3', runs[2]], ['order_in', null, runs[1]], ['order_in', 'dlv-a1', runs[0]],
      ], 'one per accepted request, newest first, with the sender\'s delivery id when it sent one');
      t.equal(all.body.nextCursor, null);
      t.ok(all.body.items.every((i: { receivedAt: string }) => !Number.isNaN(Date.parse(i.receivedAt))), 'each with when it came');
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page = await get(`/api/v1/automation/deliveries?limit=1${cursor ? `&cursor=${cursor}` : ''}`, admin);
        t.equal(page.body.items.length, 1, 'a page of one');
        seen.push(page.body.items[0].runId);
        cursor = page.body.nextCursor;
      } while (cursor && seen.length < 5);
      t.same(seen, [runs[2], runs[1], runs[0]], 'paged one by one to the end, without a duplicate');
      t.same((await get('/api/v1/automation/deliveries?flow=other_flow', admin)).body.items, [], 'filtered by flow');
      const bad = await get('/api/v1/automation/deliveries?cursor=bm90LWEtY3Vyc29y', admin);
      t.equal(bad.status, 400, 'a cursor it did not answer is refused');
      t.equal(bad.body.error.code, 'VALIDATION_ERROR');
    });

    await t.test('GET /lifecycle/dry-run: counts what each contract would remove, removes nothing', async (t) => {
      // The completed job, aged past the 14 days of system activity.
      const old = new Date(Date.now() - 20 * 86_400_000).toISOString();
      await rt.runtime.kernel.service<DataDatabase>('data.database')!.withDatabase(env, (db) => db.knex('sys_job').update({ finished_at: old }).where({ id }));
      const res = await get('/api/v1/lifecycle/dry-run', admin);
      t.equal(res.status, 200);
      t.equal(res.body.dryRun, true);
      t.equal(res.body.environmentId, env);
      const jobs = res.body.contracts.find((c: { name: string; object: string }) => c.name === 'system.activity' && c.object === 'sys_job');
      t.match(jobs, { plugin: 'jobs', keepDays: 14, overridden: false, status: 'applied', rows: 1, more: false }, 'the aged job would be removed');
      t.ok(res.body.contracts.some((c: { name: string }) => c.name === 'flows.runs'), 'every contract is listed');
      t.equal((await get(`/api/v1/jobs/${id}`, admin)).body.state, 'completed', 'and nothing was removed');
    });

    await t.test('GET /plugins: the plugins and their state, as osr plugins shows them', async (t) => {
      const res = await get('/api/v1/plugins', admin);
      t.equal(res.status, 200);
      const byName = new Map(res.body.items.map((p: { name: string }) => [p.name, p]));
      t.match(byName.get('http'), { state: 'enabled', status: 'ready', source: 'builtin', problems: [] });
      t.ok((byName.get('http') as { provides: string[] }).provides.includes('http.routes'), 'with its tokens');
      t.match(byName.get('email'), { state: 'disabled', status: 'disabled' }, 'a disabled plugin says so');
      t.match(byName.get('ops-probe'), { state: 'enabled', requires: ['jobs.queue', 'http.routes'] });
    });
  });
});
