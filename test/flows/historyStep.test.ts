import t from 'tap';
import { addUser, sendAs } from '../access/accessWorld.ts';
import { eachBackend, signIn } from '../auth/authHarness.ts';

/**
 * The `history` flow step: a record's history entries, newest first, read as the run's principal
 * (the record's access and field-level security apply, as on GET /data/:object/:id/history).
 */

const APP = 'test/records/fixtures/flowApp';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

t.test('the history step of a flow', async (t) => {
  await eachBackend(t, ['history-step'], async (t, site) => {
    const rt = await site.boot({ config: { apps: [APP], plugins: { jobs: { pollMs: 50 } } } });
    const admin = await signIn(rt);
    const ann = await addUser(rt, admin.token, 'ann');
    const bob = await addUser(rt, admin.token, 'bob');
    const as = (who: { token: string }, method: string, url: string, payload?: unknown) => sendAs(rt, who.token, method, url, payload);
    // A set no member holds names deal.secret: members may not read it.
    t.equal((await as(admin, 'POST', '/api/v1/data/sys_permission_set', { name: 'deal_secrets', fields: { 'deal.secret': { read: true, edit: true } } })).status, 201);
    const run = async (who: { token: string }, input: Record<string, unknown>) => {
      const started = await as(who, 'POST', '/api/v1/flows/deal_history/start', input);
      if (started.status !== 202) throw new Error(`start: ${started.status} ${JSON.stringify(started.body)}`);
      for (let i = 0; i < 300; i++) {
        const res = await as(who, 'GET', `/api/v1/flows/deal_history/runs/${started.body.runId}`);
        if (['completed', 'failed'].includes(res.body?.status)) return res.body;
        await sleep(50);
      }
      throw new Error('the run never ended');
    };

    const deal = await as(ann, 'POST', '/api/v1/data/deal', { title: 'H-1' });
    t.equal(deal.status, 201);
    t.equal((await as(admin, 'PATCH', `/api/v1/data/deal/${deal.body.id}`, { secret: 'SECRET-HISTORY-VALUE' })).status, 200);
    t.equal((await as(ann, 'PATCH', `/api/v1/data/deal/${deal.body.id}`, { discount: 3 })).status, 200);

    const done = await run(ann, { deal_id: deal.body.id });
    t.equal(done.status, 'completed', JSON.stringify(done.error ?? null));
    const step = done.steps.find((s: { id: string }) => s.id === 'changes');
    t.equal(step.output.count, 3, 'create and two updates');
    t.same(step.output.entries.map((e: { operation: string; version: number }) => [e.operation, e.version]), [['update', 3], ['update', 2], ['create', 1]], 'newest first');
    t.notOk(JSON.stringify(done).includes('SECRET-HISTORY-VALUE'), "a field the runner may not read is left out of the step's output");
    t.same(step.output.entries[1].changes, {}, 'the admin-only change shows no field to the member');
    t.equal((await as(ann, 'GET', `/api/v1/data/deal/${deal.body.id}`)).body.title, 'CHANGED-TWICE', 'later steps branch on the output');

    // A record the runner cannot read fails the step as a get would.
    const hidden = await as(admin, 'POST', '/api/v1/data/deal', { title: 'ADMIN-ONLY' });
    t.equal(hidden.status, 201);
    const refused = await run(bob, { deal_id: hidden.body.id });
    t.equal(refused.status, 'failed');
    t.equal(refused.error.code, 'NOT_FOUND');
  });
});
