/**
 * Flows on the BullMQ backend (Redis), on both database drivers: a started run with a wait
 * completes through delayed jobs, a record flow starts from a write, and a waiting run is cancelled.
 */
import t from 'tap';
import { addUser, sendAs } from '../access/accessWorld.ts';
import { eachBackend, signIn } from '../auth/authHarness.ts';
import { dropRedisKeys, redisProblem, REDIS_URL, requireRedis } from '../jobs/jobsHarness.ts';

const OPS = 'test/flows/fixtures/ops';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const down = await redisProblem();
const skip = down !== null && process.env.CI !== 'true' ? `Redis unreachable at ${REDIS_URL} (${down}); set CI=true to make this a failure` : false;

t.test('flows on BullMQ', { skip }, async (t) => {
  await requireRedis(t);
  await eachBackend(t, ['flows-bullmq'], async (t, site) => {
    t.teardown(() => dropRedisKeys(site.ids[0]!));
    const rt = await site.boot({ config: { apps: [OPS], redis: { url: REDIS_URL } } });
    const admin = await signIn(rt);
    const ann = await addUser(rt, admin.token, 'ann');
    const as = (method: string, url: string, payload?: unknown) => sendAs(rt, ann.token, method, url, payload);
    const until = async (flow: string, id: string, statuses: string[]) => {
      for (let i = 0; i < 400; i++) {
        const res = await as('GET', `/api/v1/flows/${flow}/runs/${id}`);
        if (statuses.includes(res.body?.status)) return res.body;
        await sleep(50);
      }
      throw new Error(`run ${id} of ${flow} never reached ${statuses.join('/')}`);
    };
    const doctor = await sendAs(rt, admin.token, 'GET', '/api/v1/data/sys_job?limit=1');
    t.equal(doctor.status, 200, 'jobs are mirrored into sys_job');

    const task = await as('POST', '/api/v1/data/task', { title: 'Printer' });
    t.equal(task.status, 201);
    const started = await as('POST', '/api/v1/flows/follow_up/start', { task_id: task.body.id });
    t.equal(started.status, 202);
    const run = await until('follow_up', started.body.runId, ['completed', 'failed']);
    t.equal(run.status, 'completed', JSON.stringify(run.error ?? null));
    t.same(run.steps.map((s: { id: string; status: string }) => [s.id, s.status]), [['load', 'completed'], ['check', 'completed'], ['pause', 'completed'], ['mark', 'completed']], 'the wait ran as a delayed job');
    t.same((await as('GET', `/api/v1/data/task/${task.body.id}`)).body.status, 'done');

    // A record flow starts from the write, once.
    const urgent = await as('POST', '/api/v1/data/task', { title: 'urgent: fix' });
    t.equal(urgent.status, 201);
    let notes: Array<{ text: string }> = [];
    for (let i = 0; i < 200 && notes.length === 0; i++) {
      notes = (await sendAs(rt, admin.token, 'GET', '/api/v1/data/note')).body.items;
      if (notes.length === 0) await sleep(50);
    }
    t.same(notes.map((n) => n.text), ['urgent: urgent: fix'], 'the record flow ran once');

    // A waiting run is cancelled, and its delayed job then does nothing.
    const long = await as('POST', '/api/v1/flows/long_wait/start', { tag: 'never' });
    t.equal(long.status, 202, JSON.stringify(long.body));
    await until('long_wait', long.body.runId, ['waiting']);
    const cancelled = await as('POST', `/api/v1/flows/long_wait/runs/${long.body.runId}/cancel`);
    t.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    t.equal((await as('GET', `/api/v1/flows/long_wait/runs/${long.body.runId}`)).body.status, 'cancelled');
    t.notOk((await sendAs(rt, admin.token, 'GET', '/api/v1/data/note')).body.items.some((n: { text: string }) => n.text === 'never'), 'nothing after the wait ran');
  });
});
