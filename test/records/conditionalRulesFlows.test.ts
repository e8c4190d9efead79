import t from 'tap';
import { addUser, sendAs } from '../access/accessWorld.ts';
import { eachBackend, signIn } from '../auth/authHarness.ts';

/**
 * visibleWhen, readonlyWhen and requiredWhen hold for flow steps as they do through /data: a
 * create or update step breaking a rule fails the run with the field named, and writes nothing.
 */

const APP = 'test/records/fixtures/flowApp';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

t.test('conditional field rules in flow steps', async (t) => {
  await eachBackend(t, ['conditions-flows'], async (t, site) => {
    const rt = await site.boot({ config: { apps: [APP], plugins: { jobs: { pollMs: 50 } } } });
    const admin = await signIn(rt);
    const ann = await addUser(rt, admin.token, 'ann');
    const as = (method: string, url: string, payload?: unknown) => sendAs(rt, ann.token, method, url, payload);
    /** Starts a flow as ann and waits for its run to end. */
    const run = async (flow: string, input: Record<string, unknown>) => {
      const started = await as('POST', `/api/v1/flows/${flow}/start`, input);
      if (started.status !== 202) throw new Error(`${flow}: ${started.status} ${JSON.stringify(started.body)}`);
      for (let i = 0; i < 300; i++) {
        const res = await as('GET', `/api/v1/flows/${flow}/runs/${started.body.runId}`);
        if (['completed', 'failed'].includes(res.body?.status)) return res.body;
        await sleep(50);
      }
      throw new Error(`run of ${flow} never ended`);
    };
    const deals = async () => (await as('GET', '/api/v1/data/deal?orderBy=title')).body.items as Array<Record<string, unknown>>;

    // requiredWhen: a lost deal created without its reason fails the step, and nothing is written.
    const missing = await run('lose_deal', { title: 'F-1' });
    t.equal(missing.status, 'failed');
    t.equal(missing.error.code, 'VALIDATION_ERROR');
    t.match(JSON.stringify(missing.error), /close_reason/, 'the failure names the field');
    t.same(await deals(), [], 'the failed create wrote nothing');

    const lost = await run('lose_deal', { title: 'F-2', reason: 'price' });
    t.equal(lost.status, 'completed', JSON.stringify(lost.error ?? null));
    const [stored] = await deals();
    t.equal(stored.close_reason, 'price');

    // visibleWhen: an open deal's close reason is not written by a flow either.
    const open = await as('POST', '/api/v1/data/deal', { title: 'F-3' });
    t.equal(open.status, 201);
    const hidden = await run('give_reason', { deal_id: open.body.id, reason: 'SHOULD-NOT-LAND' });
    t.equal(hidden.status, 'failed');
    t.equal(hidden.error.code, 'VALIDATION_ERROR');
    t.match(JSON.stringify(hidden.error), /close_reason/);
    const admins = await sendAs(rt, admin.token, 'GET', `/api/v1/data/deal/${open.body.id}`);
    t.equal(admins.body.version, open.body.version, 'the record is unchanged');

    // readonlyWhen: a won deal's discount stays frozen against a flow's update.
    const won = await as('POST', '/api/v1/data/deal', { title: 'F-4', stage: 'won', discount: 5 });
    t.equal(won.status, 201);
    const frozen = await run('set_discount', { deal_id: won.body.id, discount: 9 });
    t.equal(frozen.status, 'failed');
    t.match(JSON.stringify(frozen.error), /discount/);
    t.equal((await as('GET', `/api/v1/data/deal/${won.body.id}`)).body.discount, 5, 'the discount is unchanged');
    const reopened = await as('PATCH', `/api/v1/data/deal/${won.body.id}`, { stage: 'open' });
    t.equal(reopened.status, 200);
    const thawed = await run('set_discount', { deal_id: won.body.id, discount: 9 });
    t.equal(thawed.status, 'completed', 'writable once the rule no longer holds');
    t.equal((await as('GET', `/api/v1/data/deal/${won.body.id}`)).body.discount, 9);
  });
});
