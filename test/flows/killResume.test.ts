/** A run waiting when its process is killed (kill -9) completes after the restart, each step once, on both drivers. */
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { ADMIN, eachBackend, SECRET, signIn, type Site } from '../auth/authHarness.ts';
import { sendAs } from '../access/accessWorld.ts';
import { POSTGRES_URL } from '../harness/databases.ts';
import { spawnFlowServer } from './fixtures/flowCluster.ts';

const OPS = 'test/flows/fixtures/ops';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const JOBS = { pollMs: 50, leaseMs: 1500 };

/** The runtime config site.boot uses, for a child process on the same databases. */
function configOf(site: Site) {
  return {
    dataDir: site.dataDir,
    environments: site.ids.map((id) => ({ id })),
    auth: { secret: SECRET, admin: ADMIN },
    apps: [OPS],
    plugins: { email: { enabled: false }, jobs: JOBS },
    ...(site.backend === 'postgres' ? { database: { url: POSTGRES_URL } } : {}),
  };
}

t.test('a run killed mid-wait completes once after the restart', async (t) => {
  await eachBackend(t, ['fkill'], async (t, site) => {
    const tag = randomBytes(4).toString('hex');
    const server = await spawnFlowServer(t, configOf(site));
    const signed = await server.send('POST', '/api/v1/auth/sign-in', undefined, { email: ADMIN.email, password: ADMIN.password });
    t.equal(signed.status, 200);
    const token = String(signed.body.token);
    const started = await server.send('POST', '/api/v1/flows/slow_note/start', token, { tag });
    t.equal(started.status, 202);
    const runId = String(started.body.runId);
    let status = '';
    for (let i = 0; i < 200 && status !== 'waiting'; i++) {
      status = (await server.send('GET', `/api/v1/flows/slow_note/runs/${runId}`, token)).body.status;
      if (status !== 'waiting') await sleep(25);
    }
    t.equal(status, 'waiting', 'the run waits in the child');
    server.child.kill('SIGKILL');
    t.equal(await server.exited, 'SIGKILL');
    const killedAt = Date.now();

    const rt = await site.boot({ config: { apps: [OPS], plugins: { email: { enabled: false }, jobs: JOBS } } });
    const admin = await signIn(rt);
    let run: Record<string, any> = {}; // eslint-disable-line @typescript-eslint/no-explicit-any
    for (let i = 0; i < 400; i++) {
      run = (await sendAs(rt, admin.token, 'GET', `/api/v1/flows/slow_note/runs/${runId}`)).body;
      if (run.status === 'completed' || run.status === 'failed') break;
      await sleep(50);
    }
    t.equal(run.status, 'completed', JSON.stringify(run));
    t.same(run.steps.map((s: { id: string; status: string }) => [s.id, s.status]), [['before', 'completed'], ['pause', 'completed'], ['after', 'completed']]);
    t.ok(Date.parse(run.endedAt) >= Date.parse(run.steps[1].output.until), 'it ended after the wait');
    t.ok(Date.now() - killedAt < 15_000, 'resumed by its delayed job, not after a long timeout');
    // A while longer: nothing runs it again.
    await sleep(2000);
    const notes = (await sendAs(rt, admin.token, 'POST', '/api/v1/data/note/query', { where: { text: { $in: [`before ${tag}`, `after ${tag}`] } }, limit: 10 })).body.items;
    t.same(notes.map((n: { text: string }) => n.text).sort(), [`after ${tag}`, `before ${tag}`], 'each step ran exactly once');
    t.equal(run.steps[2].output.id, notes.find((n: { text: string }) => n.text === `after ${tag}`).id);
    const again = (await sendAs(rt, admin.token, 'GET', `/api/v1/flows/slow_note/runs/${runId}`)).body;
    t.same([again.status, again.steps.length, again.endedAt], ['completed', 3, run.endedAt]);
  });
});
